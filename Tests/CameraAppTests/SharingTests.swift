import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// Sharing from the viewer the Linux way: the clipboard (read back by xclip), Show in Files (a
/// stand-in file manager on the session's bus records the call), Save As through GTK's file
/// chooser (the copy read back by exiftool), Open With through the app chooser (a test app
/// records the file it was given) or, where one runs, the OpenURI portal (a stand-in portal
/// records the call).
extension MoreAppSuites {
@Suite("The camera app's sharing, headless")
struct SharingTests {
    /// Opens the gallery's first item in the viewer.
    static func openViewer(_ session: AppSession, items: Int) throws {
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == items })
        try session.click(x: 100, y: 130, count: 2)
        #expect(try AppSuites.AppStateTests.shows(session, "1 of \(items)"))
    }

    /// Runs a shell command line (for xclip's binary output) and returns its standard output.
    static func shell(_ session: AppSession, _ command: String) throws -> ToolResult {
        try runTool("bash", ["-c", command], environment: ["DISPLAY": session.display])
    }

    /// Imports a 320×240 JPEG with a camera (Pinhole Test Model) and a location (Paris), tagged
    /// by exiftool in `metadata` ("EXIF" GPS, or "XMP" GPS and city only), into the session's
    /// library with the CLI.
    static func importLocatedPhoto(_ session: AppSession, in metadata: String = "EXIF") throws {
        let source = session.folder.path("located.jpg")
        let made = try runTool("convert", ["-size", "320x240", "xc:#3080c0", source])
        try #require(made.status == 0, "convert: \(made.stderr)")
        let location = metadata == "XMP" ? ["-XMP:GPSLatitude=48.8583 N", "-XMP:GPSLongitude=2.2945 E", "-XMP-photoshop:City=Paris"]
            : ["-GPSLatitude=48.8583", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945", "-GPSLongitudeRef=E"]
        let tagged = try runTool("exiftool", ["-overwrite_original", "-Make=Pinhole", "-Model=Test Model"] + location + [source])
        try #require(tagged.status == 0, "exiftool: \(tagged.stderr)")
        let imported = try runTool(builtProduct("pinhole"), ["library", "import", source], environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(imported.status == 0, "pinhole library import: \(imported.stderr)")
    }

    @Test("Copy puts the photo on the clipboard as image/png (the same picture, read back by xclip) and its file as text/uri-list; Show in Files calls FileManager1.ShowItems with its URI")
    func copyAndShowInFiles() throws {
        let session = try AppSession()
        try AppSuites.GalleryTests.snap(session)
        let fixture = AppSession.repository + "/Tests/Fixtures/fake-file-manager.py"
        let files = try BackgroundProcess(["/usr/bin/python3", fixture], environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        defer { files.stop() }
        try #require(files.waitForOutput(containing: "ready"), "the stand-in file manager did not start: \(files.errors)")
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try Self.openViewer(session, items: 1)
        let photo = try #require(session.files(in: session.photos).first)
        try session.key("ctrl+c")
        #expect(waitFor(seconds: 30) { (session.app?.errors ?? "").contains("pinhole-camera: Copied to the clipboard") }, "\(session.app?.errors ?? "")")
        let targets = try Self.shell(session, "xclip -selection clipboard -t TARGETS -o")
        #expect(targets.stdout.contains("image/png") && targets.stdout.contains("text/uri-list"), "targets: \(targets.stdout) \(targets.stderr)")
        let uris = try Self.shell(session, "xclip -selection clipboard -t text/uri-list -o")
        let uri = "file://" + (photo.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? photo)
        #expect(uris.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == uri, "\(uris.stdout)")
        let png = session.folder.path("clipboard.png")
        let saved = try Self.shell(session, "xclip -selection clipboard -t image/png -o > '\(png)'")
        try #require(saved.status == 0, "xclip: \(saved.stderr)")
        let pasted = try PNGCodec.decode(try session.folder.read(URL(fileURLWithPath: png)))
        let original = try JPEGDecoder().decode(try session.folder.read(URL(fileURLWithPath: photo)))
        #expect(pasted.width == original.width && pasted.height == original.height, "\(pasted.width)×\(pasted.height) vs \(original.width)×\(original.height)")
        // The same picture: pixels along a row through the test pattern's bars agree.
        for step in 0..<16 {
            let x = original.width * (2 * step + 1) / 32, y = original.height / 3
            let a = pasted.bgraPixel(x: x, y: y), b = original.bgraPixel(x: x, y: y)
            #expect(abs(Int(a.r) - Int(b.r)) <= 4 && abs(Int(a.g) - Int(b.g)) <= 4 && abs(Int(a.b) - Int(b.b)) <= 4, "at \(x),\(y): \(a) vs \(b)")
        }
        try session.action("show-in-files")
        #expect(files.waitForOutput(containing: "ShowItems " + uri), "\(files.output)")
    }

    @Test("Save As… through GTK's file chooser: the name typed is written, with \"Remove location\" on by default for a photo with a location in EXIF or only in XMP, and nothing else is left in the folder",
          arguments: ["EXIF", "XMP"])
    func saveAsWithoutLocation(metadata: String) throws {
        let session = try AppSession()
        try Self.importLocatedPhoto(session, in: metadata)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try Self.openViewer(session, items: 1)
        let out = session.folder.path("saved")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try session.key("ctrl+shift+s")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Save As$") != nil }, "no file chooser")
        // The name field has the item's name selected: typing a full path replaces it.
        try session.key("ctrl+a", window: "^Save As$")
        try session.type(out + "/holiday.jpg", window: "^Save As$")
        try session.key("Return", window: "^Save As$")
        let target = out + "/holiday.jpg"
        #expect(waitFor(seconds: 30) { FileManager.default.fileExists(atPath: target) }, "not saved: \(session.app?.errors ?? "")")
        #expect(waitFor(seconds: 30) { (session.app?.errors ?? "").contains("pinhole-camera: Saved as " + target) }, "\(session.app?.errors ?? "")")
        let tags = try ExifTool.locate().tags(URL(fileURLWithPath: target))
        #expect(tags.keys.filter { $0.contains("GPS") || $0.contains("City") }.isEmpty, "\(tags.keys.filter { $0.contains("GPS") || $0.contains("City") })")
        #expect(jsonText(tags["EXIF:Make"]) == "Pinhole")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["holiday.jpg"])
    }

    @Test("Alt+Enter shows the properties: date, camera, size, file size, format, location with its note (coordinates from EXIF, a word for XMP only), and the path",
          arguments: ["EXIF", "XMP"])
    func properties(metadata: String) throws {
        let session = try AppSession()
        try Self.importLocatedPhoto(session, in: metadata)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try Self.openViewer(session, items: 1)
        let photo = try #require(session.files(in: session.photos).first)
        try session.key("alt+Return")
        // Each row: its title, and its value as a label.
        for text in ["Camera", "Pinhole Test Model", "Size", "320 × 240 pixels (0.1 MP)", "Format", "JPEG", "File", photo, "Location"] {
            #expect(try AppSuites.AppStateTests.shows(session, text), "no “\(text)”")
        }
        let place = metadata == "XMP" ? "Recorded in the file’s metadata" : "48.85830° N, 2.29450° E"
        let location = try session.accessibility("print(find('\(place)\\nSave As… removes it from the copy unless you turn “Remove location” off.', pyatspi.ROLE_LABEL).name)")
        #expect(location.status == 0, "\(location.stdout) \(location.stderr)")
        // The header's Properties button shows it pressed; Alt+Enter again hides the panel.
        let pressed = "print(find('Properties', pyatspi.ROLE_PUSH_BUTTON).getState().contains(pyatspi.STATE_PRESSED))"
        #expect(try session.accessibility(pressed).stdout.contains("True"))
        try session.key("alt+Return")
        #expect(try session.accessibility(pressed).stdout.contains("False"))
    }

    @Test("dragging a selected cell out of the gallery drops the selection's files (offered as text/uri-list) into another app")
    func dragOut() throws {
        let session = try AppSession()
        for _ in 0..<2 { try AppSuites.GalleryTests.snap(session) }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("ctrl+g")
        #expect(try waitFor(seconds: 30) { try AppSuites.GalleryTests.cells(session) == 2 })
        try session.click(x: 100, y: 130)
        try session.key("ctrl+a")
        // Another app's window, to the right of the camera's (no window manager: placed by hand).
        let fixture = AppSession.repository + "/Tests/Fixtures/drop-target.py"
        let target = try BackgroundProcess(["/usr/bin/python3", fixture], environment: ["DISPLAY": session.display, "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"])
        defer { target.stop() }
        try #require(target.waitForOutput(containing: "ready"), "the drop target did not start: \(target.errors)")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Drop Target$") != nil })
        let window = try #require(session.windowID(named: "^Drop Target$"))
        _ = try runTool("xdotool", ["windowmove", "--sync", window, "1000", "100"], environment: ["DISPLAY": session.display])
        // Press on the first cell, move across in steps (a drag starts after a few pixels), release over the target.
        let app = try #require(session.windowID())
        var steps = ["mousemove", "--window", app, "100", "130", "mousedown", "1", "sleep", "0.3"]
        for x in stride(from: 120, through: 1100, by: 70) { steps += ["mousemove", String(x), "200", "sleep", "0.1"] }
        steps += ["mousemove", "1110", "200", "sleep", "0.5", "mouseup", "1"]
        let dragged = try runTool("xdotool", steps, environment: ["DISPLAY": session.display])
        #expect(dragged.status == 0, "\(dragged.stderr)")
        #expect(target.waitForOutput(containing: "dropped"), "nothing dropped: \(target.output) \(target.errors)")
        #expect(target.output.contains("offered ") && target.output.split(separator: "\n").first { $0.hasPrefix("offered ") }?.contains("text/uri-list") == true, "\(target.output)")
        let files = target.output.split(separator: "\n").filter { $0.hasPrefix("file ") }.map { String($0.dropFirst(5)) }.sorted()
        #expect(files == session.files(in: session.photos), "\(files)")
    }

    @Test("Open With… offers the apps for the photo's type and opens the photo in the one chosen")
    func openWith() throws {
        // A test app for JPEGs that writes down the file it is given, registered as GIO finds
        // apps for a type (a desktop entry and the folder's mimeinfo.cache).
        let session = try AppSession()
        let applications = session.folder.path("data/applications")
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        let record = session.folder.path("opened.txt"), script = session.folder.path("test-viewer.sh")
        try "#!/bin/sh\necho \"$1\" > '\(record)'\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let entry = "[Desktop Entry]\nType=Application\nName=Pinhole Test Viewer\nExec=\(script) %f\nMimeType=image/jpeg;\n"
        try entry.write(toFile: applications + "/pinhole-test-viewer.desktop", atomically: true, encoding: .utf8)
        let indexed = try runTool("update-desktop-database", [applications])
        try #require(indexed.status == 0, "update-desktop-database: \(indexed.stderr)")
        try AppSuites.GalleryTests.snap(session)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try Self.openViewer(session, items: 1)
        let photo = try #require(session.files(in: session.photos).first)
        try session.action("open-with")
        // The chooser (GTK's app chooser dialog) lists the test app first, as the type's
        // default, and selected; its Select button (Alt+S) opens the photo with it.
        let chooser = "^Select Application$"
        #expect(waitFor(seconds: 30) { session.windowID(named: chooser) != nil }, "no app chooser")
        try session.key("alt+s", window: chooser)
        #expect(waitFor(seconds: 30) { (try? String(contentsOfFile: record, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == photo },
                "the test app was not given the photo: \((try? String(contentsOfFile: record, encoding: .utf8)) ?? "nothing")")
    }

    @Test("Open With… through the OpenURI portal where one runs: OpenFile gets a read-only descriptor of the photo's file, ask=true and the window; when the portal fails the call or answers that it failed, GTK's app chooser opens instead")
    func openWithPortal() throws {
        let session = try AppSession()
        try AppSuites.GalleryTests.snap(session)
        // The stand-in portal answers the first call "done", fails the second and answers the
        // third "failed" (response 2).
        let fixture = AppSession.repository + "/Tests/Fixtures/fake-portal.py"
        let portal = try BackgroundProcess(["/usr/bin/python3", fixture, "0", "error", "2"], environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        defer { portal.stop() }
        try #require(portal.waitForOutput(containing: "ready"), "the stand-in portal did not start: \(portal.errors)")
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try Self.openViewer(session, items: 1)
        let photo = try #require(session.files(in: session.photos).first)
        let digest = try runTool("sha256sum", [photo]).stdout.split(separator: " ").first.map(String.init) ?? "none"
        let window = try #require(session.windowID().flatMap { UInt($0) }.map { String($0, radix: 16) })
        try session.action("open-with")
        #expect(portal.waitForOutput(containing: "OpenFile "), "the portal was not called: \(portal.output) \(portal.errors)")
        let calls = { portal.output.split(separator: "\n").filter { $0.hasPrefix("OpenFile ") }.map(String.init) }
        #expect(calls().first == "OpenFile parent=x11:\(window) ask=True target=\(photo) mode=r sha256=\(digest)", "\(calls())")
        // The portal's own chooser did it: GTK's does not open.
        #expect(portal.waitForOutput(containing: "responded 0"), "\(portal.output)")
        usleep(1_000_000)
        #expect(session.windowID(named: "^Select Application$") == nil, "GTK's app chooser opened although the portal answered")
        // A portal that fails the call: GTK's chooser instead, which Escape closes.
        try session.action("open-with")
        #expect(waitFor(seconds: 30) { calls().count == 2 }, "\(portal.output)")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Select Application$") != nil }, "no app chooser after the portal failed")
        try ImportTests.press("Escape", closing: "^Select Application$", in: session)
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Select Application$") == nil }, "the app chooser stayed")
        // A portal that answers the request with a failure: GTK's chooser again.
        try session.action("open-with")
        #expect(portal.waitForOutput(containing: "responded 2"), "\(portal.output)")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Select Application$") != nil }, "no app chooser after the portal's failure response")
        try ImportTests.press("Escape", closing: "^Select Application$", in: session)
    }
}
}
