import Foundation
import Glibc
import Media
import Testing
import TestSupport

extension AppSuites {
/// One smoke test on Wayland: headless Weston (pixman renderer), the app on GTK's Wayland backend,
/// and Weston's own screenshot. Weston's headless backend takes no input, so only the picture is checked.
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

    /// Runs a program in `folder` (weston-screenshooter writes into its working directory).
    func spawnIn(_ folder: String, _ argv: [String], environment: [String: String]) throws -> Int32 {
        try runTool("/bin/bash", ["-c", "cd \"$0\" && exec \"$@\"", folder] + argv, environment: environment).status
    }
}
}
