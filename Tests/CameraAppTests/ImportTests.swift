import Foundation
import Glibc
import Testing
import TestSupport

/// Import in the app, headless: files given over D-Bus (`app.import-files`, the action the file
/// chooser and a drop run), the file chooser driven by keys, a real drag from another program,
/// and a large import's progress bar and Cancel. The library is seeded by the CLI and checked with
/// sqlite3 and the files on disk.
extension MoreAppSuites {
@Suite("The camera app's import, headless")
struct ImportTests {
    /// Every name in `folder`, hidden ones included (a temporary file would be one).
    static func everything(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// How many items the session's index holds (sqlite3).
    static func count(_ session: AppSession) throws -> Int {
        Int(try AppSuites.GalleryTests.index(session, "SELECT count(*) FROM assets")) ?? -1
    }

    /// Presses `key` in the dialog titled `window`, a key that closes it: sent as real input to
    /// the focused window (`key --window` sends the release to the window the press destroyed,
    /// and xdotool fails with BadWindow).
    static func press(_ key: String, closing window: String, in session: AppSession) throws {
        let id = try #require(session.windowID(named: window), "no window titled \(window)")
        _ = try runTool("xdotool", ["windowfocus", "--sync", id], environment: ["DISPLAY": session.display])
        let result = try runTool("xdotool", ["key", key], environment: ["DISPLAY": session.display])
        #expect(result.status == 0, "\(result.stderr)")
        usleep(500_000)
    }

    /// Presses the chooser's Import button (through the accessibility tree: Return could go to
    /// the location entry's completion popup when it is open). GTK 4.8 names a button with a
    /// mnemonic "_Import Import".
    static func accept(_ session: AppSession) throws {
        let pressed = try session.accessibility("""
        def accepts(node):
            try:
                return node.getRole() == pyatspi.ROLE_PUSH_BUTTON and (node.name or '').split(' ')[-1] == 'Import'
            except Exception:
                return False
        until = time.time() + 30
        while time.time() < until:
            buttons = [n for n in walk(app()) if accepts(n)]
            if buttons:
                buttons[0].queryAction().doAction(0)
                print('ok')
                break
            time.sleep(0.2)
        """)
        #expect(pressed.stdout.contains("ok"), "\(pressed.stderr)")
    }

    /// A photo taken by `pinhole snap` into `path` (outside the library).
    static func snap(_ session: AppSession, to path: String, size: String? = nil) throws {
        let result = try runTool(builtProduct("pinhole"), ["snap", "--device", "test", "-o", path] + (size.map { ["--size", $0] } ?? []),
                                 environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(result.status == 0, "pinhole snap: \(result.stderr)")
    }

    /// A folder of files to import: "new.jpg" (a photo the library has not got), "again.jpg" (a
    /// copy of the photo `pinhole snap` put in the library) and "broken.jpg" (new.jpg cut in half).
    static func incoming(_ session: AppSession) throws -> (folder: String, new: String, again: String, broken: String) {
        try AppSuites.GalleryTests.snap(session)
        let folder = session.folder.path("incoming")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let new = folder + "/new.jpg", again = folder + "/again.jpg", broken = folder + "/broken.jpg"
        try snap(session, to: new)
        let seeded = try #require(session.files(in: session.photos).first)
        try FileManager.default.copyItem(atPath: seeded, toPath: again)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: new))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: broken))
        return (folder, new, again, broken)
    }

    @Test("a good, a duplicate and a damaged file: one new item, one duplicate message and one refusal naming the file and why, with nothing left behind")
    func goodDuplicateDamaged() throws {
        let session = try AppSession()
        let files = try Self.incoming(session)
        let before = try [files.new, files.again, files.broken].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        #expect(try Self.count(session) == 1)
        let started = Date()
        try session.action("import-files", variant: "['\(files.new)', '\(files.again)', '\(files.broken)']")
        #expect(waitFor(seconds: 30) { session.toasts.contains("1 imported") }, "\(session.toasts)")
        let took = Date().timeIntervalSince(started)
        // Each message once, and nothing else said.
        #expect(waitFor(seconds: 10) { session.toasts.count == 3 }, "\(session.toasts)")
        let toasts = session.toasts
        #expect(toasts.filter { $0 == "again.jpg is already in the library" }.count == 1, "\(toasts)")
        // The reason in the app's words, not the library's description of the damage.
        #expect(toasts.filter { $0 == "broken.jpg could not be imported: the file is damaged or incomplete" }.count == 1, "\(toasts)")
        #expect(toasts.first == "1 imported", "\(toasts)")
        // One new item in the index and on disk; no temporary file; the files given unchanged.
        #expect(try Self.count(session) == 2)
        let photos = Self.everything(in: session.photos)
        #expect(photos.count == 2 && !photos.contains { $0.hasPrefix(".") }, "\(photos)")
        #expect(Self.everything(in: session.videos).isEmpty)
        #expect(Self.everything(in: files.folder) == ["again.jpg", "broken.jpg", "new.jpg"])
        #expect(try [files.new, files.again, files.broken].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        // The import showed the gallery, which has the new item.
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 2 }, "cells: \((try? AppSuites.GalleryTests.cells(session)) ?? -1)")
        print("import of 3 files (1 new, 1 duplicate, 1 damaged) said its result \(String(format: "%.2f", took)) s after the D-Bus call")
    }

    @Test("a folder of many photos: a progress bar with the count, Cancel stops before the next file, the files done are in and nothing is left half-imported, also when the app quits mid-import")
    func progressAndCancel() throws {
        let session = try AppSession()
        try AppSuites.GalleryTests.snap(session)
        // 200 distinct 4K photos: one taken by the CLI, told apart by a JPEG comment each.
        let many = session.folder.path("many")
        try FileManager.default.createDirectory(atPath: many + "/more", withIntermediateDirectories: true)
        try Self.snap(session, to: session.folder.path("big.jpg"), size: "3840x2160")
        let photo = try [UInt8](Data(contentsOf: URL(fileURLWithPath: session.folder.path("big.jpg"))))
        let total = 200
        for index in 0..<total {
            let comment = Array("copy \(index)".utf8)
            let segment: [UInt8] = [0xFF, 0xFE, UInt8((comment.count + 2) >> 8), UInt8((comment.count + 2) & 0xFF)] + comment
            let name = String(format: "%@/photo %03d.jpg", index < total / 2 ? many : many + "/more", index)
            try Data(Array(photo.prefix(2)) + segment + Array(photo.dropFirst(2))).write(to: URL(fileURLWithPath: name))
        }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        let started = Date()
        try session.action("import-files", variant: "['\(many)']")
        #expect(try waitFor(seconds: 30) { try Self.count(session) >= 3 })
        // The bar says how far it is, by the count of files.
        let bar = try session.accessibility("""
        node = None
        until = time.time() + 30
        while node is None and time.time() < until:
            for n in walk(app()):
                try:
                    if n.getRole() == pyatspi.ROLE_PROGRESS_BAR and n.name.startswith('Importing '):
                        node = n
                        break
                except Exception:
                    pass
        print(node.name if node else 'none: ' + ', '.join(names()))
        """)
        let shown = bar.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(shown.hasPrefix("Importing ") && shown.hasSuffix(" of \(total)"), "\(shown) \(bar.stderr)")
        try session.action("cancel-import")
        #expect(waitFor(seconds: 30) { session.toasts.contains { $0.hasPrefix("Import cancelled: ") } }, "\(session.toasts)")
        let took = Date().timeIntervalSince(started)
        let line = try #require(session.toasts.first { $0.hasPrefix("Import cancelled: ") })
        let imported = try #require(Int(line.dropFirst("Import cancelled: ".count).split(separator: " ").first ?? ""), "\(line)")
        #expect(imported > 0 && imported < total, "\(line)")
        // What was done is in, whole; what was not is untouched; no temporary file anywhere.
        #expect(try Self.count(session) == 1 + imported)
        let photos = Self.everything(in: session.photos)
        #expect(photos.count == 1 + imported && !photos.contains { $0.hasPrefix(".") }, "\(photos.filter { $0.hasPrefix(".") })")
        #expect(Self.everything(in: many).count == total / 2 + 1 && Self.everything(in: many + "/more").count == total / 2)
        #expect(session.toasts.count == 1, "\(session.toasts)")
        // The bar goes away.
        let gone = try session.accessibility("""
        until = time.time() + 30
        while time.time() < until:
            if not [n for n in walk(app()) if n.getRole() == pyatspi.ROLE_PROGRESS_BAR and (n.name or '').startswith('Importing ')]:
                print('gone')
                break
            time.sleep(0.5)
        """)
        #expect(gone.stdout.contains("gone"), "\(gone.stderr)")
        // Quitting during an import: the file being added is finished, the app exits, and every
        // file in the folder is whole and in the index.
        try session.action("import-files", variant: "['\(many)']")
        #expect(try waitFor(seconds: 30) { try Self.count(session) >= imported + 3 })
        #expect(try session.quit() == 0)
        let after = Self.everything(in: session.photos)
        let indexed = try Self.count(session)
        #expect(!after.contains { $0.hasPrefix(".") } && after.count == indexed, "\(after.count) files, \(indexed) in the index")
        #expect(after.count > imported + 1 && after.count < total + 1, "\(after.count) files")
        print("import of a folder of \(total) 4K photos, cancelled once its bar was seen: \(imported) imported, the cancel's toast \(String(format: "%.2f", took)) s after the import's D-Bus call")
    }

    @Test("Ctrl+I's file chooser imports the file typed into it; Shift+Ctrl+I's folder chooser a folder; a drag from another program imports its files")
    func chooserAndDrop() throws {
        let session = try AppSession()
        let files = try Self.incoming(session)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        // The chooser (GTK's own dialog here: no portal), a path typed into its location entry,
        // then its Import button.
        try session.key("ctrl+i")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Import Photos and Videos$") != nil }, "no file chooser")
        try session.type(files.new, window: "^Import Photos and Videos$")
        try Self.accept(session)
        #expect(waitFor(seconds: 30) { session.toasts.contains("1 imported") }, "\(session.toasts)")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Import Photos and Videos$") == nil }, "the chooser stayed")
        #expect(try Self.count(session) == 2)
        // A folder, chosen in the folder chooser: all three again (two are in the library by now).
        try session.key("shift+ctrl+i")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Import Folders$") != nil }, "no folder chooser")
        try session.type(files.folder, window: "^Import Folders$")
        try Self.accept(session)
        #expect(waitFor(seconds: 30) { session.toasts.contains("Nothing was imported") }, "\(session.toasts)")
        #expect(waitFor(seconds: 10) { session.toasts.count == 5 }, "\(session.toasts)")
        #expect(Array(session.toasts.suffix(4)) == ["Nothing was imported", "again.jpg is already in the library", "new.jpg is already in the library",
                                                     session.toasts.last { $0.hasPrefix("broken.jpg could not be imported: ") } ?? "no refusal"], "\(session.toasts)")
        // A drag from another program (a GTK window offering text/uri-list, as file managers do)
        // onto the app's window: press on it, move over the app, release (real XDND under Xvfb).
        let another = files.folder + "/another.jpg"
        try Self.snap(session, to: another)
        let source = try BackgroundProcess(["/usr/bin/python3", AppSession.repository + "/Tests/Fixtures/drag-files.py", another, files.again],
                                           environment: ["DISPLAY": session.display, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1",
                                                         "GSETTINGS_BACKEND": "memory", "DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        defer { source.stop() }
        #expect(source.waitForOutput(containing: "ready", seconds: 30), "\(source.errors)")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Drag Source$") != nil })
        let display = ["DISPLAY": session.display]
        // Both windows sit at the top left (no window manager): the source's 200 pixels over the app's.
        for step in [["mousemove", "100", "100"], ["mousedown", "1"], ["mousemove", "110", "110"], ["mousemove", "140", "140"], ["mousemove", "300", "300"],
                     ["mousemove", "600", "400"], ["mousemove", "610", "410"], ["mouseup", "1"]] {
            _ = try runTool("xdotool", step, environment: display)
            usleep(300_000)
        }
        #expect(source.waitForOutput(containing: "drag-end", seconds: 30), "\(source.output) \(source.errors)")
        #expect(waitFor(seconds: 30) { session.toasts.count == 7 }, "\(session.toasts)")
        #expect(Array(session.toasts.suffix(2)) == ["1 imported", "again.jpg is already in the library"], "\(session.toasts)")
        #expect(try Self.count(session) == 3)
        let photos = Self.everything(in: session.photos)
        #expect(photos.count == 3 && !photos.contains { $0.hasPrefix(".") }, "\(photos)")
        // The gallery's Import… button opens the same chooser; Escape closes it, importing nothing.
        let pressed = try session.accessibility("find('Import…', pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Import Photos and Videos$") != nil }, "no file chooser from the button")
        try Self.press("Escape", closing: "^Import Photos and Videos$", in: session)
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Import Photos and Videos$") == nil }, "the chooser stayed")
        usleep(500_000)
        #expect(session.toasts.count == 7, "\(session.toasts)")
    }

    @Test("in Simplified Chinese (LANG=zh_CN.UTF-8) a damaged file's refusal gives its reason in Chinese, as the rest of the line")
    func damagedInChinese() throws {
        let locales = try AppSession.buildTranslations()
        let session = try AppSession(extra: ["LANG": "zh_CN.UTF-8", "LANGUAGE": "zh_CN", "LC_ALL": "zh_CN.UTF-8", "PINHOLE_LOCALEDIR": locales])
        let files = try Self.incoming(session)
        // An empty file too: another of the library's reasons.
        let empty = files.folder + "/empty.jpg"
        try Data().write(to: URL(fileURLWithPath: empty))
        try session.launch(title: "^相机$")
        try session.action("import-files", variant: "['\(files.broken)', '\(empty)']")
        #expect(waitFor(seconds: 30) { session.toasts.count == 3 }, "\(session.toasts)")
        let toasts = session.toasts
        #expect(toasts.contains("无法导入 broken.jpg：文件已损坏或不完整"), "\(toasts)")
        #expect(toasts.contains("无法导入 empty.jpg：文件是空的"), "\(toasts)")
        #expect(try Self.count(session) == 1)
    }
}
}
