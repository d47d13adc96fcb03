import Foundation
import Glibc
import Media
import PinholeTestSupport
import Testing
import TestSupport

/// The suites that run the app, in two groups of about equal length (some six minutes each on
/// an idle 2-core machine) that run beside each other, each one test at a time: two apps at once.
/// One app test keeps about 0.6 of a core busy (513 s of wall time, 297 s of CPU, for all of them
/// one after another), so two at once fill the machine without crowding it, and the test command
/// ends minutes sooner. Each test runs its own app, display and buses, so two meet nothing of each
/// other's; what runs its own shared daemons (Broadway's port, Weston and mutter on Wayland, the
/// portals, PipeWire, a sound server) stays in this group, one at a time.
@Suite("The camera app, headless", .serialized)
struct AppSuites {}

/// The second group of app suites (see `AppSuites`): the monkey, sharing, preferences, import,
/// photos in flight, the viewer, the Trash, marks and the picker.
@Suite("The camera app, headless (beside the first group)", .serialized)
struct MoreAppSuites {}

/// The camera app running as a person meets it, headless: its own Xvfb display and D-Bus session
/// bus, a library in a temporary folder, the cairo renderer, and a FIFO through which the test
/// drives the app's test cameras (unplug, busy, fatal error). Everything stops when the value dies.
final class AppSession: @unchecked Sendable {
    let folder: TemporaryDirectory
    /// The display and session bus (`HeadlessSession`, shared with the bench), the bus starting no service by itself.
    private let headless: HeadlessSession
    /// The X display, ":N".
    var display: String { headless.display }
    /// The session bus address.
    var busAddress: String { headless.busAddress }
    let control: String
    private var accessibilityBus: BackgroundProcess?
    private var registry: BackgroundProcess?
    private(set) var app: BackgroundProcess?
    private var controlWriter: Int32 = -1
    /// The environment the app runs with (tests add to it before `launch`).
    var environment: [String: String]

    /// The library's photos and videos folders.
    var photos: String { folder.path("library/Photos") }
    var videos: String { folder.path("library/Videos") }

    /// `preferences` are GSettings values written into the session's keyfile before the app
    /// starts ("ask-before-saving": "true"); the schema is compiled from the source tree's data/.
    init(testCameras: Bool = true, preferences: [String: String] = [:], extra: [String: String] = [:]) throws {
        folder = try TemporaryDirectory()
        // The probe: clients connect only once the server answers one (an accessibility registry
        // that came first on a busy machine gave up with "Cannot open default display").
        headless = try HeadlessSession(folder: folder.url.path, schemas: AppSession.repository + "/data", screen: "1280x800x24", bus: .isolated,
                                       preferences: preferences, probe: true)
        let display = headless.display, busAddress = headless.busAddress
        // The accessibility bus and its registry, up before the app starts: left to start on
        // demand, the app sometimes registered before the registry could hear it, and stayed
        // invisible to AT-SPI for its whole life.
        let accessibilityEnvironment = ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_RUNTIME_DIR": folder.path("runtime")]
        accessibilityBus = try BackgroundProcess(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"], environment: accessibilityEnvironment)
        var a11yAddress = ""
        _ = waitFor(seconds: 30) {
            let answer = try? runTool("gdbus", ["call", "--session", "--dest", "org.a11y.Bus", "--object-path", "/org/a11y/bus", "--method", "org.a11y.Bus.GetAddress"],
                                      environment: accessibilityEnvironment)
            a11yAddress = answer?.stdout.split(separator: "'").dropFirst().first.map(String.init) ?? ""
            return !a11yAddress.isEmpty
        }
        try #require(!a11yAddress.isEmpty, "the accessibility bus did not start: \(accessibilityBus?.errors ?? "")")
        var registryProcess = try BackgroundProcess(["/usr/libexec/at-spi2-registryd"], environment: accessibilityEnvironment)
        let registered = try waitFor(seconds: 30) {
            // A registry that exited (it gives up at once when the display refuses it) is started again.
            if registryProcess.hasExited {
                registryProcess = try BackgroundProcess(["/usr/libexec/at-spi2-registryd"], environment: accessibilityEnvironment)
            }
            let answer = try? runTool("gdbus", ["call", "--address", a11yAddress, "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                                "--method", "org.freedesktop.DBus.NameHasOwner", "org.a11y.atspi.Registry"])
            return answer?.stdout.contains("true") == true
        }
        registry = registryProcess
        try #require(registered, "the accessibility registry did not start: \(registryProcess.errors)")
        control = folder.path("control")
        try #require(mkfifo(control, 0o600) == 0)
        environment = headless.settings
        environment["PINHOLE_TEST_CONTROL"] = control
        if testCameras { environment["PINHOLE_TEST_CAMERA"] = "1" }
        environment.merge(extra) { $1 }
    }

    deinit {
        if controlWriter >= 0 { close(controlWriter) }
        app?.stop()
        registry?.stop()
        accessibilityBus?.stop()
        // The launcher's own D-Bus daemon outlives it: the session stops every process whose
        // environment or command line names its folder, then the bus and the display.
        headless.stop()
    }

    /// The source tree (the tests run from it; scripts/vm sets PINHOLE_REPO).
    static var repository: String { ProcessInfo.processInfo.environment["PINHOLE_REPO"] ?? FileManager.default.currentDirectoryPath }

    /// What GSettings' keyfile holds now (the app writes it as settings change).
    var keyfile: String { (try? String(contentsOfFile: folder.path("config/glib-2.0/settings/keyfile"), encoding: .utf8)) ?? "" }

    /// Stops the app the way a person does (Ctrl+Q) and waits for it to exit.
    func quit() throws -> Int32? {
        try key("ctrl+q")
        let status = app?.waitForExit(seconds: 30)
        app = nil
        return status
    }

    /// Forgets an app process that has exited (what it wrote already read), so `launch` can
    /// start another in the same session.
    func forgetApp() { app = nil }

    /// The window's title as xdotool looks for it (a regular expression).
    private(set) var title = "^Camera$"

    /// Starts the app and waits for its window (titled `title`: "Camera" in English); `under` is
    /// a program that starts it (a profiler and its options), which `app` is then.
    func launch(arguments: [String] = [], title: String = "^Camera$", under wrapper: [String] = []) throws {
        self.title = title
        app = try BackgroundProcess(wrapper + [builtProduct("pinhole-camera")] + arguments, environment: environment)
        try #require(waitFor(seconds: 30) { self.windowID() != nil }, "no window appeared: \(app?.errors ?? "")")
        // Open the control FIFO for writing once the app reads it (Capture starts its reader
        // when the app first looks for cameras, which it does while the window opens).
        try #require(waitFor(seconds: 30) { openControl() }, "the app's test channel did not open: \(app?.errors ?? "")")
    }

    /// Opens the control FIFO for writing, for an app started without `launch` (on Wayland):
    /// true once its reader has it open and the FIFO is ready for `send`.
    func openControl() -> Bool {
        if controlWriter >= 0 { close(controlWriter) }
        controlWriter = open(control, O_WRONLY | O_NONBLOCK)
        return controlWriter >= 0
    }

    /// Compiles the source tree's translations into a temporary folder (scripts/translations).
    static func buildTranslations() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinhole-locale-\(getpid())").path
        let result = try runTool("bash", [repository + "/scripts/translations", "build", folder])
        try #require(result.status == 0, "translations: \(result.stderr)")
        return folder
    }

    /// The app's window (or its window titled `named`, a regular expression), as xdotool finds it by title.
    func windowID(named: String? = nil) -> String? {
        let result = try? runTool("xdotool", ["search", "--onlyvisible", "--name", named ?? title], environment: ["DISPLAY": display])
        return result?.stdout.split(separator: "\n").first.map(String.init)
    }

    /// Presses a key in the window (or in the window titled `window`; xdotool, real X input).
    func key(_ name: String, window named: String? = nil) throws {
        let window = try #require(windowID(named: named), "no window titled \(named ?? title)")
        // Xvfb runs no window manager: nothing gives the focus back when a dialog closes, and
        // windowactivate (a request to the window manager) does nothing, so set it directly.
        _ = try runTool("xdotool", ["windowfocus", "--sync", window], environment: ["DISPLAY": display])
        // To the focused window, not `--window`: a key that closes its window (Enter or Escape in
        // a picker) made xdotool fail with BadWindow between press and release, and the key, left
        // down, repeated into the next window.
        let result = try runTool("xdotool", ["key", name], environment: ["DISPLAY": display])
        #expect(result.status == 0, "\(result.stderr)")
        usleep(500_000)  // xdotool input closer than ~250 ms to the previous one is lost
    }

    /// Types `text` into the window (or the window titled `window`, a regular expression), as a keyboard does.
    func type(_ text: String, window named: String? = nil) throws {
        let window = try #require(windowID(named: named), "no window titled \(named ?? title)")
        _ = try runTool("xdotool", ["windowfocus", "--sync", window], environment: ["DISPLAY": display])
        let result = try runTool("xdotool", ["type", "--delay", "30", text], environment: ["DISPLAY": display])
        #expect(result.status == 0, "\(result.stderr)")
        usleep(500_000)
    }

    /// Clicks at window coordinates (`count` 2: a double-click).
    func click(x: Int, y: Int, count: Int = 1) throws {
        let window = try #require(windowID())
        let result = try runTool("xdotool", ["mousemove", "--window", window, String(x), String(y), "click", "--repeat", String(count), "--delay", "80", "1"],
                                 environment: ["DISPLAY": display])
        #expect(result.status == 0, "\(result.stderr)")
        usleep(500_000)
    }

    /// Drives the app's test cameras ("front unplugged on", "reset", …).
    func send(_ command: String) {
        let line = command + "\n"
        _ = line.withCString { write(controlWriter, $0, strlen($0)) }
    }

    /// Runs a GAction over D-Bus, as `gapplication action` does.
    func action(_ name: String, _ parameter: String? = nil) throws {
        var arguments = ["action", "io.github.pinhole.Camera", name]
        if let parameter { arguments.append("'\(parameter)'") }
        let result = try runTool("gapplication", arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress, "DISPLAY": display])
        #expect(result.status == 0, "gapplication \(arguments): \(result.stderr)")
    }

    /// Runs a GAction over D-Bus with a parameter in GVariant text, given as it is
    /// (`"['/a.jpg', '/b.jpg']"` for a list of strings).
    func action(_ name: String, variant: String) throws {
        let arguments = ["action", "io.github.pinhole.Camera", name, variant]
        let result = try runTool("gapplication", arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress, "DISPLAY": display])
        #expect(result.status == 0, "gapplication \(arguments): \(result.stderr)")
    }

    /// Runs `gsettings` on the app's settings (its keyfile backend and schema), as a person in a
    /// terminal would change a preference while the app runs.
    func gsettings(_ arguments: [String]) throws {
        let result = try runTool("gsettings", arguments, environment: environment)
        #expect(result.status == 0, "gsettings \(arguments): \(result.stderr)")
    }

    /// What D-Bus says of the app's action `name` (org.gtk.Actions.Describe, as a menu or another
    /// program sees it): whether it is enabled and its state in GVariant text ("'on'", "true"),
    /// "" for an action without one; nil if the app did not answer.
    func actionState(_ name: String) throws -> (enabled: Bool, state: String)? {
        let result = try runTool("gdbus", ["call", "--session", "--dest", "io.github.pinhole.Camera", "--object-path", "/io/github/pinhole/Camera",
                                           "--method", "org.gtk.Actions.Describe", name],
                                 environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
        // "((true, 's', [<'on'>]),)" or "((true, '', []),)"
        let text = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, text.hasPrefix("((") else { return nil }
        let enabled = text.hasPrefix("((true")
        guard let open = text.range(of: "[<"), let close = text.range(of: ">]", options: .backwards) else { return (enabled, "") }
        return (enabled, String(text[open.upperBound..<close.lowerBound]))
    }

    /// The lines the app has said in toasts so far (logged as "pinhole-camera: …" on standard error).
    var toasts: [String] {
        (app?.errors ?? "").split(separator: "\n").filter { $0.hasPrefix("pinhole-camera: ") }.map { String($0.dropFirst("pinhole-camera: ".count)) }
    }

    /// A screenshot of the whole screen (ImageMagick's `import`), decoded to BGRA.
    func screenshot() throws -> PixelBuffer {
        let path = folder.path("shot-\(UUID().uuidString).png")
        let result = try runTool("import", ["-window", "root", path], environment: ["DISPLAY": display])
        try #require(result.status == 0, "import: \(result.stderr)")
        defer { unlink(path) }
        return try PNGCodec.decode(try folder.read(URL(fileURLWithPath: path)))
    }

    /// Saves a screenshot for people to look at (the README's picture, failures).
    func saveScreenshot(to path: String) throws {
        let result = try runTool("import", ["-window", "root", "-crop", "960x720+0+0", "+repage", path], environment: ["DISPLAY": display])
        #expect(result.status == 0, "import: \(result.stderr)")
    }

    /// Files in the library's photos (or videos) folder.
    func files(in folderPath: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []).filter { !$0.hasPrefix(".") }.sorted().map { folderPath + "/" + $0 }
    }

    /// Runs a Python script against the app's accessibility tree (pyatspi, the system Python),
    /// with helpers `app()`, `find(name, role)`, `press(name)` and `names()`, each giving up after 30 s.
    func accessibility(_ script: String) throws -> ToolResult {
        try runTool("/usr/bin/python3", ["-c", AppSession.atspiPrelude + script],
                    environment: ["DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": busAddress, "XDG_RUNTIME_DIR": folder.path("runtime")])
    }

    static let atspiPrelude = """
    import sys, time, pyatspi
    def app(patience=None):
        seen = []
        until = time.time() + (30 if patience is None else patience)
        while time.time() < until:
            try:
                seen = [a.name for a in pyatspi.Registry.getDesktop(0) if a is not None]
                for a in pyatspi.Registry.getDesktop(0):
                    if a is not None and a.name == 'pinhole-camera':
                        return a
            except Exception as error:
                seen = [str(error)]
            time.sleep(0.2)
        sys.exit('the app is not on the accessibility bus (it has: %s)' % seen)
    def walk(node):
        # The tree changes while it is read (labels shown and hidden): skip what vanished.
        try:
            children = [node.getChildAtIndex(i) for i in range(node.childCount)]
        except Exception:
            return
        for child in children:
            if child is None:
                continue
            yield child
            yield from walk(child)
    def matches(node, name, role):
        try:
            return node.name == name and (role is None or node.getRole() == role)
        except Exception:
            return False
    def find(name, role=None):
        # Each search has its own patience: walking the tree is slow on a busy machine.
        until = time.time() + 30
        while time.time() < until:
            for node in walk(app()):
                if matches(node, name, role):
                    return node
            time.sleep(0.2)
        sys.exit('no accessible named %r%s; there are: %s' % (name, '' if role is None else ' with role ' + str(role), ', '.join(names())))
    def press(name):
        # The first object of that name that has an action (a menu button's inner button).
        until = time.time() + 30
        while time.time() < until:
            for node in walk(app()):
                if matches(node, name, None):
                    try:
                        action = node.queryAction()
                        if action.nActions > 0:
                            action.doAction(0)
                            return
                    except Exception:
                        pass
            time.sleep(0.2)
        sys.exit('nothing named %r can be pressed; there are: %s' % (name, ', '.join(names())))
    def names():
        result = []
        for node in walk(app(patience=5)):
            try:
                if node.name:
                    result.append('%s (%s)' % (node.name, node.getRoleName()))
            except Exception:
                pass
        return result

    """
}

/// Waits until `condition` holds (true) or `seconds` pass (false), polling every 100 ms.
func waitFor(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(100_000)
    }
    return try condition()
}

extension PixelBuffer {
    /// The mean colour of a square of `side` pixels centred at (x, y).
    func mean(x: Int, y: Int, side: Int = 8) -> (r: Int, g: Int, b: Int) {
        var r = 0, g = 0, b = 0, n = 0
        for yy in max(0, y - side / 2)..<min(height, y + side / 2) {
            for xx in max(0, x - side / 2)..<min(width, x + side / 2) {
                let p = bgraPixel(x: xx, y: yy)
                r += Int(p.r); g += Int(p.g); b += Int(p.b); n += 1
            }
        }
        return n == 0 ? (0, 0, 0) : (r / n, g / n, b / n)
    }
}
