import Capture
import Glibc
import Media
import PhotoLibrary

/// The camera's side of the app (as AVCam's `CaptureService`): the capture session and its
/// outputs — the preview's video data, photos, movies — and every call that waits on the camera,
/// run on this actor, never on the main thread. The main-actor `CameraModel` keeps what the
/// window shows and forwards the person's intents here; what comes back is a value (a result, a
/// summary), never a callback into the model.
///
/// The outputs' settings that the preview and the rotation change many times a second
/// (connection angles, mirroring, the preview's size and pixel format) are thread-safe in
/// `Capture` and are set directly through the `nonisolated` outputs, without a hop.
actor CaptureService {
    /// The session every output is attached to.
    nonisolated let session = CaptureSession()
    /// Frames for the preview.
    nonisolated let video = VideoDataOutput()
    /// Still photos.
    nonisolated let photos = PhotoOutput()
    /// Recordings.
    nonisolated let movies = MovieFileOutput()
    /// Turns the video output's frames into the preview's (filters, the newest-wins mailbox).
    nonisolated let preview: PreviewSink
    /// Where cameras are found.
    nonisolated let cameraSource: CameraSource
    /// The microphone of the running recording (stopped with it).
    private var sound: AudioDataOutput?

    /// A service whose preview frames go to `mailbox`, over the cameras of `cameras`; nothing is
    /// opened until `open`.
    init(mailbox: FrameMailbox, cameras: CameraSource) {
        cameraSource = cameras
        preview = PreviewSink(mailbox: mailbox)
        video.setSampleBufferDelegate(preview, queue: preview.queue)
        // A window that shows frames at its screen's pace has only those converted.
        mailbox.setPacer(setPaced: { [video] in video.deliversOnRequest = $0 }, request: { [video] in video.requestFrame() })
        session.sessionPreset = .high
        session.addOutput(video)
        session.addOutput(photos)
        session.addOutput(movies)
    }

    // MARK: Cameras

    /// The cameras the app offers (discovery opens every node: it runs here, not on the main thread).
    func cameras(includeTest: Bool) -> [CaptureDevice] {
        cameraSource.cameras(includeTest)
    }

    /// Makes `device` the session's input streaming `wanted` (else the default preset), and starts
    /// it, once the photos being taken are done (a camera switched under a photo lost it).
    func open(_ device: CaptureDevice, wanted: VideoMode?) async -> Result<Void, CaptureError> {
        opens += 1
        await waitUntil { !changing && photosTaking == 0 }
        changing = true
        defer {
            changing = false
            wake()
        }
        return await CameraModel.open(device, wanted: wanted, in: session)
    }

    /// Stops the session (the camera and its light go off), once the photos being taken are done:
    /// the camera page left under a photo (the gallery opened, the window minimised) lost it.
    /// A stop overtaken by an `open` while it waited does nothing: the camera is wanted again.
    func stop() async {
        let asked = opens
        await waitUntil { !changing && photosTaking == 0 }
        guard asked == opens else { return }
        changing = true
        defer {
            changing = false
            wake()
        }
        await session.stop()
    }

    // MARK: The session's changes and the photos in between

    /// Whether `open` or `stop` is under way (the actor is reentrant: each awaits the session).
    private var changing = false
    /// How many `open`s have been asked for (a stop asked for before the last one is dropped).
    private var opens = 0
    /// Photos being taken now.
    private var photosTaking = 0
    /// Calls waiting for the session to settle or the photos to be done (`waitUntil`).
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Returns once `condition` holds, checked again each time the session settles or a photo is done.
    private func waitUntil(_ condition: () -> Bool) async {
        while !condition() { await withCheckedContinuation { waiters.append($0) } }
    }

    /// An `open`, a `stop` or a photo is done: whoever waits looks again.
    private func wake() {
        let waiting = waiters
        waiters = []
        for waiter in waiting { waiter.resume() }
    }

    /// Makes the running session stream `mode` on `camera` (nil: the default preset); the error
    /// when the camera refuses it.
    func setVideoMode(_ mode: VideoMode?, on camera: CaptureDevice) async -> CaptureError? {
        do throws(CaptureError) {
            session.beginConfiguration()
            try CameraModel.chooseStream(mode, on: camera, in: session)
            await session.commitConfiguration()
            return nil
        } catch {
            await session.commitConfiguration()
            return error
        }
    }

    // MARK: Controls

    /// The current values of `camera`'s controls `ids` (those it cannot read are left out).
    func values(of ids: [ControlID], on camera: CaptureDevice) -> [ControlID: Int64] {
        var values: [ControlID: Int64] = [:]
        for id in ids { if let value = try? camera.value(of: id) { values[id] = value } }
        return values
    }

    /// Sets a control of `camera`; the error when the camera refuses the value.
    func setControl(_ id: ControlID, to value: Int64, on camera: CaptureDevice) -> CaptureError? {
        do throws(CaptureError) {
            try camera.lockForConfiguration()
            defer { camera.unlockForConfiguration() }
            try camera.setValue(value, of: id)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Photos

    /// Takes a photo with `settings`, with `filter` applied to its pixels: the file's bytes. It
    /// runs under the shutter press's `ticket` (as every write path: see `WorkInFlight`).
    func takePhoto(_ settings: PhotoSettings, filter: LiveFilter, under ticket: WorkInFlight.Ticket) async -> Result<[UInt8], CaptureError> {
        await Self.check(ticket, "a photo is taken")
        // Not while the session starts or stops: a photo asked for then found it not running.
        await waitUntil { !changing }
        photosTaking += 1
        defer {
            photosTaking -= 1
            wake()
        }
        do throws(CaptureError) {
            let photo = try await photos.capturePhoto(with: settings)
            return .success(try CameraModel.filtered(photo, filter))
        } catch {
            return .failure(error)
        }
    }

    /// Stops a debug build when `ticket` has already ended: `what` would run outside its work in
    /// flight, and quitting could cut it short.
    private static func check(_ ticket: WorkInFlight.Ticket, _ what: String) async {
        let ended = await ticket.isEnded
        assert(!ended, "\(what) outside its work in flight")
    }

    // MARK: Movies

    /// How a recording's start went.
    struct RecordingStart: Sendable {
        /// Why there is no sound (no microphone, or it failed to start), when there is none.
        var soundProblem: CaptureError?
        /// Why the recording did not start, when it did not.
        var failure: CaptureError?
    }

    /// Starts recording a movie into `folder`, named by `date` (the next free name if another
    /// recording took it meanwhile), with sound from the microphone `microphoneID` ("" or one not
    /// plugged in: the default) when there is one, under the recording's `ticket`.
    func startRecording(in folder: String, date: Double, microphoneID: String, under ticket: WorkInFlight.Ticket) async -> RecordingStart {
        await Self.check(ticket, "a recording starts")
        mkdirs(folder)
        var soundProblem: CaptureError?
        let discovery = Microphone.DiscoverySession()
        let microphone = microphoneID.isEmpty ? discovery.defaultDevice : discovery.devices.first { $0.uniqueID == microphoneID } ?? discovery.defaultDevice
        if let microphone {
            let output = AudioDataOutput(settings: .init(channels: microphone.nativeChannelCount >= 2 ? .stereo : .mono, microphoneID: microphone.uniqueID))
            do throws(CaptureError) {
                try await output.start()
                sound = output
            } catch {
                soundProblem = error
            }
        } else {
            soundProblem = discovery.unavailableReason ?? .noMicrophone
        }
        movies.recordSound(from: sound)
        // Named by the time to the millisecond; a name another recording took meanwhile (the
        // CLI's, started in the same millisecond) gives way to the next free one.
        var attempts = 0
        while true {
            do throws(CaptureError) {
                try await movies.startRecording(to: PhotoLibrary.newVideoPath(in: folder, date: date, extension: "mp4"), timeout: 10)
                return RecordingStart(soundProblem: soundProblem)
            } catch {
                if case .recordingFailed(_, .file(.exists, _)) = error, attempts < 10 {
                    attempts += 1
                    continue
                }
                await sound?.stop()
                sound = nil
                return RecordingStart(soundProblem: soundProblem, failure: error)
            }
        }
    }

    /// How a recording ended.
    struct RecordingEnd: Sendable {
        /// The finished movie (nil: none was written).
        var summary: RecordingSummary?
        /// What ended it, when something did (a limit reached, or a failure).
        var error: CaptureError?
    }

    /// Stops the recording and its sound, under the recording's `ticket`.
    func stopRecording(under ticket: WorkInFlight.Ticket) async -> RecordingEnd {
        await Self.check(ticket, "a recording finishes")
        let summary = await movies.stopRecording()
        await sound?.stop()
        sound = nil
        return RecordingEnd(summary: summary, error: movies.lastError)
    }
}
