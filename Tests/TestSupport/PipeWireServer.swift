import Foundation
import Glibc
import Testing

/// A PipeWire daemon with WirePlumber of the test's own, on a private session bus, in a temporary
/// folder: HOME, XDG_RUNTIME_DIR and XDG_CONFIG_HOME point there, so it never touches or finds a
/// user's. WirePlumber's bluetooth monitor is told not to ask for systemd-logind (absent in the VM
/// and in containers: WirePlumber otherwise quits, and no camera node ever appears).
///
/// Clients reach it through `environment` (PIPEWIRE_REMOTE, the socket's full path), given to the
/// programs a test starts: the test process's own environment is left alone, so suites running
/// beside it never see its cameras. `stop()` (or the value dying) kills every process it started.
public final class PrivatePipeWire: @unchecked Sendable {
    /// The folder holding the runtime directory, HOME and logs.
    public let folder: TemporaryDirectory
    /// The daemons: dbus-daemon (unless it joined a bus), pipewire, wireplumber.
    public private(set) var processes: [BackgroundProcess] = []
    /// The socket's path.
    public let socket: String
    /// What a client needs to connect (and nothing else: no user's PipeWire can be reached).
    public var environment: [String: String] { base.merging(["PIPEWIRE_REMOTE": socket]) { _, new in new } }
    private let base: [String: String]

    /// Starts dbus-daemon (unless `bus` names a session bus to join), pipewire and wireplumber;
    /// ready once the socket answers pw-cli. The camera portal's programs must share PipeWire's
    /// bus, as on a desktop: PipeWire's portal module tells the portal's connections (tagged
    /// `pipewire.access = portal`, whose permissions WirePlumber sets) by the pid owning
    /// org.freedesktop.portal.Desktop on its own bus. A portal on another bus hands out remotes
    /// that WirePlumber never grants a node, so nothing shows through them.
    public init(bus: String? = nil) throws {
        folder = try TemporaryDirectory()
        let runtime = folder.path("runtime"), home = folder.path("home")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let lua = home + "/.config/wireplumber/bluetooth.lua.d"
        try FileManager.default.createDirectory(atPath: lua, withIntermediateDirectories: true)
        try "bluez_monitor.properties[\"with-logind\"] = false\n".write(toFile: lua + "/51-no-logind.lua", atomically: true, encoding: .utf8)
        socket = runtime + "/pipewire-0"
        let busAddress: String
        if let bus {
            busAddress = bus
        } else {
            // The bus's socket in the folder: the default (/tmp) is read-only inside scripts/vm.
            let daemon = try BackgroundProcess(["/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:path=\(folder.path("bus"))"])
            processes.append(daemon)
            try #require(daemon.waitForOutput(containing: "unix:"), "dbus-daemon did not start: install dbus-daemon (scripts/setup)")
            busAddress = daemon.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        base = ["HOME": home, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.local/state",
                "DBUS_SESSION_BUS_ADDRESS": busAddress]
        let pipewire = try BackgroundProcess(["/usr/bin/pipewire"], environment: base)
        processes.append(pipewire)
        let up = blockUntil { FileManager.default.fileExists(atPath: socket) && (try? runTool("pw-cli", ["info", "0"], environment: environment))?.status == 0 }
        try #require(up, "pipewire did not start (install pipewire-bin: scripts/setup): \(pipewire.errors)")
        processes.append(try BackgroundProcess(["/usr/bin/wireplumber"], environment: base))
    }

    deinit { stop() }

    /// Kills the daemons (and nothing else).
    public func stop() {
        for process in processes.reversed() { process.stop() }
        processes.removeAll()
    }

    /// Whether a node called `name` is in the graph, as pw-cli (an independent client) lists it.
    public func hasNode(_ name: String) -> Bool {
        guard let listing = try? runTool("pw-cli", ["ls", "Node"], environment: environment), listing.status == 0 else { return false }
        return listing.stdout.contains("node.name = \"\(name)\"")
    }

    /// Publishes a camera node `name` from GStreamer's test source (SMPTE colour bars) at exactly
    /// `format` `width`×`height` at `fps` (without caps pipewiresink offers ABGR64 and fails), or
    /// in MJPEG (`format` "MJPG", through jpegenc), and waits until it is in the graph.
    /// pipewiresink in `mode=provide` (Debian 12's 0.3.65) streams to its first consumer only:
    /// give each consumer a camera of its own.
    public func provideCamera(name: String, format: String = "YUY2", width: Int = 640, height: Int = 480, fps: Int = 30) throws -> BackgroundProcess {
        let size = "width=\(width),height=\(height),framerate=\(fps)/1"
        let caps = format == "MJPG" ? ["video/x-raw,\(size)", "!", "jpegenc", "!", "image/jpeg,\(size)"] : ["video/x-raw,format=\(format),\(size)"]
        let camera = try BackgroundProcess(["/usr/bin/gst-launch-1.0", "videotestsrc", "is-live=true", "!"] + caps + ["!",
                                            "pipewiresink", "mode=provide",
                                            "stream-properties=props,media.class=(string)Video/Source,media.role=(string)Camera,node.name=(string)\(name)"],
                                           environment: environment)
        let there = blockUntil { hasNode(name) }
        try #require(there, "gst-launch-1.0 published no node \(name) (install gstreamer1.0-pipewire: scripts/setup): \(camera.errors)")
        return camera
    }
}

/// xdg-desktop-portal on a `PrivatePipeWire`'s bus with its permission store and a stand-in access
/// dialog (Tests/Fixtures/stand-in-access-backend.py, configured as the Access backend of a
/// desktop of the test's own: the portal exports its Camera interface only with one). Programs
/// reach it through `environment` (the daemon's, with PINHOLE_PORTAL=1), on the daemon's bus (an
/// app session's when the daemon joined it: `PrivatePipeWire(bus:)`; the portal must share
/// PipeWire's bus). Start it once the camera node is in the graph: the portal does not notice a
/// pipewiresink node that appears after it.
public final class PrivateCameraPortal: @unchecked Sendable {
    /// The portal, the permission store and the stand-in dialog.
    public private(set) var processes: [BackgroundProcess] = []
    /// The daemon's environment, with PINHOLE_PORTAL=1.
    public let environment: [String: String]
    /// The file the stand-in dialog reads its answer from ("0" allow, "2" deny).
    private let answerFile: String
    /// The file it appends one line to per dialog shown.
    private let dialogLog: String

    /// Starts xdg-permission-store, the stand-in dialog answering `dialogAnswer` and
    /// xdg-desktop-portal on the daemon's bus; ready once the portal's Camera interface says a
    /// camera is present (with `camera` false, once it answers at all: there is none yet).
    public init(on server: PrivatePipeWire, dialogAnswer: Int = 0, camera: Bool = true) throws {
        let folder = server.folder
        answerFile = folder.path("portal-answer")
        dialogLog = folder.path("portal-dialogs.log")
        try "\(dialogAnswer)\n".write(toFile: answerFile, atomically: true, encoding: .utf8)
        let portals = folder.path("portals")
        try FileManager.default.createDirectory(atPath: portals, withIntermediateDirectories: true)
        let backend = "org.freedesktop.impl.portal.desktop.pinholetest"
        try "[portal]\nDBusName=\(backend)\nInterfaces=org.freedesktop.impl.portal.Access;\nUseIn=pinholetest\n"
            .write(toFile: portals + "/pinholetest.portal", atomically: true, encoding: .utf8)
        let base = server.environment.merging(["XDG_DATA_HOME": server.folder.path("home/.local/share")]) { _, new in new }
        processes.append(try BackgroundProcess(["/usr/libexec/xdg-permission-store", "--replace"], environment: base))
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/stand-in-access-backend.py").path
        let dialog = try BackgroundProcess(["/usr/bin/python3", fixture, backend, answerFile, dialogLog], environment: base)
        processes.append(dialog)
        try #require(dialog.waitForOutput(containing: "ready"), "the stand-in access dialog did not start: \(dialog.errors)")
        processes.append(try BackgroundProcess(["/usr/libexec/xdg-desktop-portal", "--replace"],
                                               environment: base.merging(["XDG_CURRENT_DESKTOP": "pinholetest", "XDG_DESKTOP_PORTAL_DIR": portals]) { _, new in new }))
        environment = base.merging(["PINHOLE_PORTAL": "1"]) { _, new in new }
        let ready = blockUntil {
            let answer = try? runTool("gdbus", ["call", "--session", "-d", "org.freedesktop.portal.Desktop", "-o", "/org/freedesktop/portal/desktop",
                                                "-m", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.portal.Camera", "IsCameraPresent"],
                                      environment: base)
            return answer?.stdout.contains(camera ? "<true>" : "(<") ?? false
        }
        try #require(ready, "xdg-desktop-portal offers no camera (install xdg-desktop-portal: scripts/setup): \(processes[2].errors)")
    }

    deinit { stop() }

    /// Kills the portal, the store and the dialog (and nothing else).
    public func stop() {
        for process in processes.reversed() { process.stop() }
        processes.removeAll()
    }

    /// Stores `answer` ("yes" or "no") for programs outside a sandbox (app id "") in the permission
    /// store's `devices` table under `camera`, as the desktop's privacy settings do.
    public func setPermission(_ answer: String) throws {
        let result = try runTool("gdbus", ["call", "--session", "-d", "org.freedesktop.impl.portal.PermissionStore",
                                           "-o", "/org/freedesktop/impl/portal/PermissionStore",
                                           "-m", "org.freedesktop.impl.portal.PermissionStore.SetPermission", "devices", "true", "camera", "", "['\(answer)']"],
                                 environment: environment)
        try #require(result.status == 0, "SetPermission failed: \(result.stderr)")
    }

    /// What the permission store holds for cameras (gdbus's text of Lookup's answer; empty when nothing is stored).
    public func storedPermissions() throws -> String {
        let result = try runTool("gdbus", ["call", "--session", "-d", "org.freedesktop.impl.portal.PermissionStore",
                                           "-o", "/org/freedesktop/impl/portal/PermissionStore",
                                           "-m", "org.freedesktop.impl.portal.PermissionStore.Lookup", "devices", "camera"], environment: environment)
        return result.status == 0 ? result.stdout : ""
    }

    /// The dialogs the stand-in showed, one line each ("AccessDialog app_id= title=… response=N").
    public var dialogs: [String] {
        ((try? String(contentsOfFile: dialogLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}
