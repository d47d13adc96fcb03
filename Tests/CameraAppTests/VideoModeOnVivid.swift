@testable import Capture
@testable import CameraModel
import Foundation
import PhotoLibrary
import Testing
import TestSupport

/// True inside `scripts/vm/capture-tests-job`'s vivid steps: vivid is loaded (two webcams).
private let vividLoaded = ProcessInfo.processInfo.environment["PINHOLE_VIVID"] == "1"

/// The app's video mode on the emulated machine (QEMU TCG, about ten times slower than this one,
/// as a low-end ARM laptop or a phone): the camera model, as the window drives it, records vivid
/// at 1280×720 with the real encoder. The recording lasts as long as the app's clock said, its
/// frames spread across it, with honest counts; the window adds nothing to this but drawing.
///
/// The job runs it on its own, after the Capture suites (not matched by their filter): those
/// reload vivid, which a camera held open here would stop.
@MainActor
@Suite("the app's video mode on vivid (inside scripts/vm)", .serialized, .enabled(if: vividLoaded))
struct VideoModeOnVivid {
    @Test("a recording of about 3 s at 1280×720 lasts what the app's clock showed at stop, frames spread evenly, losses said")
    func keepsItsLength() async throws {
        try await Task(priority: .high) { @MainActor in try await record() }.value
    }

    /// Records with a model over vivid's first webcam and checks the movie the library got.
    private func record() async throws {
        let folder = try TemporaryDirectory()
        let camera = try CaptureDevice.device(withID: "/dev/video0")
        // The camera's fastest rate at 1280×720, as the app's video sizes list it.
        let fps = try #require(camera.formats.filter { $0.dimensions == .init(width: 1280, height: 720) && $0.pixelFormat != .grey }
            .flatMap(\.frameIntervals).map(\.framesPerSecond).max(), "no 1280×720 in \(camera.formats)")
        let mode = VideoMode(size: .init(width: 1280, height: 720), framesPerSecond: Int(fps.rounded()))
        let preferences = MemoryPreferences([PreferenceKey.mode: "video", PreferenceKey.videoSize: mode.description])
        let source = CameraSource(cameras: { _ in [camera] }, events: { AsyncStream { $0.finish() } })
        let model = CameraModel(preferences: preferences, library: LibraryLocation(folder: folder.path("library")), testCameras: false, cameras: source)
        var toasts: [String] = []
        let listening = model.events.subscribe { event in if case let .toast(text) = event { toasts.append(text) } }
        defer { listening.cancel() }
        model.setPreviewSize(width: 320, height: 180)
        model.start()

        /// Waits up to a minute (the emulated machine is slow) until `condition` holds.
        func until(_ condition: () -> Bool) async -> Bool { await waitUntil(seconds: 60, condition) }
        defer { model.shutDown() }
        #expect(await until { model.screen == .preview && model.previewFrameCount >= 3 }, "\(model.screen)")
        #expect(model.mode == .video && model.videoMode == mode)
        // The encoder's effort is measured as soon as the video mode streams, ahead of the shutter.
        #expect(await until { model.capture.movies.measurementCount >= 1 }, "no measurement ahead of the recording")

        model.shutter()
        #expect(await until { model.isRecording && model.recordedSeconds > 0 }, "the recording did not start: \(toasts)")
        #expect(await until { model.recordedSeconds >= 3 }, "the app's clock stalled at \(model.recordedSeconds) s")
        let shown = model.recordedSeconds
        model.shutter()
        #expect(await until { !model.isRecording && model.recordingPhase == .idle && model.newestItem != nil }, "not finished: \(toasts)")
        let path = try #require(model.newestItem)
        #expect(path.hasSuffix(".mp4") || path.hasSuffix(".mkv") || path.hasSuffix(".webm"), "\(path)")
        let stream = try ffprobe(path, "stream=width,height")
        #expect(stream["width"] == "1280" && stream["height"] == "720", "\(stream)")
        #expect(try decodesCleanly(path))
        let interval = 1 / fps
        let dropped = toasts.first { $0.contains("frames per second instead of") }
        let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: dropped == nil ? 0 : 1)
        print("app video mode, vivid 1280×720 at \(fps) fps: the app's clock showed \(shown) s at stop; \(account); toasts \(toasts)")
        // Never shorter than the clock the person saw; longer only by the moments a stop takes.
        #expect(account.duration >= shown - interval - 0.002, "\(account); shown \(shown)")
        #expect(account.duration <= shown + 0.5, "\(account); shown \(shown)")
        #expect(account.isSpreadEvenly, "gaps \(account.gapsToTheEnd); \(account)")
        // Honest counts: never more frame times than the recording holds; fewer kept is said.
        #expect(account.accountedSlots <= Int((account.duration * fps).rounded()) + 1, "\(account)")
        if account.times.count + 1 < Int((account.duration * fps).rounded()) {
            #expect(dropped != nil, "frames were left out and not said: \(account); \(toasts)")
        }
        // Quit as the app does, and let the camera go before the next job step reloads vivid.
        model.shutDown()
        #expect(await until { model.screen == .released }, "\(model.screen)")
    }
}
