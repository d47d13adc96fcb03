@testable import CameraModel
import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

/// The choke point of "work in flight when the user moves on" (issue 19): every capture, save,
/// recording, import and Save As goes through the model's `WorkInFlight`, which holds the app
/// while anything is in flight and which quitting waits on.
@MainActor
@Suite("Work in flight, without a display")
struct WorkInFlightTests {
    @Test("the registry says busy once at the first ticket and idle once after the last; a ticket ends once; drained waits for the last")
    func registry() async {
        let work = WorkInFlight()
        var told: [Bool] = []
        work.onBusyChange = { told.append($0) }
        let photo = work.begin(.photo), save = work.begin(.save)
        #expect(told == [true] && work.count == 2 && work.running[.photo] == 1)
        photo.end()
        photo.end()
        #expect(told == [true] && work.count == 1, "an ended ticket counted twice")
        let waited = Task { await work.drained() }
        save.end()
        await waited.value
        #expect(told == [true, false] && !work.isBusy)
        let mine = work.begin(.shutDown), other = work.begin(.export)
        let besides = Task { await work.drained(besides: 1) }
        other.end()
        await besides.value
        #expect(work.count == 1)
        mine.end()
    }

    @Test("Save on a waiting photo is in flight before it returns, and the model's shutdown ends only once the photo is on disk")
    func saveIsInFlightUntilShutDownEnds() async throws {
        let folder = try TemporaryDirectory()
        let model = CameraModel(preferences: MemoryPreferences([PreferenceKey.askBeforeSaving: true]), library: LibraryLocation(folder: folder.path("library")))
        model.holdForConfirmation(try JPEGForTests.small())
        model.savePendingPhoto()
        #expect(model.work.running[.save] == 1, "the save was not registered before the action returned")
        model.shutDown()
        #expect(model.work.running[.shutDown] == 1)
        await model.work.drained()
        let photos = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("library/Photos"))) ?? []
        #expect(photos.filter { $0.hasSuffix(".jpg") }.count == 1, "on disk when the work ended: \(photos)")
    }

    @Test("photos of a burst wait in turn; B while one waits takes nothing; Cancel keeps it for Undo; quitting keeps what waits")
    func pendingQueue() async throws {
        let folder = try TemporaryDirectory()
        let model = CameraModel(preferences: MemoryPreferences([PreferenceKey.askBeforeSaving: true]), library: LibraryLocation(folder: folder.path("library")))
        var discarded = 0
        let discards = model.events.subscribe { if $0 == .photoDiscarded { discarded += 1 } }
        defer { discards.cancel() }
        // Three different photos (the library keeps one copy of identical ones).
        let photos = try (0..<3).map { shade in
            try JPEGEncoder().encode(try PixelBuffer(format: .bgra, width: 64, height: 48, bytes: [UInt8](repeating: UInt8(40 + 60 * shade), count: 64 * 48 * 4)), quality: 90)
        }
        for photo in photos { model.holdForConfirmation(photo) }
        #expect(model.pendingPhotos.count == 3)
        model.burst()
        #expect(model.work.begun[.photo] == nil && model.pendingPhotos.count == 3, "B took photos over those waiting")
        model.discardPendingPhoto()
        #expect(model.pendingPhotos.count == 2 && discarded == 1)
        model.undoDiscard()
        #expect(model.pendingPhotos.count == 3)
        model.keepPendingPhotos()
        #expect(model.pendingPhotos.isEmpty && model.work.running[.save] == 3)
        await model.work.drained()
        let written = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("library/Photos"))) ?? []
        #expect(written.filter { $0.hasSuffix(".jpg") }.count == 3, "\(written)")
    }

    @Test("every call in the app that captures, records, imports, exports or writes into the library runs in a function that takes a work ticket")
    func everyWritePathHoldsATicket() throws {
        let calls = [".capturePhoto(", ".addPhoto(", "movies.startRecording(", "movies.stopRecording(", ".importFile(", ".export(id:", "addVideo("]
        var found = 0
        for folder in ["Sources/CameraModel", "Sources/pinhole-camera"] {
            let root = AppSession.repository + "/" + folder
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            for file in files {
                let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where calls.contains(where: { line.contains($0) }) {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//"), !code.contains("func ") else { continue }
                    found += 1
                    let enclosing = lines[..<number].last { $0.contains("func ") } ?? ""
                    #expect(enclosing.contains("WorkInFlight.Ticket"), "\(folder)/\(file):\(number + 1) writes outside work in flight (in: \(enclosing.trimmingCharacters(in: .whitespaces)))")
                }
            }
        }
        // Capture, save, start and stop of a recording, its indexing, import, Save As.
        #expect(found >= 7, "the scan found only \(found) calls: it no longer sees the app's write paths")
    }

    @Test("Wayland visibility: off every monitor is hidden (back on one, visible); frames that stop being painted for a few seconds are hidden until the next paint")
    func surfaceVisibility() {
        var visibility = SurfaceVisibility()
        #expect(!visibility.isHidden)
        var changed = visibility.enteredMonitor()
        #expect(!changed)
        changed = visibility.leftMonitor()
        #expect(changed && visibility.isHidden)
        changed = visibility.enteredMonitor()
        #expect(changed && !visibility.isHidden)
        // Painting as frames come: visible.
        changed = visibility.painted(framesGiven: 30, at: 10)
        #expect(!changed)
        changed = visibility.check(framesGiven: 60, at: 11)
        #expect(!changed)
        // Frames keep coming, nothing painted for 3 s: hidden; the next paint shows it again.
        changed = visibility.check(framesGiven: 90, at: 12)
        #expect(!changed)
        changed = visibility.check(framesGiven: 120, at: 13)
        #expect(changed && visibility.isHidden)
        changed = visibility.painted(framesGiven: 121, at: 13.5)
        #expect(changed && !visibility.isHidden)
        // No frames (the camera was let go for the gallery): no paint is no stall.
        changed = visibility.check(framesGiven: 121, at: 30)
        #expect(!changed && !visibility.isHidden)
    }
}
