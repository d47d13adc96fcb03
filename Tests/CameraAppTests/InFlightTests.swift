import Foundation
import Glibc
import Testing
import TestSupport

/// Photos lost in the app when the person moves on (issue 19, items 5–7 and the discard note):
/// driven as a person or a script does (keys, D-Bus actions, signals), checked by the files on
/// disk (read by exiftool), the exit status and what GTK said on standard error.
extension MoreAppSuites {
@Suite("The camera app keeps every photo in flight, headless")
struct InFlightTests {
    /// The library's photos, each checked whole by exiftool (the test camera's largest size).
    static func savedPhotos(_ session: AppSession) throws -> [String] {
        let photos = session.files(in: session.photos).filter { $0.hasSuffix(".jpg") }
        let exiftool = try ExifTool.locate()
        for photo in photos {
            let tags = try exiftool.tags(URL(fileURLWithPath: photo))
            #expect(jsonNumber(tags["File:ImageWidth"]) == 3840 && jsonNumber(tags["File:ImageHeight"]) == 2160, "\(photo): \(tags["File:ImageWidth"] ?? "-")")
        }
        return photos
    }

    /// GTK's and GLib's critical warnings in what a process said (a widget used after it was freed).
    static func criticals(_ errors: String) -> [String] {
        errors.split(separator: "\n").filter { $0.contains("-CRITICAL **") }.map(String.init)
    }

    /// Presses the push button labelled `label` through AT-SPI (GTK 4.8 names a toast's button
    /// "Label Label" and libadwaita 1.2 a dialog's "_Label Label"; the label inside has actions of
    /// its own, not the click).
    static func pressButton(_ session: AppSession, _ label: String) throws -> ToolResult {
        let names = [label, label + " " + label, "_" + label + " " + label].map(AppSuites.AppStateTests.pythonString).joined(separator: ", ")
        return try session.accessibility("""
            until = time.time() + 30
            while time.time() < until:
                found = [n for n in walk(app()) if n.name in (\(names)) and n.getRole() == pyatspi.ROLE_PUSH_BUTTON]
                if found:
                    found[0].queryAction().doAction(0)
                    print('ok')
                    sys.exit(0)
                time.sleep(0.2)
            sys.exit('no button %r' % \(AppSuites.AppStateTests.pythonString(label)))
            """)
    }

    /// Waits until the window shows the photo just taken for Save or Cancel (unmirrored, where
    /// the mirrored preview was).
    static func waitForConfirmation(_ session: AppSession) throws -> Bool {
        try waitFor(seconds: patience) { AppSuites.AppWindowTests.matches(AppSuites.AppWindowTests.previewBars(try session.screenshot()), mirrored: false) }
    }

    @Test("a burst with \"Ask before saving\" shows every photo in turn (B while they wait takes none over them), and Save on each keeps all three")
    func burstAsksForEveryPhoto() throws {
        let session = try AppSession(preferences: ["ask-before-saving": "true", "burst-count": "3"])
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("b")
        #expect(try Self.waitForConfirmation(session), session.describePreview())
        // All three taken: two wait behind the one shown.
        let waiting = try session.accessibility("print(find('2 more photos wait after this one').name)")
        #expect(waiting.status == 0, "\(waiting.stderr)")
        // B again while they wait: nothing is taken over them.
        try session.key("b")
        for saved in 1...3 {
            try session.action("save-photo")
            #expect(waitFor(seconds: patience) { session.files(in: session.photos).count == saved }, "after Save \(saved): \(session.files(in: session.photos))")
        }
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), "the preview came back after the last Save")
        let app = try #require(session.app)
        #expect(try session.quit() == 0)
        #expect(try Self.savedPhotos(session).count == 3)
        let complaints = Self.criticals(app.errors)
        #expect(complaints.isEmpty, "\(complaints)")
    }

    @Test("`take-photo` then `quit` 0, 0.1 and 0.3 s later: each photo is on disk, whole, when the app has exited (status 0)")
    func quitRightAfterTheShutter() throws {
        let session = try AppSession()
        for (round, delay) in [0, 100_000, 300_000].enumerated() {
            try session.launch()
            #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
            try session.action("take-photo")
            usleep(UInt32(delay))
            try session.action("quit")
            let app = try #require(session.app)
            let status = app.waitForExit(seconds: patience)
            #expect(status == 0, "round \(round): exit \(String(describing: status)): \(app.errors.suffix(600))")
            #expect(Self.criticals(app.errors).isEmpty, "\(Self.criticals(app.errors))")
            #expect(try Self.savedPhotos(session).count == round + 1, "round \(round) (quit \(delay / 1000) ms after the shutter): \(session.files(in: session.photos))")
        }
    }

    @Test("a photo waiting for confirmation at quit: kept when told by D-Bus or SIGTERM (no one can answer); asked about on Ctrl+Q, and Save keeps it")
    func pendingPhotoAtQuit() throws {
        let session = try AppSession(preferences: ["ask-before-saving": "true"])
        // D-Bus's app.quit, then SIGTERM (as at logout): the photo is saved, the app exits 0.
        for (round, how) in ["D-Bus", "SIGTERM"].enumerated() {
            try session.launch()
            #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
            try session.key("space")
            #expect(try Self.waitForConfirmation(session), session.describePreview())
            let app = try #require(session.app)
            if how == "D-Bus" { try session.action("quit") } else { kill(app.pid, SIGTERM) }
            let status = app.waitForExit(seconds: patience)
            #expect(status == 0, "\(how): exit \(String(describing: status)): \(app.errors.suffix(600))")
            #expect(try Self.savedPhotos(session).count == round + 1, "\(how): \(session.files(in: session.photos))")
        }
        // Ctrl+Q in the window: the person is asked, and nothing is decided for them meanwhile.
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("space")
        #expect(try Self.waitForConfirmation(session), session.describePreview())
        try session.key("ctrl+q")
        let asked = try session.accessibility("print(find('Save the Photo?').name)")
        #expect(asked.status == 0, "not asked: \(asked.stderr)")
        #expect(session.app?.hasExited == false && session.files(in: session.photos).count == 2, "\(session.files(in: session.photos))")
        let saved = try Self.pressButton(session, "Save")
        #expect(saved.status == 0, "\(saved.stderr)")
        let app = try #require(session.app)
        let status = app.waitForExit(seconds: patience)
        #expect(status == 0, "exit \(String(describing: status)): \(app.errors.suffix(600))")
        #expect(try Self.savedPhotos(session).count == 3, "\(session.files(in: session.photos))")
        #expect(Self.criticals(app.errors).isEmpty, "\(Self.criticals(app.errors))")
    }

    @Test("`discard-photo` from another program says so with Undo, which brings the photo back to be saved")
    func discardFromOutsideCanBeUndone() throws {
        let session = try AppSession(preferences: ["ask-before-saving": "true"])
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("space")
        #expect(try Self.waitForConfirmation(session), session.describePreview())
        try session.action("discard-photo")
        #expect(waitFor(seconds: patience) { session.toasts.contains("Photo discarded") }, "no toast: \(session.toasts)")
        let undone = try Self.pressButton(session, "Undo")
        #expect(undone.status == 0, "\(undone.stderr)")
        #expect(try Self.waitForConfirmation(session), "the photo did not come back")
        try session.action("save-photo")
        #expect(waitFor(seconds: patience) { session.files(in: session.photos).count == 1 }, "\(session.files(in: session.photos))")
        #expect(try session.quit() == 0)
        #expect(try Self.savedPhotos(session).count == 1)
    }

    @Test("closing the camera window while a `--pick` picker is open lets the camera go, uses no freed widget, and the app lives on until the picker ends")
    func closeWindowWhilePicking() throws {
        let session = try AppSession()
        try AppSuites.GalleryTests.snap(session)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        let picker = try PickerTests.start(session, ["--pick"])
        let title = "^Choose a Photo or Video$"
        #expect(waitFor(seconds: patience) { session.windowID(named: title) != nil }, "no picker window: \(picker.errors)")
        try session.key("ctrl+w")
        #expect(waitFor(seconds: patience) { session.windowID() == nil }, "the camera window did not close")
        #expect(waitFor(seconds: patience) { AppSuites.GalleryTests.cameraRunning(session) == false }, "the camera stayed on with no window")
        // Frames would have reached freed widgets by now; the gallery action would use them.
        try session.action("gallery")
        #expect(try waitFor(seconds: patience) { try AppSuites.GalleryTests.cells(session) == 1 }, "the picker stopped showing its item")
        let app = try #require(session.app)
        #expect(!app.hasExited, "the app died: \(app.errors.suffix(600))")
        #expect(Self.criticals(app.errors).isEmpty, "\(Self.criticals(app.errors).count) critical warnings, first: \(Self.criticals(app.errors).first ?? "")")
        try session.key("Escape", window: title)
        #expect(picker.waitForExit(seconds: patience) == 1)
        // The picker was the last window: the app ends by itself.
        let status = app.waitForExit(seconds: patience)
        #expect(status == 0, "exit \(String(describing: status)): \(app.errors.suffix(600))")
        #expect(Self.criticals(app.errors).isEmpty, "\(Self.criticals(app.errors).count) critical warnings")
    }
}
}
