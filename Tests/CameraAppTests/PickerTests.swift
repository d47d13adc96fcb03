import Foundation
import Glibc
import Testing
import TestSupport

/// The seeds' image picker for other programs (`pinhole-camera --pick`), and choosing several
/// items in the gallery: driven with real keys (xdotool), checked by what is printed, the exit
/// status and the files.
extension MoreAppSuites {
@Suite("The camera app's picker and multi-select, headless")
struct PickerTests {
    /// Starts `pinhole-camera` with `arguments` in the session (a second process when the app runs).
    static func start(_ session: AppSession, _ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess([builtProduct("pinhole-camera")] + arguments, environment: session.environment)
    }

    /// The newest item's file name by the index's order (the gallery's: newest first).
    static func newestNames(_ session: AppSession, mediaType: String? = nil) throws -> [String] {
        let filter = mediaType.map { "WHERE media_type = '\($0)'" } ?? ""
        return try AppSuites.GalleryTests.index(session, "SELECT path FROM assets \(filter) ORDER BY created DESC, id").split(separator: "\n")
            .map { URL(fileURLWithPath: String($0)).lastPathComponent }
    }

    @Test("`pinhole-camera --pick` beside the running app: Enter on the first item prints its path and exits 0; Escape prints nothing and exits 1")
    func pickFromRunningApp() throws {
        let session = try AppSession()
        for _ in 0..<2 { try AppSuites.GalleryTests.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        let picker = try Self.start(session, ["--pick"])
        let title = "^Choose a Photo or Video$"
        #expect(waitFor(seconds: 30) { session.windowID(named: title) != nil }, "no picker window: \(picker.errors)")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 2 })
        try session.key("Return", window: title)
        let status = picker.waitForExit(seconds: 30)
        #expect(status == 0, "exit status \(String(describing: status)): \(picker.errors)")
        let printed = picker.output.split(separator: "\n").map(String.init)
        let newest = try Self.newestNames(session).first
        #expect(printed.count == 1 && printed.first.map { URL(fileURLWithPath: $0).lastPathComponent } == newest, "printed \(printed), newest \(newest ?? "-")")
        #expect(printed.allSatisfy { $0.hasPrefix("/") && FileManager.default.fileExists(atPath: $0) }, "\(printed)")
        // The camera window is still there, and a second picker cancelled with Escape says nothing.
        #expect(session.windowID() != nil)
        let cancelled = try Self.start(session, ["--pick", "--type", "photo"])
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Choose a Photo$") != nil }, "no picker window: \(cancelled.errors)")
        try session.key("Escape", window: "^Choose a Photo$")
        #expect(cancelled.waitForExit(seconds: 30) == 1)
        #expect(cancelled.output.isEmpty, "\(cancelled.output)")
        #expect(session.windowID(named: "^Choose a Photo$") == nil)
    }

    @Test("`pinhole-camera --pick --multiple --type photo` with no app running: only the photos are offered, Ctrl+A and Enter print both, and the camera never opens")
    func pickSeveralWithoutApp() throws {
        let session = try AppSession()
        for _ in 0..<2 { try AppSuites.GalleryTests.snap(session) }
        let recorded = try runTool(builtProduct("pinhole"), ["record", "--device", "test", "--size", "640x480", "--duration", "1", "--no-audio"],
                                   environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(recorded.status == 0, "pinhole record: \(recorded.stderr)")
        let picker = try Self.start(session, ["--pick", "--multiple", "--type", "photo"])
        let title = "^Choose Photos$"
        #expect(waitFor(seconds: 30) { session.windowID(named: title) != nil }, "no picker window: \(picker.errors)")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 2 }, "cells: \((try? AppSuites.GalleryTests.cells(session)) ?? -1)")
        try session.key("ctrl+a", window: title)
        try session.key("Return", window: title)
        let status = picker.waitForExit(seconds: 30)
        #expect(status == 0, "exit status \(String(describing: status)): \(picker.errors)")
        let printed = picker.output.split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent }
        #expect(printed == (try Self.newestNames(session, mediaType: "photo")), "printed \(printed)")
        #expect(session.windowID(named: "^Camera$") == nil, "the camera window opened")
    }

    @Test("wrong arguments: a one-line message on standard error and exit status 2; --help prints the usage")
    func arguments() throws {
        let session = try AppSession()
        let wrong = try runTool(builtProduct("pinhole-camera"), ["--pick", "--type", "audio"], environment: session.environment)
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--type takes photo or video"), "\(wrong.stderr)")
        let help = try runTool(builtProduct("pinhole-camera"), ["--help"], environment: session.environment)
        #expect(help.status == 0)
        #expect(help.stdout.contains("--pick") && help.stdout.contains("exits 1 when cancelled"), "\(help.stdout)")
    }

    @Test("in the gallery Ctrl+A selects all, Escape lets go, Delete moves the selection to the Trash and Undo brings all of it back")
    func multiSelectDelete() throws {
        let session = try AppSession()
        for _ in 0..<3 { try AppSuites.GalleryTests.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 3 })
        // Ctrl+A then Escape: nothing selected, so Delete does nothing.
        try session.click(x: 100, y: 130)
        try session.key("ctrl+a")
        try session.key("Escape")
        try session.key("Delete")
        usleep(1_000_000)
        #expect(session.files(in: session.photos).count == 3, "Delete with nothing selected removed something")
        #expect(AppSuites.GalleryTests.cameraRunning(session) == false, "Escape with a selection left the gallery")
        // Ctrl+A then Delete: all three to the Trash, one toast, and Undo restores all.
        try session.key("ctrl+a")
        try session.key("Delete")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).isEmpty }, "left: \(session.files(in: session.photos))")
        #expect(waitFor(seconds: 30) { (session.app?.errors ?? "").contains("pinhole-camera: 3 items moved to Trash") }, "\(session.app?.errors ?? "")")
        #expect(try AppSuites.AppStateTests.shows(session, "No Photos or Videos Yet"))
        try session.action("undo-delete")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 3 }, "back: \(session.files(in: session.photos))")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 3 })
    }
}
}
