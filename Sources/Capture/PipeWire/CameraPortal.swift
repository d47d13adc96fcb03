import CCameraPortal
import Glibc
import Media

/// The desktop's camera portal (org.freedesktop.portal.Camera, from xdg-desktop-portal): how a
/// sandboxed Pinhole reaches cameras. `IsCameraPresent`, then `AccessCamera` (the portal asks the
/// user, or answers from its permission store: table `devices`, id `camera`), then
/// `OpenPipeWireRemote`, whose socket the PipeWire driver connects over instead of the session's
/// PipeWire socket. Through the portal Pinhole sees only PipeWire's cameras, never /dev.
///
/// Used when Pinhole runs in a Flatpak sandbox (/.flatpak-info exists), or when PINHOLE_PORTAL=1
/// asks for it; PINHOLE_PORTAL=0 turns it off. Outside a sandbox Pinhole opens cameras itself:
/// the portal would show a dialog that protects nothing there (WirePlumber ignores the portal's
/// permissions for programs outside a sandbox, and so do V4L2 nodes).
///
/// xdg-desktop-portal 1.16 (Debian 12) answers a refusal, whether from the dialog or stored, with
/// response 1 as well as 2: both are a refusal here. A refusal is kept for the process's life, so
/// looking for cameras again asks no more; `requestAccess()` asks again.
enum CameraPortal {
    /// How long AccessCamera waits for the user to answer the portal's dialog.
    static let dialogTimeout = 300.0

    /// What the portal said to this process.
    enum Answer: Equatable {
        /// Not asked yet.
        case notAsked
        /// Access granted: the PipeWire remote can be opened.
        case allowed
        /// Access refused (by the user, or stored in the permission store).
        case denied
        /// No camera portal on the session bus (or no session bus), with the reason.
        case unavailable(String)
    }

    /// The last answer.
    private static let answer = Lock(Answer.notAsked)

    /// Whether Pinhole reaches cameras through the portal: PINHOLE_PORTAL=1 or 0 decides, else
    /// whether Pinhole runs in a Flatpak sandbox.
    static var isWanted: Bool {
        switch DeviceScanner.environment("PINHOLE_PORTAL") {
        case "1": true
        case "0": false
        default: access("/.flatpak-info", F_OK) == 0
        }
    }

    /// The portal's last answer to this process.
    static var lastAnswer: Answer { answer.withLock { $0 } }

    /// Why cameras cannot be reached through the portal now (nil when they can, or it was not asked).
    static var problem: CaptureError? {
        switch lastAnswer {
        case .denied: .portalAccessDenied
        case let .unavailable(reason): .restricted(device: "the camera", reason: reason)
        case .notAsked, .allowed: nil
        }
    }

    /// A PipeWire connection's descriptor from the portal, asking for access first unless this
    /// process was refused already, and whether the portal saw a camera then. Throws
    /// `.portalAccessDenied` when access is refused, `.restricted` without a portal.
    ///
    /// Access is asked and the remote opened even when the portal sees no camera: xdg-desktop-portal
    /// 1.16 sets `IsCameraPresent` when it starts and never again (a camera node added later left it
    /// false for as long as it was watched), so a camera plugged in later is found only in the
    /// remote's registry, which WirePlumber fills as cameras come.
    static func openRemote() throws(CaptureError) -> (descriptor: Int32, cameraPresent: Bool) {
        if lastAnswer == .denied { throw .portalAccessDenied }
        var present = false
        try call("IsCameraPresent") { pinhole_portal_is_camera_present(&present, $0, $1) }
        if lastAnswer != .allowed, try !ask() { throw .portalAccessDenied }
        var fd: Int32 = -1
        try call("OpenPipeWireRemote") { pinhole_portal_open_pipewire_remote(&fd, $0, $1) }
        return (fd, present)
    }

    /// Asks for access again (AccessCamera; a dialog unless the permission store has the answer);
    /// true when granted.
    static func requestAccess() -> Bool {
        answer.withLock { $0 = .notAsked }
        return (try? ask()) ?? false
    }

    /// Calls AccessCamera and keeps the answer.
    private static func ask() throws(CaptureError) -> Bool {
        var reply = PINHOLE_PORTAL_DENIED
        try call("AccessCamera") { pinhole_portal_access_camera(Int32(dialogTimeout * 1000), &reply, $0, $1) }
        let allowed = reply == PINHOLE_PORTAL_ALLOWED
        answer.withLock { $0 = allowed ? .allowed : .denied }
        return allowed
    }

    /// Runs one portal call; a missing portal is kept as the answer, a refusal too.
    private static func call(_ method: String, _ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws(CaptureError) {
        var message = [CChar](repeating: 0, count: 512)
        let code = message.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        guard code < 0 else { return }
        let text = message.nulTerminatedString
        switch -code {
        case ENOENT, ECONNREFUSED:
            let reason = "the session has no camera portal (\(text))"
            answer.withLock { $0 = .unavailable(reason) }
            throw .restricted(device: "the camera", reason: reason)
        case EACCES:
            answer.withLock { $0 = .denied }
            throw .portalAccessDenied
        case ETIMEDOUT:
            throw .timeout(device: "the camera portal", seconds: dialogTimeout)
        default:
            throw .system(operation: "calling the camera portal's \(method)", code: -code, message: text)
        }
    }
}
