import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// The viewer with formats other than the camera's JPEG, and with the library changing under it.
extension MoreAppSuites {
@Suite("The camera app's viewer, headless")
struct ViewerTests {
    /// Whether the screenshot's picture (the viewer's, below the header) shows `left` in its left
    /// half and `right` in its right half, along the middle row.
    static func halves(_ shot: PixelBuffer, left: (r: Int, g: Int, b: Int), right: (r: Int, g: Int, b: Int)) -> Bool {
        func near(_ a: (r: Int, g: Int, b: Int), _ b: (r: Int, g: Int, b: Int)) -> Bool { abs(a.r - b.r) < 40 && abs(a.g - b.g) < 40 && abs(a.b - b.b) < 40 }
        return near(shot.mean(x: 280, y: 380), left) && near(shot.mean(x: 680, y: 380), right)
    }

    @Test("HEIF and WebP photos show in the viewer, the WebP turned upright by its EXIF orientation")
    func heifAndWebP() throws {
        let session = try AppSession()
        // Red on the left, blue on the right; the WebP's EXIF says "rotate 180°", so it shows blue on the left.
        let png = session.folder.path("halves.png")
        // PNG24: heif-enc 1.15 misreads palette PNGs (a green band appears).
        let made = try runTool("convert", ["-size", "320x240", "xc:red", "-fill", "blue", "-draw", "rectangle 160,0 319,239", "PNG24:" + png])
        try #require(made.status == 0, "convert: \(made.stderr)")
        let heif = session.folder.path("halves.heic"), webp = session.folder.path("halves.webp")
        try #require(try runTool("heif-enc", ["-q", "90", "-o", heif, png]).status == 0)
        try #require(try runTool("cwebp", ["-q", "90", png, "-o", webp]).status == 0)
        let turned = try runTool("exiftool", ["-overwrite_original", "-Orientation=3", "-n", webp])
        try #require(turned.status == 0, "exiftool: \(turned.stderr)")
        for file in [heif, webp] {
            let imported = try runTool(builtProduct("pinhole"), ["library", "import", file], environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
            try #require(imported.status == 0, "pinhole library import \(file): \(imported.stderr)")
        }
        let order = try AppSuites.GalleryTests.index(session, "SELECT path FROM assets ORDER BY created DESC, id").split(separator: "\n").map(String.init)
        try #require(order.count == 2)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try SharingTests.openViewer(session, items: 2)
        let red = (r: 255, g: 0, b: 0), blue = (r: 0, g: 0, b: 255)
        for (position, path) in order.enumerated() {
            if position > 0 {
                try session.key("Right")
                #expect(try AppSuites.AppStateTests.shows(session, "\(position + 1) of 2"))
            }
            let upright = path.hasSuffix(".webp") ? (blue, red) : (red, blue)
            let shown = try waitFor(seconds: 30) { Self.halves(try session.screenshot(), left: upright.0, right: upright.1) }
            let last = try session.screenshot()
            #expect(shown, "\(path): left \(last.mean(x: 280, y: 380)), right \(last.mean(x: 680, y: 380))")
        }
    }

    /// Where the first run of the test pattern's yellow bar starts along row `y`, or nil.
    static func firstYellow(_ shot: PixelBuffer, y: Int) -> Int? {
        stride(from: 5, to: 955, by: 1).first { x in
            let p = shot.bgraPixel(x: x, y: y)
            return p.r > 150 && p.g > 150 && p.b < 60 as UInt8
        }
    }

    @Test("with the mouse: a double-click shows the photo at 100 % (decoded whole only then) and another fits it again; dragging the zoomed photo pans it")
    func mouseZoomAndPan() throws {
        let session = try AppSession(extra: ["PINHOLE_BENCH_REPORT": "1"])
        try AppSuites.GalleryTests.snap(session)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try SharingTests.openViewer(session, items: 1)
        var fitted = 0
        #expect(try waitFor(seconds: 30) { fitted = AppSuites.GalleryTests.yellowWidth(try session.screenshot(), y: 300); return fitted > 80 }, "no yellow bar: \(fitted)")
        // 3840 pixels wide at 100 %: the yellow bar (an eighth of it) is far wider than fitted.
        // The photo's point clicked stays under the pointer: near the left edge, the yellow bar
        // (from 480 to 960 px of the photo) is then whole on screen.
        let photoLeft = try #require(Self.firstYellow(try session.screenshot(), y: 300)) - fitted
        try session.click(x: 40, y: 250, count: 2)
        var zoomed = 0
        #expect(try waitFor(seconds: 30) { zoomed = AppSuites.GalleryTests.yellowWidth(try session.screenshot(), y: 300); return zoomed > fitted * 3 }, "fitted \(fitted), zoomed \(zoomed)")
        // Fitted, the photo was decoded for the window; at 100 % it is decoded whole (the app's
        // report lines say each decode's longest side).
        let decodes = { (session.app?.errors ?? "").split(separator: "\n").filter { $0.hasPrefix("pinhole-bench: viewer-decoded ") }.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } } }
        #expect(waitFor(seconds: 30) { decodes().count == 2 }, "decodes: \(decodes())")
        #expect(decodes().first.map { $0 <= 1280 } == true && decodes().last == 3840, "decodes: \(decodes())")
        let before = try #require(Self.firstYellow(try session.screenshot(), y: 300))
        let underClick = Double(40 - photoLeft) * 3840 / Double(fitted * 8)
        #expect(abs(Double(before) - (40 + 480 - underClick)) <= 12, "clicked at x 40 (the photo's \(underClick) px), the yellow bar starts at \(before)")
        // Drag 300 px to the left: the picture follows the pointer.
        let window = try #require(session.windowID())
        var steps = ["mousemove", "--window", window, "700", "400", "mousedown", "1", "sleep", "0.2"]
        for x in stride(from: 650, through: 400, by: -50) { steps += ["mousemove", "--window", window, String(x), "400", "sleep", "0.05"] }
        steps += ["sleep", "0.3", "mouseup", "1"]
        let dragged = try runTool("xdotool", steps, environment: ["DISPLAY": session.display])
        #expect(dragged.status == 0, "\(dragged.stderr)")
        var after = before
        #expect(try waitFor(seconds: 30) { after = Self.firstYellow(try session.screenshot(), y: 300) ?? after; return abs((before - after) - 300) <= 12 },
                "the yellow bar started at \(before), after the drag at \(after)")
        usleep(500_000)
        try session.click(x: 480, y: 380, count: 2)
        #expect(try waitFor(seconds: 30) { abs(AppSuites.GalleryTests.yellowWidth(try session.screenshot(), y: 300) - fitted) <= 2 }, "not fitted again")
    }

    @Test("the viewer stays on its item when another program adds one before it, and moves on when its file is removed")
    func followsTheLibrary() throws {
        let session = try AppSession()
        for _ in 0..<2 { try AppSuites.GalleryTests.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try SharingTests.openViewer(session, items: 2)
        let shown = try #require(try PickerTests.newestNames(session).first)
        try AppSuites.GalleryTests.snap(session)
        #expect(try AppSuites.AppStateTests.shows(session, "2 of 3"), "the viewer did not stay on its item")
        #expect(unlink(session.photos + "/" + shown) == 0)
        #expect(try AppSuites.AppStateTests.shows(session, "2 of 2"), "the viewer did not move on from the removed item")
        // The last one removed too: back to the gallery.
        for file in session.files(in: session.photos) { unlink(file) }
        #expect(try AppSuites.AppStateTests.shows(session, "No Photos or Videos Yet"))
    }
}
}
