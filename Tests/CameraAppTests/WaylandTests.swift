import Foundation
import Glibc
import Media
import Testing
import TestSupport

extension AppSuites {
/// The app on GTK's Wayland backend: a smoke test on headless Weston (pixman renderer), checked
/// by Weston's own screenshot (its headless backend takes no input); and Open With on headless
/// mutter, whose remote desktop service takes keys and which exports windows for portals.
@Suite("The camera app on Wayland")
struct WaylandTests {
    @Test("on headless Weston the window renders the live preview")
    func westonRenders() throws {
        let session = try AppSession()
        let runtime = session.folder.path("runtime")
        let weston = try BackgroundProcess(["/usr/bin/weston", "--backend=headless-backend.so", "--socket=wayland-pinhole", "--width=1280", "--height=800",
                                            "--use-pixman", "--debug", "--idle-time=0"], environment: ["XDG_RUNTIME_DIR": runtime])
        defer { weston.stop() }
        #expect(waitFor(seconds: 20) { access(runtime + "/wayland-pinhole", F_OK) == 0 }, "weston did not start: \(weston.errors)")
        var environment = session.environment
        environment["WAYLAND_DISPLAY"] = "wayland-pinhole"
        environment["GDK_BACKEND"] = "wayland"
        environment["DISPLAY"] = ""
        let app = try BackgroundProcess([builtProduct("pinhole-camera")], environment: environment)
        defer { app.stop() }
        let shots = session.folder.path("shots")
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        // Every colour bar of the test camera somewhere along a row through the bars.
        let rendered = try waitFor(seconds: 40) {
            _ = try? FileManager.default.contentsOfDirectory(atPath: shots).map { unlink(shots + "/" + $0) }
            let taken = try spawnIn(shots, ["/usr/bin/weston-screenshooter"], environment: ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-pinhole"])
            guard taken == 0, let file = try FileManager.default.contentsOfDirectory(atPath: shots).first(where: { $0.hasSuffix(".png") }) else { return false }
            let shot = try PNGCodec.decode(try session.folder.read(URL(fileURLWithPath: shots + "/" + file)))
            return (300..<460).contains { y in
                let row = stride(from: 0, to: shot.width, by: 8).map { shot.mean(x: $0, y: y, side: 2) }
                return AppSuites.AppWindowTests.bars.allSatisfy { bar in row.contains { abs($0.r - bar.0) <= 24 && abs($0.g - bar.1) <= 24 && abs($0.b - bar.2) <= 24 } }
            }
        }
        #expect(rendered, "the preview never appeared on Weston; the app said: \(app.errors.suffix(600))")
    }

    @Test("Open With on GNOME's compositor (headless mutter): the portal is given the window as its exported Wayland handle")
    func openWithNamesTheWaylandWindow() throws {
        let session = try AppSession()
        try GalleryTests.snap(session)
        let photo = try #require(session.files(in: session.photos).first)
        let runtime = session.folder.path("runtime")
        let bus = ["DBUS_SESSION_BUS_ADDRESS": session.busAddress]
        let portal = try BackgroundProcess(["/usr/bin/python3", AppSession.repository + "/Tests/Fixtures/fake-portal.py"], environment: bus)
        defer { portal.stop() }
        try #require(portal.waitForOutput(containing: "ready"), "the stand-in portal did not start: \(portal.errors)")
        // Weston has no xdg-foreign (no handle to export); mutter, GNOME's compositor, has.
        let mutter = try BackgroundProcess(["/usr/bin/mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x800",
                                            "--wayland-display", "wayland-mutter"], environment: bus.merging(["XDG_RUNTIME_DIR": runtime]) { $1 })
        defer { mutter.stop() }
        try #require(waitFor(seconds: patience) { access(runtime + "/wayland-mutter", F_OK) == 0 }, "mutter did not start: \(mutter.errors.suffix(600))")
        var environment = session.environment
        environment["WAYLAND_DISPLAY"] = "wayland-mutter"
        environment["GDK_BACKEND"] = "wayland"
        environment["DISPLAY"] = ""
        let app = try BackgroundProcess([builtProduct("pinhole-camera")], environment: environment)
        defer { app.stop() }
        let registered = waitFor(seconds: patience) {
            (try? runTool("gdbus", ["call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                    "--method", "org.freedesktop.DBus.NameHasOwner", "io.github.pinhole.Camera"], environment: bus))?.stdout.contains("true") == true
        }
        try #require(registered, "the app did not start on mutter: \(app.errors.suffix(600))")
        // The gallery (its grid takes the focus), then keys through mutter's remote desktop
        // service: Ctrl+A selects the photo, and Open With… acts on the selection.
        try session.action("gallery")
        let fifo = session.folder.path("keys")
        try #require(mkfifo(fifo, 0o600) == 0)
        let keyboard = try BackgroundProcess(["/usr/bin/python3", AppSession.repository + "/Tests/Fixtures/mutter-keys.py", fifo], environment: bus)
        defer { keyboard.stop() }
        try #require(keyboard.waitForOutput(containing: "ready"), "mutter's remote desktop did not start: \(keyboard.errors)")
        let keys = open(fifo, O_WRONLY)
        defer { close(keys) }
        func press(_ line: String) { _ = (line + "\n").withCString { write(keys, $0, strlen($0)) } }
        // The gallery reads the library after it is shown, and mutter focuses the window once
        // it is mapped (later on a busy machine): select and ask until the portal hears.
        let asked = try waitFor(seconds: patience) {
            press("ffe3+61")
            usleep(300_000)
            try session.action("open-with")
            return portal.waitForOutput(containing: "OpenFile ", seconds: 2)
        }
        #expect(asked, "the portal was not called: \(portal.output) \(portal.errors); keys: \(keyboard.output.suffix(200)) \(keyboard.errors.suffix(300)); the app said: \(app.errors.suffix(400))")
        let call = portal.output.split(separator: "\n").first { $0.hasPrefix("OpenFile ") }.map(String.init) ?? ""
        let parent = call.split(separator: " ").first { $0.hasPrefix("parent=") }.map { String($0.dropFirst("parent=".count)) } ?? ""
        #expect(parent.hasPrefix("wayland:") && parent.count > "wayland:".count, "\(call)")
        #expect(call.contains("ask=True target=\(photo) mode=r"), "\(call)")
    }

    @Test("minimised on GNOME's compositor (headless mutter, Super+H), the camera is let go; restored (Alt+Tab), it runs again")
    func minimizedOnMutter() throws {
        let session = try AppSession()
        let runtime = session.folder.path("runtime")
        let bus = ["DBUS_SESSION_BUS_ADDRESS": session.busAddress]
        let mutter = try BackgroundProcess(["/usr/bin/mutter", "--headless", "--wayland", "--no-x11", "--virtual-monitor", "1280x800",
                                            "--wayland-display", "wayland-mutter"], environment: bus.merging(["XDG_RUNTIME_DIR": runtime]) { $1 })
        defer { mutter.stop() }
        try #require(waitFor(seconds: patience) { access(runtime + "/wayland-mutter", F_OK) == 0 }, "mutter did not start: \(mutter.errors.suffix(600))")
        var environment = session.environment
        environment["WAYLAND_DISPLAY"] = "wayland-mutter"
        environment["GDK_BACKEND"] = "wayland"
        environment["DISPLAY"] = ""
        let app = try BackgroundProcess([builtProduct("pinhole-camera")], environment: environment)
        defer { app.stop() }
        try #require(waitFor(seconds: patience) { session.openControl() }, "the app's test channel did not open: \(app.errors.suffix(600))")
        #expect(waitFor(seconds: patience) { GalleryTests.cameraRunning(session) == true }, "the camera did not start: \(app.errors.suffix(600))")
        let fifo = session.folder.path("keys")
        try #require(mkfifo(fifo, 0o600) == 0)
        let keyboard = try BackgroundProcess(["/usr/bin/python3", AppSession.repository + "/Tests/Fixtures/mutter-keys.py", fifo], environment: bus)
        defer { keyboard.stop() }
        try #require(keyboard.waitForOutput(containing: "ready"), "mutter's remote desktop did not start: \(keyboard.errors)")
        let keys = open(fifo, O_WRONLY)
        defer { close(keys) }
        func press(_ line: String) { _ = (line + "\n").withCString { write(keys, $0, strlen($0)) } }
        // Super+H minimises the focused window (mutter focuses it once mapped, later on a busy
        // machine: pressed again until the camera goes).
        let released = waitFor(seconds: patience) {
            press("ffeb+68")
            return waitFor(seconds: 3) { GalleryTests.cameraRunning(session) == false }
        }
        #expect(released, "minimised, the camera stayed on; keys: \(keyboard.output.suffix(200)); the app said: \(app.errors.suffix(400))")
        // Alt+Tab brings it back.
        let resumed = waitFor(seconds: patience) {
            press("ffe9+ff09")
            return waitFor(seconds: 3) { GalleryTests.cameraRunning(session) == true }
        }
        #expect(resumed, "restored, the camera did not start again: \(app.errors.suffix(400))")
        #expect(MoreAppSuites.InFlightTests.criticals(app.errors).isEmpty, "\(MoreAppSuites.InFlightTests.criticals(app.errors))")
    }

    /// Runs a program in `folder` (weston-screenshooter writes into its working directory).
    func spawnIn(_ folder: String, _ argv: [String], environment: [String: String]) throws -> Int32 {
        try runTool("/bin/bash", ["-c", "cd \"$0\" && exec \"$@\"", folder] + argv, environment: environment).status
    }
}
}
