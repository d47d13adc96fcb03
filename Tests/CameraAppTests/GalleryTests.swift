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
        let result = try session.accessibility("print(len([n for n in walk(app()) if (n.name or '').startswith(('Photo, ', 'Video, '))]))")
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Whether the app's camera is streaming, as it reports through the test channel.
    static func cameraRunning(_ session: AppSession) -> Bool? {
        let path = session.folder.path("report-\(UInt32.random(in: 0...UInt32.max))")
        session.send("report " + path)
        guard waitFor(seconds: 30, { FileManager.default.fileExists(atPath: path) }) else { return nil }
        return (try? String(contentsOfFile: path, encoding: .utf8))?.contains("camera-running=1")
    }

    @Test("the gallery shows one cell per item with the item's thumbnail, follows `pinhole snap` and `rm` from outside, and lets the camera go while shown")
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
