@testable import CameraModel
import Capture
import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

/// The model's logic without a display or a camera: choices remembered in the preference store,
/// errors turned into the right page and words, the busy camera's holder found.
@MainActor
@Suite("The camera model, without a display")
struct CameraModelTests {
    /// Lets the main actor run what is queued on it now (an observer's redraw) and what that queues.
    static func nextTurns() async {
        for _ in 0..<3 { await Task { @MainActor in }.value }
    }

    func model(_ preferences: MemoryPreferences = MemoryPreferences()) throws -> (CameraModel, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        return (CameraModel(preferences: preferences, library: LibraryLocation(folder: folder.path("library"))), folder)
    }

    @Test("choices are written to the preference store and read back by a new model; a view observing them is redrawn once per change")
    func remembered() async throws {
        let preferences = MemoryPreferences()
        let (first, _) = try model(preferences)
        var shown: [String] = []
        let watching = observe { shown.append("\(first.mode) \(first.flash) \(first.countdown) \(first.showsGrid) \(first.filter)") }
        for change in [{ first.setMode(.video) }, { first.setFlash(.auto) }, { first.setCountdown(5) }, { first.setGrid(true) }, { first.setFilter(.sepia) }] {
            change()
            await Self.nextTurns()
        }
        #expect(shown == ["photo off 0 false none", "video off 0 false none", "video auto 0 false none", "video auto 5 false none",
                          "video auto 5 true none", "video auto 5 true sepia"])
        watching.cancel()
        #expect(preferences.string(PreferenceKey.mode) == "video" && preferences.string(PreferenceKey.flash) == "auto")
        #expect(preferences.int(PreferenceKey.countdown) == 5 && preferences.bool(PreferenceKey.grid) && preferences.string(PreferenceKey.filter) == "sepia")
        let (second, _) = try model(preferences)
        #expect(second.mode == .video && second.flash == .auto && second.countdown == 5 && second.showsGrid && second.filter == .sepia)
    }

    @Test("a preference changed elsewhere (the preferences window, gsettings) is followed by the model and its observers; a value it does not take is ignored")
    func followsPreferences() async throws {
        let preferences = MemoryPreferences()
        let (model, _) = try model(preferences)
        var shown: [String] = []
        let watching = observe { shown.append("\(model.flash) \(model.showsGrid) \(model.countdown)") }
        preferences.setString(PreferenceKey.flash, "auto")
        preferences.setBool(PreferenceKey.grid, true)
        await Self.nextTurns()
        preferences.setInt(PreferenceKey.countdown, 7)
        preferences.setString(PreferenceKey.flash, "sometimes")
        await Self.nextTurns()
        #expect(shown == ["off false 0", "auto true 0"])
        #expect(model.flash == .auto && model.showsGrid && model.countdown == 0)
        watching.cancel()
    }

    @Test("a self-timer other than 0, 3, 5 or 10 s is off; unknown stored values fall back to the defaults")
    func validation() throws {
        let (model, _) = try model(MemoryPreferences([PreferenceKey.mode: "panorama", PreferenceKey.flash: "sometimes", PreferenceKey.filter: "glow"]))
        #expect(model.mode == .photo && model.flash == .off && model.filter == .none)
        model.setCountdown(7)
        #expect(model.countdown == 0)
        #expect(CameraModel.dimensions("1920x1080") == .init(width: 1920, height: 1080))
        #expect(CameraModel.dimensions("") == nil && CameraModel.dimensions("big") == nil)
    }

    @Test("the library asked for by several callers at once is opened once, and all get that one")
    func libraryOpenedOnce() async throws {
        let (model, _) = try model()
        async let first = model.openLibrary()
        async let second = model.openLibrary()
        async let third = model.openLibrary()
        let opened = await [first, second, third]
        let library = try #require(opened[0])
        #expect(opened.allSatisfy { $0 === library })
        #expect(model.library === library)
        #expect(await model.openLibrary() === library)
    }

    @Test("camera errors become the page a person can act on")
    func pages() {
        #expect(CameraWords.screen(for: .noCamera) == .noCamera)
        #expect(CameraWords.screen(for: .deviceNotFound("/dev/video9")) == .noCamera)
        let hint = "It belongs to the group 'video': join it with `sudo usermod -aG video $USER`, then log out and back in."
        #expect(CameraWords.screen(for: .accessDenied(device: "/dev/video0", group: "video")) == .accessDenied(advice: hint))
        #expect(CameraWords.screen(for: .deviceBusy(device: "/dev/video0")) == .busy(program: nil))
        // The camera portal's refusal: the same page, with the desktop's privacy settings as the fix.
        let portal = CameraWords.screen(for: .portalAccessDenied)
        #expect(portal == .accessDenied(advice: "Allow Camera access in Settings → Privacy, then press Retry."))
        #expect(CameraWords.page(for: portal).title == "Camera Access Denied" && CameraWords.page(for: portal).buttons == [.retry])
        guard case let .failed(reason) = CameraWords.screen(for: .streamFailed(device: "Webcam", reason: "VIDIOC_DQBUF: input/output error")) else {
            Issue.record("a stream failure is not the failed page")
            return
        }
        #expect(reason == "Webcam stopped sending pictures (VIDIOC_DQBUF: input/output error).")
        // A photo asked for as the camera stopped: what happened and what to do, not the library's line.
        #expect(CameraWords.translate("The photo could not be taken: %@", CameraWords.reason(.notRunning))
                == "The photo could not be taken: the camera had stopped. Take it again once the preview is back.")
        #expect(CameraWords.translate("Photo in %@ s", "3") == "Photo in 3 s")
        // A value holding %@ (a camera's or a file's name) is not filled in again.
        #expect(CameraWords.translate("%@ stopped sending pictures (%@).", "Cam %@", "EIO") == "Cam %@ stopped sending pictures (EIO).")
    }

    @Test("the program holding a camera node open is named (as fuser finds it)")
    func busyHolder() throws {
        let folder = try TemporaryDirectory()
        let node = folder.path("video-node")
        try Data().write(to: URL(fileURLWithPath: node))
        let holder = try BackgroundProcess(["/bin/bash", "-c", "exec 3<'\(node)'; exec sleep 30"])
        defer { holder.stop() }
        #expect(waitFor(seconds: 10) { BusyCamera.holder(ofNode: node) == "sleep" }, "\(BusyCamera.holder(ofNode: node) ?? "nobody")")
        #expect(BusyCamera.holder(ofNode: folder.path("nothing")) == nil)
    }

    @Test("Ask before saving: Cancel drops the photo without writing; the shutter saves it")
    func pendingPhoto() async throws {
        let (model, folder) = try model(MemoryPreferences([PreferenceKey.askBeforeSaving: true]))
        let photo = try JPEGForTests.small()
        model.holdForConfirmation(photo)
        #expect(model.pendingPhoto == photo)
        model.cancelCountdown()  // Escape
        #expect(model.pendingPhoto == nil)
        let written = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("library/Photos"))) ?? []
        #expect(written.isEmpty, "Cancel wrote \(written)")
        model.holdForConfirmation(photo)
        model.shutter()  // Space / Enter
        #expect(model.pendingPhoto == nil)
        let saved = await waitForNewestItem(model)
        #expect(saved?.hasPrefix(folder.path("library/Photos/")) == true, "\(saved ?? "nothing saved")")
    }

    /// The msgids of the translation template (po/pinhole.pot), continuation lines joined.
    static func templateMessages() throws -> Set<String> {
        let template = try String(contentsOfFile: AppSession.repository + "/po/pinhole.pot", encoding: .utf8)
        var messages = Set<String>(), current: String?
        /// The text between a line's first and last double quote, its escapes undone.
        func quoted(_ line: Substring) -> String {
            guard let first = line.firstIndex(of: "\""), let last = line.lastIndex(of: "\""), first < last else { return "" }
            return String(line[line.index(after: first)..<last]).replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
        }
        for line in template.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("msgid ") {
                current = quoted(line)
            } else if line.hasPrefix("\""), let text = current {
                current = text + quoted(line)
            } else if let text = current {
                messages.insert(text)
                current = nil
            }
        }
        return messages
    }

    @Test("a recording whose frames were dropped to keep up is said once in words of the translation template: the movie's frames per second against the camera's")
    func droppedFramesWords() throws {
        let messages = try Self.templateMessages()
        #expect(CameraModel.droppedFramesWords(kept: 7, camera: 12.5)
                == "The video has 7 frames per second instead of the camera's 12.5: encoding could not keep up, so frames were left out evenly.")
        #expect(CameraModel.droppedFramesWords(kept: 9.64, camera: 30).hasPrefix("The video has 9.6 frames per second instead of the camera's 30:"))
        // A rate just under the camera's gets the decimals (rounded down) that tell it apart.
        #expect(CameraModel.droppedFramesWords(kept: 107_997.0 / 3600, camera: 30).hasPrefix("The video has 29.99 frames per second instead of the camera's 30:"))
        #expect(RecordingSummary.frameRateWords(kept: 29.96, camera: 29.97) == ("29.96", "30"))
        #expect(RecordingSummary.frameRateWords(kept: 12.49, camera: 12.5) == ("12.49", "12.5"))
        #expect(RecordingSummary.frameRateWords(kept: 29.9, camera: 30) == ("29.9", "30"))
        #expect(RecordingSummary.frameRateWords(kept: 7.04, camera: 15) == ("7", "15"))
        #expect(RecordingSummary.frameRateWords(kept: 30, camera: 30) == ("30", "30"))
        #expect(messages.contains("The video has %@ frames per second instead of the camera's %@: encoding could not keep up, so frames were left out evenly."),
                "not in po/pinhole.pot (scripts/translations update)")
    }

    @Test("a file the library refuses to import is said by the case of its reason, in words of the translation template, never the library's own description")
    func importRefusalWords() throws {
        let messages = try Self.templateMessages()
        let cases: [(reason: UnsupportedReason, words: String, message: String)] = [
            (.empty, "the file is empty", "the file is empty"),
            (.notAnImage, "it is not a photo or video", "it is not a photo or video"),
            (.notAMovie, "it is not a video", "it is not a video"),
            (.damaged(.corruptData(format: "JPEG", reason: "the data ends before the image does")), "the file is damaged or incomplete", "the file is damaged or incomplete"),
            (.damaged(.bufferTooShort(needed: 8, actual: 4)), "the file is damaged or incomplete", "the file is damaged or incomplete"),
            (.damaged(.invalidMetadata("bad IFD")), "the file is damaged or incomplete", "the file is damaged or incomplete"),
            (.damaged(.imageTooLarge(width: 100_000, height: 90_000, maximumPixels: 1 << 28)), "the picture is too large to open (100000 × 90000 pixels)",
             "the picture is too large to open (%@ × %@ pixels)"),
            (.damaged(.invalidDimensions(width: 0, height: 4, reason: "the image declares an empty size")), "the picture's size in the file is impossible",
             "the picture's size in the file is impossible"),
            (.damaged(.unsupported("decoding JPEG to NV12")), "its kind of picture or video cannot be read", "its kind of picture or video cannot be read"),
            (.damaged(.io(path: "/tmp/a.jpg", failure: .permissionDenied)), "permission denied", "permission denied"),
            (.damaged(.encoderFailed(format: "PNG", reason: "out of memory")), "it could not be read as a photo or video", "it could not be read as a photo or video"),
        ]
        for (reason, words, message) in cases {
            let said = CameraWords.importReason(.unsupportedFile(path: "/tmp/a.jpg", reason: reason))
            #expect(said == words, "\(reason)")
            #expect(messages.contains(message), "“\(message)” is not in po/pinhole.pot (scripts/translations update)")
            if case let .damaged(error) = reason { #expect(!said.contains(error.description), "\(said)") }
        }
        // The same words in the line the import says.
        var report = ImportReport()
        report.refused = [.init(name: "broken.jpg", reason: CameraWords.importReason(.unsupportedFile(path: "/x/broken.jpg", reason: .damaged(.corruptData(format: "JPEG", reason: "truncated")))))]
        #expect(report.messages == ["Nothing was imported", "broken.jpg could not be imported: the file is damaged or incomplete"])
    }

    @Test("every library error is said in the app's words by its case (a translatable message), never as the library's English line")
    func libraryErrorWords() throws {
        let messages = try Self.templateMessages()
        let cases: [(error: LibraryError, words: String, message: String)] = [
            (.accessDenied(path: "/p/Photos", failure: .permissionDenied), "/p/Photos cannot be used (permission denied). Check the folder's permissions.",
             "%@ cannot be used (%@). Check the folder's permissions."),
            (.index("disk I/O error"), "the library's index failed (disk I/O error)", "the library's index failed (%@)"),
            (.unsupportedFile(path: "/p/a.jpg", reason: .empty), "a.jpg cannot be read as a photo or video: the file is empty", "%@ cannot be read as a photo or video: %@"),
            (.cannotRead(path: "/p/a.jpg", failure: .notFound), "a.jpg cannot be read: the file does not exist", "%@ cannot be read: %@"),
            (.duplicate(path: "/p/a.jpg", existing: "/l/b.jpg"), "a.jpg is already in the library", "%@ is already in the library"),
            (.notFound("42"), "the photo or video is no longer in the library", "the photo or video is no longer in the library"),
            (.albumNotFound("Trips"), "there is no album called “Trips”", "there is no album called “%@”"),
            (.albumExists("Trips"), "an album called “Trips” already exists", "an album called “%@” already exists"),
            (.invalidAlbumName(""), "an album's name must be one line of text, not empty", "an album's name must be one line of text, not empty"),
            (.cannotWrite(path: "/p/a.jpg", failure: .diskFull), "the disk is full; free some space", "the disk is full; free some space"),
            (.cannotTrash(path: "/p/a.jpg", failure: .readOnly), "a.jpg could not be moved to the Trash: the disk is read-only", "%@ could not be moved to the Trash: %@"),
            (.damagedTrashEntry(path: "/t/info/a.jpg.trashinfo"), "the Trash entry a.jpg.trashinfo does not say where its file came from",
             "the Trash entry %@ does not say where its file came from"),
            (.cannotExport(id: "42", reason: "no room"), "the copy could not be made (no room)", "the copy could not be made (%@)"),
        ]
        for (error, words, message) in cases {
            #expect(CameraWords.reason(error) == words, "\(error)")
            #expect(CameraWords.reason(error) != error.description)
            #expect(messages.contains(message), "“\(message)” is not in po/pinhole.pot (scripts/translations update)")
        }
        #expect(CameraWords.words(.system(errno: EIO)) == String(cString: strerror(EIO)))
    }

    func waitForNewestItem(_ model: CameraModel) async -> String? {
        for _ in 0..<200 {
            if let item = model.newestItem { return item }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}

/// A small real JPEG (from Media's encoder) for the model's save path.
enum JPEGForTests {
    static func small() throws -> [UInt8] {
        let pixels = try PixelBuffer(format: .bgra, width: 64, height: 48, bytes: [UInt8](repeating: 128, count: 64 * 48 * 4))
        return try JPEGEncoder().encode(pixels, quality: 90)
    }
}
