import Glibc

/// A display and a session bus of their own, with the folders and settings the camera app reads,
/// for the app tests (`AppSession`) and the bench's app stages: Xvfb (no TCP, no reset), a
/// `dbus-daemon`, XDG folders, a GSettings keyfile and the app's compiled schema, all in `folder`.
/// `stop` (or the value's end) stops them and whatever the bus started on the session's behalf.
public final class HeadlessSession {
    /// Which services the session bus may start by itself.
    public enum Bus {
        /// `dbus-daemon --session`: the system's services start on demand (the accessibility bus
        /// launcher, when the first GTK program asks for it).
        case session
        /// A bus that starts no service by itself: on a desktop machine the system's service files
        /// would let the app's first portal question (libadwaita reads the colour scheme from
        /// org.freedesktop.portal.Settings) start the real xdg-desktop-portal, whose chooser then
        /// stands in for the one a test drives; the tests start what they need.
        case isolated
    }

    /// Why the session could not start.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// The private folder everything lives in (its path also marks the processes to stop).
    public let folder: String
    /// The X display, ":N".
    public let display: String
    /// The session bus address.
    public let busAddress: String
    /// The GSettings schema folder the app reads (compiled from the `schemas` given).
    public var schemas: String { folder + "/schemas" }
    /// The app's library folder (`PINHOLE_LIBRARY`).
    public var library: String { folder + "/library" }
    /// What the session sets for every program run in it, beyond `folders`: its display and bus,
    /// X11 and the cairo renderer, the library, no sound server and no Wayland, and the `extra`
    /// given at the start.
    public let variables: [String: String]
    /// The X server.
    private let xvfb: ChildProcess
    /// The session bus.
    private let bus: ChildProcess
    /// Whether `stop` ran.
    private var stopped = false

    /// The X server's CPU seconds so far.
    public var displayServerCPU: Double? { xvfb.cpuSecondsSoFar() }

    /// Compiles the schema from `schemas` (a source tree's data/), writes `preferences` into the
    /// keyfile (GVariant text: `true`, `'1920x1080'`), starts Xvfb with a `screen` of
    /// WIDTHxHEIGHTxDEPTH and, with `probe`, waits until it answers a client (`xdotool
    /// getdisplaygeometry`: a client that came first on a busy machine was refused), then the bus.
    /// `extra` joins `variables`.
    public init(folder: String, schemas source: String, screen: String = "1920x1080x24", bus kind: Bus = .session,
                preferences: [String: String] = [:], extra: [String: String] = [:], probe: Bool = false) throws {
        self.folder = folder
        // The runtime folder is private, as XDG asks; the others readable, for a test that runs
        // the app as another user with this session's schema.
        for name in ["runtime", "config", "config/glib-2.0", "config/glib-2.0/settings", "cache", "data", "schemas", "library"] {
            mkdir(folder + "/" + name, name == "runtime" ? 0o700 : 0o755)
        }
        let compiled = Subprocess.run(["glib-compile-schemas", "--strict", "--targetdir=" + folder + "/schemas", source], scratch: folder)
        guard compiled.status == 0 else { throw Failure(description: "glib-compile-schemas: \(compiled.errors.trimmed.suffix(300))") }
        try HeadlessSession.writeKeyfile(preferences, in: folder + "/config")

        let base = HeadlessSession.inheritedEnvironment()
        // -noreset: by default Xvfb resets itself when its last client leaves, and a client that
        // connects during that reset is refused.
        xvfb = try ChildProcess(["Xvfb", "-displayfd", "1", "-screen", "0", screen, "-nolisten", "tcp", "-noreset"], environment: base,
                                errorPath: folder + "/xvfb.txt", standardOutput: .pipe)
        guard let number = xvfb.readLine(timeout: 30), !number.trimmed.isEmpty else {
            xvfb.stop()
            throw Failure(description: "Xvfb did not start: \((readFile(folder + "/xvfb.txt") ?? "").trimmed.suffix(300))")
        }
        let display = ":" + number.trimmed
        self.display = display
        if probe {
            let deadline = MonotonicClock.seconds() + 30
            while Subprocess.run(["xdotool", "getdisplaygeometry"], environment: base + ["DISPLAY=\(display)"], scratch: folder).status != 0 {
                guard MonotonicClock.seconds() < deadline else {
                    xvfb.stop()
                    throw Failure(description: "Xvfb on \(display) does not answer: \((readFile(folder + "/xvfb.txt") ?? "").trimmed.suffix(300))")
                }
                Sleep.seconds(0.1)
            }
        }
        var arguments = ["dbus-daemon", "--nofork", "--print-address=1"]
        switch kind {
        case .session: arguments.append("--session")
        case .isolated:
            let config = folder + "/session-bus.conf"
            let text = """
                <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
                 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
                <busconfig>
                  <type>session</type>
                  <keep_umask/>
                  <listen>unix:tmpdir=\(folder)/runtime</listen>
                  <auth>EXTERNAL</auth>
                  <policy context="default">
                    <allow send_destination="*" eavesdrop="true"/>
                    <allow eavesdrop="true"/>
                    <allow own="*"/>
                  </policy>
                </busconfig>

                """
            guard HeadlessSession.write(text, to: config) else { throw Failure(description: "cannot write \(config)") }
            arguments.append("--config-file=" + config)
        }
        do {
            self.bus = try ChildProcess(arguments, environment: base + ["DISPLAY=\(display)"] + HeadlessSession.folders(folder),
                                        errorPath: folder + "/dbus.txt", standardOutput: .pipe)
        } catch {
            xvfb.stop()
            throw error
        }
        guard let address = self.bus.readLine(timeout: 30), !address.trimmed.isEmpty else {
            self.bus.stop()
            xvfb.stop()
            throw Failure(description: "dbus-daemon did not start: \((readFile(folder + "/dbus.txt") ?? "").trimmed.suffix(300))")
        }
        busAddress = address.trimmed
        variables = [
            "DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "WAYLAND_DISPLAY": "",
            "PINHOLE_LIBRARY": folder + "/library",
            // No sound server here; pointing libpulse at nothing also keeps it from spawning one.
            "PULSE_SERVER": "unix:\(folder)/runtime/no-pulse",
        ].merging(extra) { $1 }
    }

    /// The XDG folders and settings of the session in `folder`, as NAME=value.
    public static func folders(_ folder: String) -> [String] {
        ["XDG_RUNTIME_DIR=\(folder)/runtime", "XDG_CONFIG_HOME=\(folder)/config", "XDG_CACHE_HOME=\(folder)/cache", "XDG_DATA_HOME=\(folder)/data",
         "GSETTINGS_BACKEND=keyfile", "GSETTINGS_SCHEMA_DIR=\(folder)/schemas"]
    }

    /// `folders` and `variables`, by name.
    public var settings: [String: String] {
        var result = variables
        for entry in HeadlessSession.folders(folder) {
            let name = String(entry.prefix { $0 != "=" })
            result[name] = String(entry.dropFirst(name.count + 1))
        }
        return result
    }

    /// The whole environment of a program run in the session: this process's (less what would
    /// reach another display, bus or settings store), the folders and `variables`.
    public var environment: [String] {
        HeadlessSession.inheritedEnvironment() + HeadlessSession.folders(folder) + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// This process's environment without what the session sets or what would reach another
    /// display, bus or settings store.
    public static func inheritedEnvironment() -> [String] {
        let dropped = ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                       "GSETTINGS_BACKEND", "GSETTINGS_SCHEMA_DIR", "GDK_BACKEND", "GSK_RENDERER", "GTK_A11Y", "NO_AT_BRIDGE", "PULSE_SERVER", "XAUTHORITY"]
        return ChildProcess.currentEnvironment().filter { text in
            let name = String(text.prefix { $0 != "=" })
            return !dropped.contains(name) && !name.hasPrefix("PINHOLE_") && !name.hasPrefix("GST_")
        }
    }

    /// Writes GSettings' keyfile for the app's schema into `configHome` (values in GVariant text:
    /// true, 'video', 3).
    public static func writeKeyfile(_ values: [String: String], in configHome: String) throws {
        for folder in [configHome, configHome + "/glib-2.0", configHome + "/glib-2.0/settings"] { mkdir(folder, 0o755) }
        let lines = ["[io/github/pinhole/Camera]"] + values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let path = configHome + "/glib-2.0/settings/keyfile"
        guard write(lines.joined(separator: "\n") + "\n", to: path) else { throw Failure(description: "cannot write \(path)") }
    }

    /// Writes `text` to `path` through a temporary name renamed over it; false when it could not.
    static func write(_ text: String, to path: String) -> Bool {
        let temporary = path + ".part"
        guard let file = fopen(temporary, "w") else { return false }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        guard fclose(file) == 0, written == bytes.count else { return false }
        return rename(temporary, path) == 0
    }

    /// Stops anything started on the session's behalf (the accessibility bus launcher, its
    /// dbus-daemon and registry, which the bus or a test started: their environment or command
    /// line names this session's folder), then the bus and the display; returns what was stopped
    /// besides those two, and anything that would not stop.
    @discardableResult
    public func stop() -> (stopped: [String], survivors: [String]) {
        guard !stopped else { return ([], []) }
        stopped = true
        let strays = StrayProcesses.stop(marking: folder + "/")
        bus.stop(grace: 5)
        xvfb.stop(grace: 5)
        let late = StrayProcesses.stop(marking: folder + "/")
        return (strays.stopped + late.stopped, late.survivors)
    }

    deinit { stop() }
}
