import Foundation
import Glibc
import Testing
import TestSupport

/// "Recently Deleted": what the library put in the freedesktop Trash, restored or deleted for good.
extension MoreAppSuites {
@Suite("The camera app's Recently Deleted page, headless")
struct TrashTests {
    /// Presses the push button whose accessible name starts with `prefix` (GTK 4.8 names a
    /// button with a mnemonic "_Label Label").
    static func pressButton(_ session: AppSession, startingWith prefix: String) throws -> ToolResult {
        try session.accessibility("""
        until = time.time() + 30
        last = None
        while time.time() < until:
            # The dialog is still being built, or a node vanishes while read: look again.
            try:
                found = [n for n in walk(app()) if n.getRole() == pyatspi.ROLE_PUSH_BUTTON and (n.name or '').startswith(\(AppSuites.AppStateTests.pythonString(prefix)))]
                if found and found[0].queryAction().doAction(0):
                    print('ok')
                    break
            except Exception as error:
                last = error
            time.sleep(0.5)
        else:
            sys.exit('no button starting with %s (last error: %s)' % (\(AppSuites.AppStateTests.pythonString(prefix)), last))
        """)
    }

    @Test("a deleted photo is listed in Recently Deleted and Restore puts it back; Empty Trash, confirmed, deletes the rest for good")
    func restoreAndEmpty() throws {
        let session = try AppSession()
        for _ in 0..<2 { try AppSuites.GalleryTests.snap(session) }
        let trash = session.folder.path("data/Trash")
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 2 })
        // The first cell selected and deleted.
        let newest = try #require(try PickerTests.newestNames(session).first)
        try session.click(x: 100, y: 130)
        try session.key("Delete")
        #expect(waitFor(seconds: 30) { FileManager.default.fileExists(atPath: trash + "/files/" + newest) }, "not in the Trash")
        try session.action("recently-deleted")
        #expect(try AppSuites.AppStateTests.shows(session, newest))
        let restored = try session.accessibility("find('Restore \(newest)', pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(waitFor(seconds: 30) { FileManager.default.fileExists(atPath: session.photos + "/" + newest) }, "not restored")
        #expect(!FileManager.default.fileExists(atPath: trash + "/files/" + newest))
        #expect(try AppSuites.AppStateTests.shows(session, "Nothing Deleted Recently"))
        #expect(try AppSuites.GalleryTests.index(session, "SELECT count(*) FROM assets") == "2")
        // Both to the Trash from the gallery, then Empty Trash and its confirmation.
        try session.key("Escape")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 2 })
        try session.click(x: 100, y: 130)
        try session.key("ctrl+a")
        try session.key("Delete")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).isEmpty })
        try session.action("recently-deleted")
        #expect(try AppSuites.AppStateTests.shows(session, "Restore " + newest))
        let pressed = try Self.pressButton(session, startingWith: "_Empty Trash")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(try AppSuites.AppStateTests.shows(session, "Delete 2 Items Permanently?"))
        let confirmed = try Self.pressButton(session, startingWith: "_Delete")
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        // The deletion runs on the library's actor: wait for it.
        func left() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: trash + "/files")) ?? []) + ((try? FileManager.default.contentsOfDirectory(atPath: trash + "/info")) ?? [])
        }
        #expect(waitFor(seconds: 30) { left().isEmpty }, "left in the Trash: \(left())")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.index(session, "SELECT (SELECT count(*) FROM assets) + (SELECT count(*) FROM trashed)") == "0" })
        #expect(waitFor(seconds: 30) { (session.app?.errors ?? "").contains("pinhole-camera: 2 items deleted permanently") }, "\(session.app?.errors ?? "")")
    }
}
}
