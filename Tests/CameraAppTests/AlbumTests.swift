import Foundation
import Glibc
import Testing
import TestSupport

/// Albums in the app: shown as a filter, items added and removed, an album made, renamed, filled
/// through the in-app picker and deleted; each step checked in the library's index (sqlite3).
extension AppSuites {
@Suite("The camera app's albums, headless")
struct AlbumTests {
    /// The names of the album's items' files, by sqlite3.
    static func members(_ session: AppSession, _ album: String) throws -> Int {
        Int(try GalleryTests.index(session, "SELECT count(*) FROM album_assets JOIN albums ON albums.id = album_assets.album WHERE albums.name = '\(album)'")) ?? -1
    }

    /// How many pixels of the window's header (the top 46 rows) are near `colour`.
    static func headerPixels(_ session: AppSession, near colour: (r: Int, g: Int, b: Int)) throws -> Int {
        let shot = try session.screenshot()
        var count = 0
        for y in 0..<46 {
            for x in 0..<min(960, shot.width) {
                let p = shot.bgraPixel(x: x, y: y)
                if abs(Int(p.r) - colour.r) < 30, abs(Int(p.g) - colour.g) < 30, abs(Int(p.b) - colour.b) < 30 { count += 1 }
            }
        }
        return count
    }

    @Test("Choose Cover… picks one of the album's items in the picker, by keys; the header's filter shows the album's cover: its newest item, then the one chosen")
    func cover() throws {
        let session = try AppSession()
        let library = ["PINHOLE_LIBRARY": session.folder.path("library")]
        // Red first, then blue: blue is the newest, the album's cover until one is chosen.
        for colour in ["red", "blue"] {
            let png = session.folder.path(colour + ".png")
            try #require(try runTool("convert", ["-size", "320x240", "xc:" + colour, "PNG24:" + png]).status == 0)
            let imported = try runTool(builtProduct("pinhole"), ["library", "import", png], environment: library)
            try #require(imported.status == 0, "pinhole library import: \(imported.stderr)")
        }
        let ids = try GalleryTests.index(session, "SELECT id FROM assets ORDER BY created, id").split(separator: "\n").map(String.init)
        try #require(ids.count == 2)
        for arguments in [["library", "album", "create", "Walks"], ["library", "album", "add", "Walks"] + ids] {
            let result = try runTool(builtProduct("pinhole"), arguments, environment: library)
            try #require(result.status == 0, "pinhole \(arguments): \(result.stderr)")
        }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.action("gallery-filter", "album:Walks")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 2 })
        let red = (r: 255, g: 0, b: 0), blue = (r: 0, g: 0, b: 255)
        // A 24-pixel cover beside the album's name.
        #expect(try waitFor(seconds: 30) { try Self.headerPixels(session, near: blue) > 300 && Self.headerPixels(session, near: red) == 0 },
                "the header's cover: \((try? Self.headerPixels(session, near: blue)) ?? -1) blue, \((try? Self.headerPixels(session, near: red)) ?? -1) red pixels")
        // The picker offers the album's two items, the newest selected: Right, then Enter, chooses red.
        try session.action("choose-album-cover")
        let title = "^Choose the Cover of “Walks”$"
        #expect(waitFor(seconds: 30) { session.windowID(named: title) != nil }, "no picker")
        usleep(500_000)
        try session.key("Right", window: title)
        try session.key("Return", window: title)
        #expect(waitFor(seconds: 30) { session.windowID(named: title) == nil }, "the picker stayed open")
        #expect(try waitFor(seconds: 30) { try GalleryTests.index(session, "SELECT cover FROM albums WHERE name = 'Walks'") == ids[0] },
                "cover: \((try? GalleryTests.index(session, "SELECT cover FROM albums")) ?? "")")
        #expect(try waitFor(seconds: 30) { try Self.headerPixels(session, near: red) > 300 && Self.headerPixels(session, near: blue) == 0 },
                "the header's cover: \((try? Self.headerPixels(session, near: red)) ?? -1) red, \((try? Self.headerPixels(session, near: blue)) ?? -1) blue pixels")
        #expect(try AppStateTests.shows(session, "Cover of “Walks” chosen") || (session.app?.errors ?? "").contains("Cover of “Walks” chosen"))
    }

    @Test("New Album… from the camera page, before the gallery was ever shown, then the gallery: it shows every item, with no warning (the monkey's seed 1796353223: the album's change read the items before the gallery page existed, and the page, made later, started empty)")
    func albumBeforeGallery() throws {
        let session = try AppSession()
        for _ in 0..<3 { try GalleryTests.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.action("new-album")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^New Album$") != nil }, "no dialog")
        try session.type("Early", window: "^New Album$")
        try session.key("Return", window: "^New Album$")
        #expect(try waitFor(seconds: 30) { try GalleryTests.index(session, "SELECT count(*) FROM albums WHERE name = 'Early'") == "1" })
        try session.action("gallery-filter", "all")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 3 }, "cells: \((try? GalleryTests.cells(session)) ?? -1)")
        let said = session.app?.errors ?? ""
        #expect(!said.contains("out of step") && !said.contains("CRITICAL"), "\(said.suffix(800))")
    }

    @Test("an album as a filter; Remove from This Album; New Album… with the selection; Rename Album… followed by the filter; Add Photos… through the picker; Delete Album keeps the photos")
    func albums() throws {
        let session = try AppSession()
        for _ in 0..<3 { try GalleryTests.snap(session) }
        let library = ["PINHOLE_LIBRARY": session.folder.path("library")]
        let first = try GalleryTests.index(session, "SELECT id FROM assets ORDER BY created DESC, id LIMIT 1")
        for arguments in [["library", "album", "create", "Trips"], ["library", "album", "add", "Trips", first]] {
            let result = try runTool(builtProduct("pinhole"), arguments, environment: library)
            try #require(result.status == 0, "pinhole \(arguments): \(result.stderr)")
        }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.action("gallery-filter", "album:Trips")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 1 }, "cells: \((try? GalleryTests.cells(session)) ?? -1)")
        #expect(try AppStateTests.shows(session, "Trips"))
        try session.click(x: 100, y: 130)
        try session.action("remove-from-album")
        #expect(try waitFor(seconds: 30) { try Self.members(session, "Trips") == 0 })
        #expect(try AppStateTests.shows(session, "No Photos or Videos Yet"))
        // New Album… with the first item selected.
        try session.action("gallery-filter", "all")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 3 })
        try session.click(x: 100, y: 130)
        try session.action("new-album")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^New Album$") != nil }, "no dialog")
        try session.type("Summer", window: "^New Album$")
        try session.key("Return", window: "^New Album$")
        #expect(try waitFor(seconds: 30) { try Self.members(session, "Summer") == 1 })
        // Renamed while shown: the gallery follows it.
        try session.action("gallery-filter", "album:Summer")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 1 })
        try session.action("rename-album")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Rename Album$") != nil }, "no dialog")
        try session.key("ctrl+a", window: "^Rename Album$")
        try session.type("Summer 2026", window: "^Rename Album$")
        try session.key("Return", window: "^Rename Album$")
        #expect(try waitFor(seconds: 30) { try Self.members(session, "Summer 2026") == 1 })
        #expect(try AppStateTests.shows(session, "Summer 2026"))
        // The gallery follows the new name by reloading its items: waited for, as the rest is.
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 1 })
        // Add Photos… opens the picker over the whole library: Ctrl+A and Enter add them all.
        try session.action("add-photos-to-album")
        let picker = "^Choose Photos or Videos$"
        #expect(waitFor(seconds: 30) { session.windowID(named: picker) != nil }, "no picker")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 4 }, "the picker's cells beside the album's one")
        try session.key("ctrl+a", window: picker)
        try session.key("Return", window: picker)
        #expect(try waitFor(seconds: 30) { try Self.members(session, "Summer 2026") == 3 })
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 3 })
        // Delete Album, confirmed: the album goes, the photos stay, the gallery shows all.
        try session.action("delete-album")
        let confirm = "^Delete Album “Summer 2026”\\?$"
        #expect(waitFor(seconds: 30) { session.windowID(named: confirm) != nil }, "no confirmation")
        let pressed = try MoreAppSuites.TrashTests.pressButton(session, startingWith: "_Delete")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(try waitFor(seconds: 30) { try GalleryTests.index(session, "SELECT count(*) FROM albums WHERE name = 'Summer 2026'") == "0" })
        #expect(try GalleryTests.index(session, "SELECT count(*) FROM assets") == "3")
        #expect(try waitFor(seconds: 30) { try GalleryTests.cells(session) == 3 })
    }
}
}
