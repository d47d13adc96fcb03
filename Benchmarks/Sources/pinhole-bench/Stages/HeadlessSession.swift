import Capture
import Glibc
import Media

/// A display and a session bus of the bench's own, with the folders and settings the app reads:
/// Xvfb (1920×1080, no TCP), `dbus-daemon --session`, XDG folders, a GSettings keyfile and the
/// app's compiled schema, in `folder`.
final class HeadlessSession {
    /// The private folder everything lives in (its path also marks the processes to stop).
    let folder: String
    /// The X display, ":N".
    let display: String
    /// The session bus address.
    let busAddress: String
    /// The app's library folder.
    var library: String { folder + "/library" }
    private let xvfb: ChildProcess
    private let bus: ChildProcess
    /// The X server's CPU seconds so far.
    var displayServerCPU: Double? { xvfb.cpuSecondsSoFar() }
    private var stopped = false

    /// Starts Xvfb and dbus-daemon, compiles the schema from `schemas` (the source tree's data/)
    /// and writes the keyfile.
    init(folder: String, schemas: String) throws {
        self.folder = folder
        for name in ["runtime", "config", "config/glib-2.0", "config/glib-2.0/settings", "cache", "data", "schemas", "library"] {
            mkdir(folder + "/" + name, 0o700)
        }
        let compiled = Subprocess.run(["glib-compile-schemas", "--strict", "--targetdir=" + folder + "/schemas", schemas], scratch: folder)
        guard compiled.status == 0 else { throw CaptureBenchError(description: "glib-compile-schemas: \(compiled.errors.trimmed.suffix(300))") }
        // Photos at 1080p, and the stream pinned to the test camera's 1080p30 YUYV (the default
        // preset would pick its NV12 at the same size and rate): the GStreamer peers' format.
        let keyfile = "[io/github/pinhole/Camera]\nphoto-size='1920x1080'\nvideo-size='1920x1080@30'\nlast-camera='\(VirtualCamera.frontID)'\n"
        _ = try AtomicFile.write(Array(keyfile.utf8), to: folder + "/config/glib-2.0/settings/keyfile")

        let base = HeadlessSession.inheritedEnvironment()
        xvfb = try ChildProcess(["Xvfb", "-displayfd", "1", "-screen", "0", "1920x1080x24", "-nolisten", "tcp", "-noreset"], environment: base,
                                errorPath: folder + "/xvfb.txt", standardOutput: .pipe)
        guard let number = xvfb.readLine(timeout: 20), !number.trimmed.isEmpty else {
            xvfb.stop()
            throw CaptureBenchError(description: "Xvfb did not start: \((readFile(folder + "/xvfb.txt") ?? "").trimmed.suffix(300))")
        }
        display = ":" + number.trimmed
        let folders = HeadlessSession.folders(folder)
        do {
            bus = try ChildProcess(["dbus-daemon", "--session", "--nofork", "--print-address=1"], environment: base + ["DISPLAY=\(display)"] + folders,
                                   errorPath: folder + "/dbus.txt", standardOutput: .pipe)
        } catch {
            xvfb.stop()
            throw error
        }
        guard let address = bus.readLine(timeout: 20), !address.trimmed.isEmpty else {
            bus.stop()
            xvfb.stop()
            throw CaptureBenchError(description: "dbus-daemon did not start: \((readFile(folder + "/dbus.txt") ?? "").trimmed.suffix(300))")
        }
        busAddress = address.trimmed
    }

    /// The XDG folders and settings of the session, as NAME=value.
    static func folders(_ folder: String) -> [String] {
        ["XDG_RUNTIME_DIR=\(folder)/runtime", "XDG_CONFIG_HOME=\(folder)/config", "XDG_CACHE_HOME=\(folder)/cache", "XDG_DATA_HOME=\(folder)/data",
         "GSETTINGS_BACKEND=keyfile", "GSETTINGS_SCHEMA_DIR=\(folder)/schemas"]
    }

    /// The environment of the app, the floor, the GStreamer peers and gapplication.
    var environment: [String] {
        HeadlessSession.inheritedEnvironment() + HeadlessSession.folders(folder) + [
            "DISPLAY=\(display)", "DBUS_SESSION_BUS_ADDRESS=\(busAddress)", "GDK_BACKEND=x11", "GSK_RENDERER=cairo", "NO_AT_BRIDGE=1",
            "PINHOLE_TEST_CAMERA=1", "PINHOLE_BENCH_REPORT=1", "PINHOLE_LIBRARY=\(library)",
            // No sound server here; pointing libpulse at nothing also keeps it from spawning one.
            "PULSE_SERVER=unix:\(folder)/runtime/no-pulse",
        ]
    }

    /// This process's environment without what the session sets or what would reach another
    /// display, bus or settings store.
    static func inheritedEnvironment() -> [String] {
        let dropped = ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                       "GSETTINGS_BACKEND", "GSETTINGS_SCHEMA_DIR", "GDK_BACKEND", "GSK_RENDERER", "GTK_A11Y", "NO_AT_BRIDGE", "PULSE_SERVER", "XAUTHORITY"]
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = String(text.prefix { $0 != "=" })
            if !dropped.contains(name) && !name.hasPrefix("PINHOLE_") && !name.hasPrefix("GST_") { result.append(text) }
            pointer += 1
        }
        return result
    }

    /// Stops anything started on the session's behalf (the accessibility bus launcher, its
    /// dbus-daemon and registry, which the bus started on demand: their environment names this
    /// session's folder), then the bus and the display; returns what was stopped besides those
    /// two, and anything that would not stop.
    func stop() -> (stopped: [String], survivors: [String]) {
        guard !stopped else { return ([], []) }
        stopped = true
        let strays = StrayProcesses.stop(marking: folder + "/")
        bus.stop(grace: 5)
        xvfb.stop(grace: 5)
        let late = StrayProcesses.stop(marking: folder + "/")
        return (strays.stopped + late.stopped, late.survivors)
    }

    deinit { _ = stop() }
}
