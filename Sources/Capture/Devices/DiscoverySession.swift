import Glibc
import Media

extension CaptureDevice {
    /// Finds cameras of the given types and position, as AVFoundation's discovery session does.
    public struct DiscoverySession: Sendable {
        /// The kinds of camera asked for.
        public let deviceTypes: [DeviceType]
        /// The position asked for (`.unspecified`: any).
        public let position: Position

        /// A discovery of `deviceTypes` at `position`.
        public init(deviceTypes: [DeviceType] = DeviceType.allCases, mediaType: MediaType = .video, position: Position = .unspecified) {
            self.deviceTypes = deviceTypes
            self.position = position
        }

        /// The matching cameras now: real ones in node order, then the virtual pair.
        public var devices: [CaptureDevice] {
            DeviceScanner.scan(includeVirtual: deviceTypes.contains(.virtual)).filter { device in
                deviceTypes.contains(device.deviceType) && (position == .unspecified || device.position == position)
            }
        }
    }

    /// The best camera for `position`: a real one facing that way, else any real one (for
    /// `.unspecified`), else the virtual test camera when `allowVirtual`. Infrared cameras
    /// (`isInfrared`) are never chosen: open one by its ID or node.
    public static func `default`(for mediaType: MediaType = .video, position: Position = .unspecified, allowVirtual: Bool = true) -> CaptureDevice? {
        preferred(among: DeviceScanner.scan(includeVirtual: allowVirtual), position: position, allowVirtual: allowVirtual)
    }

    /// `default(for:position:allowVirtual:)`'s choice among `all`.
    static func preferred(among all: [CaptureDevice], position: Position, allowVirtual: Bool) -> CaptureDevice? {
        let usable = all.filter { !$0.formats.isEmpty && !$0.isInfrared }
        let real = usable.filter { $0.deviceType != .virtual }
        if let exact = real.first(where: { $0.position == position }) { return exact }
        if position == .unspecified || position == .external, let first = real.first { return first }
        guard allowVirtual else { return nil }
        let virtual = usable.filter { $0.deviceType == .virtual }
        return virtual.first { $0.position == position } ?? virtual.first
    }

    /// The camera with this ID, this node path (/dev/videoN: always opened through V4L2 directly),
    /// this PipeWire node ("pipewire:<node.name>"), or "test"/"test-front"/"test-back" for the virtual one.
    public static func device(withID id: String) throws(CaptureError) -> CaptureDevice {
        switch id {
        case "test", "test-front", "virtual": return DeviceScanner.virtualDevices()[0]
        case "test-back": return DeviceScanner.virtualDevices()[1]
        default: break
        }
        // A node path names one node: only that one is opened and described (IDs are never paths).
        if id.hasPrefix("/") {
            if access(id, F_OK) != 0 { throw .deviceNotFound(id) }
            if let described = DeviceScanner.describe(path: id) { return described }
            throw .unsupported("\(id) is not a video capture device")
        }
        let all = DeviceScanner.scan()
        if let match = all.first(where: { $0.uniqueID == id }) { return match }
        if id.hasPrefix("pipewire:"), let match = all.first(where: { $0.pipeWireNode == String(id.dropFirst(9)) }) { return match }
        throw .deviceNotFound(id)
    }

    /// Access to cameras, as far as the system tells.
    public enum AuthorizationStatus: String, Sendable {
        /// Not asked yet (only through the camera portal, before the first look for cameras or
        /// `requestAccess`).
        case notDetermined
        /// Cameras can be opened.
        case authorized
        /// The user may not open the camera nodes (permissions), or refused the camera portal.
        case denied
        /// Policy forbids cameras (a sandbox without device access or camera portal).
        case restricted
    }

    /// Whether this process may use cameras: `.denied` when camera nodes exist but none can be
    /// opened for lack of permission, `.restricted` inside a sandbox without /dev access. Through
    /// the camera portal (in a sandbox, or with PINHOLE_PORTAL=1): what the portal answered this
    /// process, `.notDetermined` before it was asked (asking is not done here: no dialog shows).
    public static func authorizationStatus(for mediaType: MediaType = .video) -> AuthorizationStatus {
        if CameraPortal.isWanted {
            return switch CameraPortal.lastAnswer {
            case .notAsked: .notDetermined
            case .allowed: .authorized
            case .denied: .denied
            case .unavailable: .restricted
            }
        }
        let nodes = DeviceScanner.videoNodes()
        if nodes.isEmpty {
            return access("/.flatpak-info", F_OK) == 0 ? .restricted : .authorized
        }
        return nodes.contains { access($0, R_OK | W_OK) == 0 } ? .authorized : .denied
    }

    /// Why cameras cannot be used at all (nil when nothing is known to stand in the way): through
    /// the camera portal, its refusal (`.portalAccessDenied`) or its absence (`.restricted`), once
    /// a look for cameras or `requestAccess` asked it. A problem with one camera's node is that
    /// camera's `accessProblem`.
    public static func accessProblem(for mediaType: MediaType = .video) -> CaptureError? {
        CameraPortal.isWanted ? CameraPortal.problem : nil
    }

    /// The status of this camera in particular.
    public var authorizationStatus: AuthorizationStatus {
        guard let path else { return .authorized }
        if access(path, F_OK) != 0 { return .authorized }
        return access(path, R_OK | W_OK) == 0 ? .authorized : .denied
    }

    /// Why this camera cannot be opened for lack of permission, with the fix (nil when it can).
    public var accessProblem: CaptureError? {
        guard authorizationStatus == .denied, let path else { return nil }
        return .accessDenied(device: path, group: V4L2Errno.owningGroup(path: path))
    }

    /// Asks for camera access; true when granted. Through the camera portal this calls its
    /// AccessCamera, which shows the desktop's dialog unless the portal's permission store holds
    /// the answer (a refusal stored there is answered at once: the user changes it in the
    /// desktop's privacy settings). Without a portal there is nobody to ask, so this reports the
    /// permission the system gives now.
    public static func requestAccess(for mediaType: MediaType = .video) async -> Bool {
        guard CameraPortal.isWanted else { return authorizationStatus(for: mediaType) == .authorized }
        // The portal's dialog may wait for the user: on a Dispatch worker, not the caller's pool.
        return await BlockingWork.run { () -> Bool in CameraPortal.requestAccess() }
    }
}
