import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// The gallery page: the library's items as thumbnails, live as other programs add and remove
/// files, the camera let go while it is shown, an honest empty state.
extension AppSuites {
@Suite("The camera app's gallery, headless")
struct GalleryTests {
    /// Takes a photo into the session's library with the CLI, as a script in a terminal would.
    static func snap(_ session: AppSession) throws {
        let result = try runTool(builtProduct("pinhole"), ["snap", "--device", "test"], environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(result.status == 0, "pinhole snap: \(result.stderr)")
    }

    /// How many gallery cells the accessibility tree shows (named "Photo, <date>" or "Video, <date>").
    static func cells(_ session: AppSession) throws -> Int {
        // Labels aside: the viewer's title reads the same way.
        let result = try session.accessibility("print(len([n for n in walk(app()) if (n.name or '').startswith(('Photo, ', 'Video, ')) and n.getRole() != pyatspi.ROLE_LABEL]))")
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Whether the app's camera is streaming, as it reports through the test channel.
    static func cameraRunning(_ session: AppSession) -> Bool? {
        let path = session.folder.path("report-\(UInt32.random(in: 0...UInt32.max))")
        session.send("report " + path)
        guard waitFor(seconds: 30, { FileManager.default.fileExists(atPath: path) }) else { return nil }
        return (try? String(contentsOfFile: path, encoding: .utf8))?.contains("camera-running=1")
    }

    @Test("the gallery shows one cell per item with the item's thumbnail, follows `pinhole snap` and `rm` from outside, and lets the camera go while shown; a script's take-photo brings it back and takes the photo")
    func liveGallery() throws {
        let session = try AppSession()
        for _ in 0..<3 { try Self.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        #expect(Self.cameraRunning(session) == true)
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try Self.cells(session) == 3 }, "cells: \((try? Self.cells(session)) ?? -1)")
        #expect(waitFor(seconds: 30) { Self.cameraRunning(session) == false }, "the camera still runs behind the gallery")
        // The first cell (top left, under the header) shows the test pattern's bars: green and
        // magenta somewhere along a row through them.
        let thumbnail = try waitFor(seconds: 30) {
            let shot = try session.screenshot()
            let row = (0..<36).map { shot.mean(x: 12 + $0 * 5, y: 100, side: 2) }
            return row.contains { $0.g > 150 && $0.r < 60 && $0.b < 60 } && row.contains { $0.r > 150 && $0.b > 150 && $0.g < 60 }
        }
        #expect(thumbnail, "the first cell does not show the photo's thumbnail")
        if let target = ProcessInfo.processInfo.environment["PINHOLE_SCREENSHOT_GALLERY"] { try session.saveScreenshot(to: target) }
        // Another program adds a photo, and one is removed with rm: the gallery follows.
        try Self.snap(session)
        #expect(try waitFor(seconds: 30) { try Self.cells(session) == 4 }, "after pinhole snap: \((try? Self.cells(session)) ?? -1)")
        let oldest = try #require(session.files(in: session.photos).sorted().first)
        #expect(unlink(oldest) == 0)
        #expect(try waitFor(seconds: 30) { try Self.cells(session) == 3 }, "after rm: \((try? Self.cells(session)) ?? -1)")
        // Back to the camera: the preview returns.
        try session.key("alt+Left")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), session.describePreview())
        #expect(Self.cameraRunning(session) == true)
        // A script's take-photo while the gallery has let the camera go: the camera page comes
        // back and the photo is taken once its picture runs.
        try session.key("ctrl+g")
        #expect(waitFor(seconds: 30) { Self.cameraRunning(session) == false }, "the camera still runs behind the gallery")
        let before = session.files(in: session.photos).count
        try session.action("take-photo")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == before + 1 }, "no photo from take-photo over D-Bus")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), session.describePreview())
    }

    /// The width of the first run of the test pattern's yellow bar along row `y` of a screenshot.
    static func yellowWidth(_ shot: PixelBuffer, y: Int) -> Int {
        barWidth(shot, y: y) { $0.r > 150 && $0.g > 150 && $0.b < 60 }
    }

    /// The width of the first run of the test pattern's green bar along row `y` (the bar left of
    /// the middle, whole on screen while the photo grows about the middle).
    static func greenWidth(_ shot: PixelBuffer, y: Int) -> Int {
        barWidth(shot, y: y) { $0.r < 60 && $0.g > 150 && $0.b < 60 }
    }

    /// The width of the first run along row `y` (x from 5 to 955) of pixels that `isBar` takes.
    static func barWidth(_ shot: PixelBuffer, y: Int, _ isBar: ((r: UInt8, g: UInt8, b: UInt8)) -> Bool) -> Int {
        let xs = stride(from: 5, to: 955, by: 1).filter { x in
            let p = shot.bgraPixel(x: x, y: y)
            return isBar((p.r, p.g, p.b))
        }
        guard let first = xs.first else { return 0 }
        var end = first
        while xs.contains(end + 1) { end += 1 }
        return end - first + 1
    }

    @Test("the viewer: a video plays in place with its length on the gallery's badge; a photo fits, grows with Ctrl+plus and fits again with Ctrl+0; arrow keys step through all; Escape goes back")
    func viewer() throws {
        let session = try AppSession()
        for _ in 0..<2 { try Self.snap(session) }
        let recorded = try runTool(builtProduct("pinhole"), ["record", "--device", "test", "--size", "640x480", "--duration", "10", "--no-audio"], environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(recorded.status == 0, "pinhole record: \(recorded.stderr)")
        // GStreamer builds its plugin registry on first use, which takes seconds on a busy machine:
        // build it before the app starts (as earlier use would have on a desktop), so the 10-s
        // video is still playing when the test looks.
        let registry = try runTool("gst-inspect-1.0", ["playbin"], environment: session.environment)
        try #require(registry.status == 0, "gst-inspect-1.0: \(registry.stderr)")
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try Self.cells(session) == 3 })
        // The video carries its length.
        #expect(try AppStateTests.shows(session, "0:10"))
        // The gallery's order is the index's (newest first); photos and the video taken within
        // the same seconds may come in either order, so find where the video is.
        let order = try Self.index(session, "SELECT media_type FROM assets ORDER BY created DESC, id").split(separator: "\n").map(String.init)
        let video = try #require(order.firstIndex(of: "video"), "\(order)")
        let photo = try #require(order.indices.first { order[$0] == "photo" }, "\(order)")
        try session.click(x: 100, y: 130, count: 2)
        #expect(try AppStateTests.shows(session, "1 of 3"))
        /// Steps with the arrow keys from item `from` to item `to` (0-based), checking each step.
        func step(from: Int, to: Int) throws {
            var at = from
            while at != to {
                try session.key(to > at ? "Right" : "Left")
                at += to > at ? 1 : -1
                #expect(try AppStateTests.shows(session, "\(at + 1) of 3"))
            }
        }
        try step(from: 0, to: video)
        // Playing: the moving square's band changes from a first screenshot (a busy machine's
        // decoder drops frames, but the picture moves on).
        let first = try session.screenshot()
        let playing = try waitFor(seconds: 30) {
            let later = try session.screenshot()
            // Rows through the square's band, wherever the 4:3 picture sits in the page.
            return stride(from: 520, through: 680, by: 10).contains { y in
                (0..<60).contains { i in
                    let a = first.mean(x: 40 + i * 15, y: y, side: 4), b = later.mean(x: 40 + i * 15, y: y, side: 4)
                    return abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b) > 60
                }
            }
        }
        #expect(playing, "the video does not play")
        try step(from: video, to: photo)
        var fitted = 0
        #expect(try waitFor(seconds: 30) { fitted = Self.yellowWidth(try session.screenshot(), y: 300); return fitted > 80 }, "no yellow bar: \(fitted)")
        if let target = ProcessInfo.processInfo.environment["PINHOLE_SCREENSHOT_VIEWER"] { try session.saveScreenshot(to: target) }
        // Each Ctrl+plus makes the picture a quarter larger (about the middle: the green bar,
        // left of it, stays whole).
        let green = Self.greenWidth(try session.screenshot(), y: 300)
        var zoomed = 0
        try session.key("ctrl+plus")
        #expect(try waitFor(seconds: 30) { zoomed = Self.greenWidth(try session.screenshot(), y: 300); return abs(zoomed - green * 5 / 4) <= 3 }, "fitted \(green), zoomed \(zoomed)")
        try session.key("ctrl+plus")
        #expect(try waitFor(seconds: 30) { zoomed = Self.greenWidth(try session.screenshot(), y: 300); return abs(zoomed - green * 25 / 16) <= 4 }, "fitted \(green), zoomed \(zoomed)")
        try session.key("ctrl+0")
        #expect(try waitFor(seconds: 30) { abs(Self.yellowWidth(try session.screenshot(), y: 300) - fitted) <= 2 })
        // To the last item and back to the first, one step at a time.
        try step(from: photo, to: 2)
        try step(from: 2, to: 0)
        try session.key("Escape")
        #expect(try AppStateTests.shows(session, "Back to Camera"))
    }

    /// A query on the session's library index, read by sqlite3.
    static func index(_ session: AppSession, _ query: String) throws -> String {
        let result = try runTool("sqlite3", [session.folder.path("library/library.sqlite3"), query])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An app launched on a library of two photos, the newest opened in the viewer by a
    /// double-click in the gallery (Ctrl+G).
    static func viewerOfTwoPhotos() throws -> AppSession {
        let session = try AppSession()
        for _ in 0..<2 { try Self.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try Self.cells(session) == 2 })
        try session.click(x: 100, y: 130, count: 2)
        #expect(try AppStateTests.shows(session, "1 of 2"))
        return session
    }

    @Test("a page's keys work only while it is shown: the camera's Space and V do nothing in the viewer, the viewer's F, Delete and arrows nothing on the camera page")
    func pageKeysStayOnTheirPage() throws {
        let session = try Self.viewerOfTwoPhotos()
        // In the viewer: the mode and the timer unchanged, no burst, still the same item.
        for key in ["v", "t", "b"] { try session.key(key) }
        #expect(try AppStateTests.shows(session, "1 of 2"))
        #expect(try session.actionState("mode")?.state == "'photo'")
        #expect(try session.actionState("timer")?.state == "'0'")
        // Space takes no photo (it may press the viewer's focused button, as a button's key).
        try session.key("space")
        usleep(2_000_000)
        #expect(session.files(in: session.photos).count == 2, "\(session.files(in: session.photos))")
        // Back on the camera page (whose preview runs again): the viewer's keys do nothing.
        try session.action("show-camera")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        for key in ["f", "Delete", "Right", "ctrl+plus", "k"] { try session.key(key) }
        usleep(2_000_000)
        #expect(try Self.index(session, "SELECT count(*) FROM assets") == "2")
        #expect(try Self.index(session, "SELECT count(*) FROM assets WHERE favorite = 1") == "0")
        #expect(!FileManager.default.fileExists(atPath: session.folder.path("data/Trash/files")))
        // And the camera's own key still works there: Space takes a photo.
        try session.key("space")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 3 }, "\(session.files(in: session.photos))")
    }

    @Test("in the viewer F marks a favourite; Delete moves the photo to the freedesktop Trash with Undo, which brings back the same item, still a favourite")
    func deleteAndUndo() throws {
        let session = try Self.viewerOfTwoPhotos()
        let newest = try #require(session.files(in: session.photos).sorted().last)
        let name = URL(fileURLWithPath: newest).lastPathComponent
        let id = try Self.index(session, "SELECT id FROM assets WHERE path LIKE '%\(name)'")
        try session.key("f")
        #expect(try waitFor(seconds: 30) { try Self.index(session, "SELECT favorite FROM assets WHERE id = '\(id)'") == "1" })
        try session.key("Delete")
        #expect(try AppStateTests.shows(session, "1 of 1"))
        // In the Trash as the freedesktop spec lays it out, and gone from the folder and the index.
        let trash = session.folder.path("data/Trash")
        #expect(waitFor(seconds: 30) { FileManager.default.fileExists(atPath: trash + "/files/" + name) })
        let info = (try? String(contentsOfFile: trash + "/info/" + name + ".trashinfo", encoding: .utf8)) ?? ""
        #expect(info.hasPrefix("[Trash Info]\n") && info.contains("\nPath=") && info.contains("\nDeletionDate="), "\(info)")
        #expect(!FileManager.default.fileExists(atPath: newest))
        #expect(try Self.index(session, "SELECT count(*) FROM assets WHERE id = '\(id)'") == "0")
        // The toast says so and offers Undo (its button runs app.undo-delete; run here over D-Bus,
        // since a toast lasts 10 s and a busy machine's accessibility walk may take longer).
        #expect(waitFor(seconds: 30) { (session.app?.errors ?? "").contains("pinhole-camera: Moved to Trash") })
        try session.action("undo-delete")
        #expect(waitFor(seconds: 30) { FileManager.default.fileExists(atPath: newest) }, "not back: \(session.files(in: session.photos))")
        // The Trash's entry goes once the index has the item again.
        #expect(waitFor(seconds: 30) {
            !FileManager.default.fileExists(atPath: trash + "/files/" + name) && !FileManager.default.fileExists(atPath: trash + "/info/" + name + ".trashinfo")
        }, "left in the Trash")
        #expect(try waitFor(seconds: 30) { try Self.index(session, "SELECT favorite FROM assets WHERE id = '\(id)'") == "1" }, "the same item, still a favourite")
        try session.key("Escape")
        #expect(try waitFor(seconds: 30) { try Self.cells(session) == 2 })
    }

    @Test("an empty library: \"No Photos or Videos Yet\", and its button goes back to the camera")
    func emptyGallery() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(try AppStateTests.shows(session, "No Photos or Videos Yet"))
        let pressed = try session.accessibility("find('Take a Photo', pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
    }
}
}
