@_spi(Testing) import Capture
@testable import CameraModel
import PhotoLibrary
import Testing
import TestSupport

/// The camera's states as the model goes through them, in-process: each test has a pair of test
/// cameras of its own (`VirtualCamera.Pair`, faults no other test sees), so the tests run at once.
/// They check the model's screen, the words the window shows for it (`CameraWords.page(for:)`),
/// which camera is used, and that the preview's frames arrive again. The window's side of the same
/// states (the page read through accessibility, the dimmed pixels, the buttons) is
/// `AppStateTests.cameraStates`, in one launch.
@MainActor
@Suite("The camera's states in the model, without a display")
struct CameraStateTests {
    /// A started model over a test pair of its own, with a library in a temporary folder.
    @MainActor
    final class Rig {
        /// The test's own cameras.
        let pair = VirtualCamera.Pair()
        /// The library's folder.
        let folder: TemporaryDirectory
        /// The model under test.
        let model: CameraModel

        /// A model offering the pair (none when `testCameras` is false: "No Camera Found"), with
        /// `faults` set on both cameras before it starts; no real camera is offered.
        init(testCameras: Bool = true, faults: VirtualCamera.Faults = .init()) throws {
            folder = try TemporaryDirectory()
            let pair = self.pair
            for camera in pair.devices { pair.updateFaults(of: camera) { $0 = faults } }
            let source = CameraSource(cameras: { includeTest in includeTest ? pair.devices : [] }, events: { pair.deviceEvents() })
            model = CameraModel(preferences: MemoryPreferences(), library: LibraryLocation(folder: folder.path("library")), testCameras: testCameras,
                                cameras: source)
            // Small preview frames: several models stream at once on a busy machine.
            model.setPreviewSize(width: 320, height: 180)
            model.start()
        }

        /// Changes the faults of both cameras.
        func faults(_ change: (inout VirtualCamera.Faults) -> Void) {
            for camera in pair.devices { pair.updateFaults(of: camera, change) }
        }

        /// Waits (up to `patience`) until `condition` holds, letting the model run meanwhile.
        func until(_ condition: () -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(patience)
            while !condition() {
                if ContinuousClock.now > deadline { return false }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return true
        }

        /// Whether the preview is shown and new frames reach it (three more than now).
        func previewRuns() async -> Bool {
            guard await until({ model.screen == .preview && !model.isDisconnected }) else { return false }
            let seen = model.previewFrameCount
            return await until { model.previewFrameCount >= seen + 3 }
        }

        /// The words the window shows now.
        var page: StatusPageWords { CameraWords.page(for: model.screen) }

        /// Quits the model as the app does and checks that the camera was let go.
        func finish() async {
            model.shutDown()
            #expect(await until { model.screen == .released }, "\(model.screen)")
            #expect(!model.isCameraRunning)
        }
    }

    /// Runs `body` with a rig, and quits its model afterwards, also when `body` threw.
    ///
    /// It runs as a high-priority task, and so does the model's work started from it (its tasks
    /// and the capture service's jobs inherit the priority): the other suites in this process
    /// fill the cooperative pool (one thread per core, two here) with long synchronous tests —
    /// decoding, encoding, the library — queued ahead, and at the default priority the model's
    /// jobs waited behind them for more than the tests' patience. In the app nothing else
    /// competes for the pool.
    func withRig(testCameras: Bool = true, faults: VirtualCamera.Faults = .init(), _ body: @escaping @MainActor (Rig) async throws -> Void) async throws {
        try await Task(priority: .high) { @MainActor in
            let rig = try Rig(testCameras: testCameras, faults: faults)
            do {
                try await body(rig)
            } catch {
                await rig.finish()
                throw error
            }
            await rig.finish()
        }.value
    }

    @Test("no camera: \"No Camera Found\" with Use Test Camera, which starts the front test camera, mirrored")
    func noCamera() async throws {
        try await withRig(testCameras: false) { rig in
            #expect(await rig.until { rig.model.screen == .noCamera }, "\(rig.model.screen)")
            #expect(rig.page.title == "No Camera Found")
            #expect(rig.page.body == "Connect a camera, or check that it is switched on and not covered by a privacy switch. Pinhole starts it as soon as it appears.")
            #expect(rig.page.buttons.map(\.label) == ["Use Test Camera"])
            #expect(!rig.model.isCameraRunning)
            rig.model.useTestCameras()
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            let camera = try #require(rig.model.camera)
            #expect(camera.uniqueID == rig.pair.front.uniqueID, "the front test camera is chosen first")
            #expect(rig.model.capture.video.connection.isVideoMirrored(for: camera), "the front camera's preview is mirrored")
            #expect(rig.model.cameras.map(\.uniqueID) == rig.pair.devices.map(\.uniqueID))
        }
    }

    @Test("no camera at start (both unplugged): \"No Camera Found\", the camera off; a camera plugged in meanwhile is used at once, without a click")
    func cameraPluggedIn() async throws {
        try await withRig(faults: .init(unplugged: true)) { rig in
            #expect(await rig.until { rig.model.screen == .noCamera }, "\(rig.model.screen)")
            #expect(rig.page.title == "No Camera Found")
            #expect(!rig.model.isCameraRunning)
            rig.pair.updateFaults(of: rig.pair.front) { $0.unplugged = false }
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            #expect(rig.model.camera?.uniqueID == rig.pair.front.uniqueID)
            #expect(rig.model.isCameraRunning)
        }
    }

    @Test("busy: the page says the camera is in use and that Pinhole tries again; once it is free the preview comes back by itself")
    func busy() async throws {
        try await withRig(faults: .init(busy: true)) { rig in
            #expect(await rig.until { rig.model.screen == .busy(program: nil) }, "\(rig.model.screen)")
            #expect(rig.page.title == "The Camera Is in Use by Another App")
            #expect(rig.page.body == "Close the other app, or stop its camera; Pinhole tries again by itself.")
            #expect(rig.page.buttons == [.retry] && rig.page.buttons.map(\.label) == ["Retry"])
            #expect(CameraWords.page(for: .busy(program: "cheese")).body == "It is used by “cheese”. Close it, or stop its camera; Pinhole tries again by itself.")
            rig.faults { $0.busy = false }
            #expect(await rig.previewRuns(), "no Retry pressed: \(rig.model.screen)")
        }
    }

    @Test("access denied: \"Camera Access Denied\" names the group and the command; Retry brings the preview once access is given")
    func accessDenied() async throws {
        try await withRig(faults: .init(accessDenied: true)) { rig in
            let advice = "It belongs to the group 'video': join it with `sudo usermod -aG video $USER`, then log out and back in."
            #expect(await rig.until { rig.model.screen == .accessDenied(advice: advice) }, "\(rig.model.screen)")
            #expect(rig.page.title == "Camera Access Denied")
            #expect(rig.page.body == "You may not use the camera. " + advice)
            #expect(rig.page.buttons.map(\.label) == ["Retry"])
            #expect(!rig.model.isCameraRunning)
            rig.faults { $0.accessDenied = false }
            rig.model.retry()
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
        }
    }

    @Test("unplugged while running: the preview is kept, dimmed with a message, and resumes when the camera returns")
    func unplugged() async throws {
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.pair.updateFaults(of: rig.pair.front) { $0.unplugged = true }
            #expect(await rig.until { rig.model.isDisconnected }, "\(rig.model.screen)")
            #expect(rig.model.screen == .preview, "the dimmed preview, not a page")
            #expect(CameraWords.disconnected == "Camera disconnected — plug it back in")
            rig.pair.updateFaults(of: rig.pair.front) { $0.unplugged = false }
            #expect(await rig.previewRuns(), "the preview did not resume: \(rig.model.screen), disconnected \(rig.model.isDisconnected)")
            #expect(rig.model.camera?.uniqueID == rig.pair.front.uniqueID)
        }
    }

    @Test("a fatal camera error: \"The Camera Stopped Working\" with the reason and Retry, which brings the preview back")
    func fatal() async throws {
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.pair.updateFaults(of: rig.pair.front) { $0.fatalError = true }
            let reason = "Pinhole Test Camera (front) stopped sending pictures (fatal streaming error)."
            #expect(await rig.until { rig.model.screen == .failed(reason: reason) }, "\(rig.model.screen)")
            #expect(rig.page.title == "The Camera Stopped Working")
            #expect(rig.page.body == reason)
            #expect(rig.page.buttons.map(\.label) == ["Retry"])
            rig.model.retry()
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
        }
    }

    @Test("paced as the window paces it: a frame is converted only when asked for, the camera's others are counted and let go, a switched camera's first frame comes unasked, and unpaced every frame comes again")
    func pacedPreview() async throws {
        try await withRig { rig in
            let model = rig.model, video = model.capture.video
            #expect(await rig.previewRuns(), "\(model.screen)")
            model.mailbox.setPaced(true)
            // Pacing has begun once a frame goes unasked (the frame asked for as it began came first).
            let unasked = model.previewUnrequestedFrames
            #expect(await rig.until { model.previewUnrequestedFrames > unasked })
            let delivered = video.deliveredFrameCount
            #expect(await rig.until { model.previewUnrequestedFrames >= unasked + 6 })
            #expect(video.deliveredFrameCount == delivered, "no frame converted unasked")
            // One request, one frame, however many the camera sends after it.
            model.mailbox.requestFrame()
            #expect(await rig.until { video.deliveredFrameCount == delivered + 1 })
            let later = model.previewUnrequestedFrames
            #expect(await rig.until { model.previewUnrequestedFrames >= later + 4 })
            #expect(video.deliveredFrameCount == delivered + 1)
            // Another camera: its first frame comes without a request (the window may be waiting).
            model.switchCamera()
            #expect(await rig.until { model.camera?.uniqueID == rig.pair.back.uniqueID && video.deliveredFrameCount >= delivered + 2 },
                    "\(model.screen), delivered \(video.deliveredFrameCount - delivered)")
            model.mailbox.setPaced(false)
            #expect(await rig.previewRuns(), "\(model.screen)")
        }
    }

    @Test("switched to a camera another app holds: the busy page, and that camera's preview (not the other's) once it is free")
    func switchedToBusy() async throws {
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.pair.updateFaults(of: rig.pair.back) { $0.busy = true }
            rig.model.switchCamera()
            #expect(await rig.until { rig.model.screen == .busy(program: nil) }, "\(rig.model.screen)")
            rig.pair.updateFaults(of: rig.pair.back) { $0.busy = false }
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            let camera = try #require(rig.model.camera)
            #expect(camera.uniqueID == rig.pair.back.uniqueID)
            #expect(!rig.model.capture.video.connection.isVideoMirrored(for: camera), "the back camera's preview is not mirrored")
        }
    }

    @Test("hidden (minimised, the gallery shown): the camera is let go, \"Camera Paused\"; shown again, the preview comes back")
    func released() async throws {
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.setCameraVisible(false)
            #expect(await rig.until { rig.model.screen == .released && !rig.model.isCameraRunning }, "\(rig.model.screen)")
            #expect(rig.page.title == "Camera Paused")
            #expect(rig.page.body == "The camera is off while Pinhole is in the background.")
            #expect(rig.page.buttons.isEmpty)
            rig.model.setCameraVisible(true)
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
        }
    }

    @Test("two pairs of test cameras do not share faults: one made busy leaves the other streaming")
    func ownFaults() async throws {
        let other = VirtualCamera.Pair()
        #expect(Set(other.devices.map(\.uniqueID)).isDisjoint(with: [VirtualCamera.frontID, VirtualCamera.backID]))
        try await withRig { rig in
            #expect(Set(rig.pair.devices.map(\.uniqueID)).isDisjoint(with: other.devices.map(\.uniqueID)))
            other.updateFaults(of: other.front) { $0.unplugged = true }
            other.updateFaults(of: other.back) { $0.busy = true }
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            #expect(rig.model.camera?.isConnected == true && other.front.isConnected == false)
        }
    }

    /// What the model said while `body` ran: the photos saved and the toasts.
    @MainActor
    final class Said {
        var saved: [String] = []
        var toasts: [String] = []
    }

    @Test("the shutter pressed and the camera page left at once (the gallery opened, the window minimised): the photo is still taken and saved, then the camera is let go (the monkey's seed 3, step 2)")
    func photoInFlightWhenHidden() async throws {
        try await withRig { rig in
            let said = Said()
            let watch = rig.model.events.subscribe { event in
                switch event {
                case let .photoSaved(path): said.saved.append(path)
                case let .toast(text): said.toasts.append(text)
                default: break
                }
            }
            defer { watch.cancel() }
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.shutter()
            rig.model.setCameraVisible(false)
            #expect(await rig.until { said.saved.count == 1 || !said.toasts.isEmpty }, "neither saved nor said")
            #expect(said.saved.count == 1 && said.toasts.isEmpty, "\(said.toasts)")
            #expect(await rig.until { rig.model.screen == .released && !rig.model.isCameraRunning }, "\(rig.model.screen)")
            // Shown again, the shutter, hidden and shown again at once: the photo is saved and the preview runs.
            rig.model.setCameraVisible(true)
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.shutter()
            rig.model.setCameraVisible(false)
            rig.model.setCameraVisible(true)
            #expect(await rig.until { said.saved.count == 2 || !said.toasts.isEmpty }, "neither saved nor said")
            #expect(said.saved.count == 2 && said.toasts.isEmpty, "\(said.toasts)")
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            #expect(rig.model.isCameraRunning)
        }
    }

    @Test("hidden and shown again at once, a script's take-photo (shutterWhenReady) takes its photo once the camera runs again, not on the camera being let go (the monkey's seed 2)")
    func shutterWhileReleasing() async throws {
        try await withRig { rig in
            let said = Said()
            let watch = rig.model.events.subscribe { event in
                switch event {
                case let .photoSaved(path): said.saved.append(path)
                case let .toast(text): said.toasts.append(text)
                default: break
                }
            }
            defer { watch.cancel() }
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.setCameraVisible(false)
            rig.model.setCameraVisible(true)
            rig.model.shutterWhenReady()
            #expect(await rig.until { said.saved.count == 1 || !said.toasts.isEmpty }, "neither saved nor said")
            #expect(said.saved.count == 1 && said.toasts.isEmpty, "\(said.toasts)")
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
        }
    }

    @Test("the shutter pressed twice in video mode before the recording started: the second press stops it (or keeps it from starting), so nothing is left recording or in flight and a quit ends (the monkey's seed 1796353223, step 1606: a recording's work in flight was never ended and held the quit)")
    func recordPressedTwice() async throws {
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.setMode(.video)
            rig.model.shutter()
            rig.model.shutter()
            #expect(await rig.until { !rig.model.work.isBusy }, "still in flight: \(rig.model.work.running)")
            #expect(!rig.model.isRecording)
            rig.model.shutDown()
            #expect(await rig.until { !rig.model.work.isBusy }, "still in flight: \(rig.model.work.running)")
        }
        // A script's record and a key press in the same turn of the main loop.
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.setMode(.video)
            rig.model.shutterWhenReady()
            rig.model.shutter()
            rig.model.shutterWhenReady()
            #expect(await rig.until { !rig.model.isRecording && rig.model.recordingPhase == .idle }, "still recording")
            rig.model.shutDown()
            #expect(await rig.until { !rig.model.work.isBusy }, "still in flight: \(rig.model.work.running)")
        }
    }

    @Test("a script's record or take-photo while the camera starts, the camera page left again before it ran, then a quit: the shutter that can no longer be pressed is forgotten, and the quit ends (the monkey's seed 1796422715, step 2029: the app never exited, 'waitingShutter' in flight)")
    func quitWithShutterWaitingOnReleasedCamera() async throws {
        for mode in [CaptureMode.video, .photo] {
            try await withRig { rig in
                #expect(await rig.previewRuns(), "\(rig.model.screen)")
                rig.model.setMode(mode)
                rig.model.setCameraVisible(false)
                #expect(await rig.until { rig.model.screen == .released }, "\(rig.model.screen)")
                // The script's action shows the camera page and waits for the camera; the person
                // opens the gallery again before it runs.
                rig.model.setCameraVisible(true)
                rig.model.shutterWhenReady()
                rig.model.setCameraVisible(false)
                #expect(await rig.until { rig.model.screen == .released }, "\(rig.model.screen)")
                rig.model.shutDown()
                #expect(await rig.until { !rig.model.work.isBusy }, "\(mode): still in flight: \(rig.model.work.running)")
                #expect(!rig.model.isRecording)
            }
        }
    }

    @Test("quit just after a recording is asked for (Space in video mode, or a script's record while the camera starts): the recording is not left running, so the quit ends (the monkey's seed 7, step 24: the app never exited)")
    func quitJustAfterRecord() async throws {
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.setMode(.video)
            rig.model.shutter()
            rig.model.shutDown()
            #expect(await rig.until { !rig.model.work.isBusy }, "still in flight: \(rig.model.work.running)")
            #expect(!rig.model.isRecording)
        }
        try await withRig { rig in
            #expect(await rig.previewRuns(), "\(rig.model.screen)")
            rig.model.setMode(.video)
            rig.model.setCameraVisible(false)
            #expect(await rig.until { rig.model.screen == .released }, "\(rig.model.screen)")
            rig.model.setCameraVisible(true)
            rig.model.shutterWhenReady()
            rig.model.shutDown()
            #expect(await rig.until { !rig.model.work.isBusy }, "still in flight: \(rig.model.work.running)")
            #expect(!rig.model.isRecording)
        }
    }
}
