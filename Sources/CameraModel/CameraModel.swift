import Capture
import Glibc
import Media
import Observation
import PhotoLibrary

/// The camera window's state and everything it does, free of GTK: it owns the capture session
/// and the photo library, and the views draw what it holds and call its methods (as AVCam's
/// `CameraModel`). It lives on the main actor, which in the app is the GLib main loop; every call
/// that waits on a device, the disk or another thread runs elsewhere and comes back here.
///
/// Views observe it: what they read inside `observe { … }` redraws them when it changes
/// (`@Observable`); what happens once (a toast, the shutter's blink) comes through `events`.
@MainActor
@Observable
public final class CameraModel {
    // MARK: State the views draw

    /// What fills the window.
    public internal(set) var screen: CameraScreen = .starting {
        didSet {
            // A shutter asked for from outside while the camera was not showing its picture
            // (`shutterWhenReady`): pressed once the preview runs, forgotten if a page says why it cannot.
            settleWaitingShutter()
        }
    }
    /// Held by `shutterWhenReady` until the camera shows its picture or cannot.
    @ObservationIgnored var waitingShutter: WorkInFlight.Ticket?
    /// The cameras the app offers (real ones; the test cameras when chosen), in discovery order.
    public private(set) var cameras: [CaptureDevice] = []
    /// The camera in use.
    public private(set) var camera: CaptureDevice?
    /// The camera was unplugged while in use: the preview is dimmed until it returns.
    public private(set) var isDisconnected = false
    /// Photo or video.
    public private(set) var mode: CaptureMode
    /// Flash setting.
    public private(set) var flash: FlashSetting
    /// Self-timer seconds (0: off).
    public private(set) var countdown: Int
    /// Rule-of-thirds grid.
    public private(set) var showsGrid: Bool
    /// The live filter.
    public private(set) var filter: LiveFilter
    /// Seconds left of a running self-timer.
    public internal(set) var countdownRemaining: Int?
    /// A recording is in progress.
    public internal(set) var isRecording = false
    /// The recording's clock runs: its file has started. A recording is `isRecording` from the
    /// press on, while its encoder and microphone start (up to a second or more on a slow
    /// machine); the window says it records only from here, so what it shows is what is kept.
    public internal(set) var isRecordingRolling = false
    /// The recording is paused.
    public internal(set) var isRecordingPaused = false
    /// A photo is being taken (the shutter is busy).
    public internal(set) var isCapturing = false
    /// The newest item this window saved (its path), for the thumbnail button.
    public internal(set) var newestItem: String?
    /// The freedesktop thumbnail of `newestItem`.
    public internal(set) var newestThumbnail: String?
    /// Photos waiting for Save or Cancel ("Ask before saving"), the one shown first: a burst's
    /// photos wait in turn, none replaced unseen.
    public internal(set) var pendingPhotos: [[UInt8]] = []
    /// The photo shown for Save or Cancel (the first waiting).
    public var pendingPhoto: [UInt8]? { pendingPhotos.first }
    /// Photos discarded from the confirmation, newest last, for Undo.
    @ObservationIgnored var discardedPhotos: [[UInt8]] = []
    /// The app is quitting (or its window went): no new shutter, recording or import starts;
    /// what is in flight finishes.
    public internal(set) var isQuitting = false
    /// Every capture, save, recording and import in flight (see `WorkInFlight`).
    public let work = WorkInFlight()
    /// The camera's control values as last read or set (see `availableControls`).
    public internal(set) var controlValues: [ControlID: Int64] = [:]
    /// The test cameras are offered (the user chose them on the "No Camera Found" page, or the
    /// app was started with PINHOLE_TEST_CAMERA=1).
    public private(set) var usesTestCameras: Bool

    /// The window is white at full brightness while a photo is taken ("screen flash").
    public internal(set) var isScreenFlashOn = false
    /// The system should not suspend: a recording is running.
    public internal(set) var inhibitsSuspend = false

    // MARK: What happens once

    /// A toast to show, the shutter's blink and sound, a photo saved or discarded.
    public let events = Broadcast<CameraEvent>()
    /// The newest frame for the preview (filled on the camera's side, read by the view).
    public let mailbox = FrameMailbox()
    /// The gallery page's state (over the same library).
    @ObservationIgnored public private(set) lazy var gallery = GalleryModel(work: work) { [unowned self] in await self.openLibrary() }
    /// Imports files and folders into the same library (Import…, files dropped on the window).
    @ObservationIgnored public private(set) lazy var importer = LibraryImport(work: work) { [unowned self] () async -> Result<PhotoLibrary, LibraryError> in
        if let library = await self.openLibrary() { return .success(library) }
        return .failure(self.libraryError ?? .index("the library did not open"))
    }

    // MARK: Parts

    /// The preferences (GSettings in the app).
    public let preferences: PreferenceStore
    /// The session and its outputs, and every call that waits on the camera.
    let capture: CaptureService
    let libraryLocation: LibraryLocation
    @ObservationIgnored var library: PhotoLibrary?
    @ObservationIgnored var libraryError: LibraryError?
    /// The library's opening while it is under way, shared by every caller that waits for it.
    @ObservationIgnored var opening: Task<PhotoLibrary?, Never>?
    /// Where a recording is in its life: a stop asked for while it starts is kept for when it has.
    enum RecordingPhase { case idle, starting, recording, stopping }
    @ObservationIgnored var recordingPhase = RecordingPhase.idle
    @ObservationIgnored var stopWhenStarted = false
    /// The running recording's work in flight, ended when its movie is indexed.
    @ObservationIgnored var recordingTicket: WorkInFlight.Ticket?
    @ObservationIgnored var saidNoMicrophone = false
    @ObservationIgnored var countdownTask: Task<Void, Never>?
    /// The photos being taken (one, or a burst), until the last is saved.
    @ObservationIgnored var captureTask: Task<Void, Never>?
    @ObservationIgnored var retryTask: Task<Void, Never>?
    @ObservationIgnored private var watchers: [Task<Void, Never>] = []
    @ObservationIgnored var wantsCamera = true
    /// Whether `start()` has run.
    @ObservationIgnored private var started = false
    @ObservationIgnored var generation = 0
    /// The model's following of `preferences.changes`.
    @ObservationIgnored private var preferenceWatch: Subscription?
    /// Follows the accelerometer for the camera in use (see CameraModel+Rotation).
    @ObservationIgnored var rotationTask: Task<Void, Never>?
    /// The angles from the accelerometer for the camera in use (0, 0 without one).
    @ObservationIgnored var deviceAngles = RotationCoordinator.Angles(preview: 0, capture: 0)

    /// A model over `library` (the user's by default) with `preferences`; `testCameras` offers the
    /// virtual cameras from the start. Nothing is opened until `start()`.
    public convenience init(preferences: PreferenceStore, library: LibraryLocation = .user, testCameras: Bool = false) {
        self.init(preferences: preferences, library: library, testCameras: testCameras, cameras: .system)
    }

    /// A model whose cameras come from `cameras` (the system's in the app; a test's own
    /// `VirtualCamera.Pair` in the model's tests).
    init(preferences: PreferenceStore, library: LibraryLocation, testCameras: Bool, cameras source: CameraSource) {
        self.preferences = preferences
        libraryLocation = library
        usesTestCameras = testCameras
        mode = CaptureMode(rawValue: preferences.string(PreferenceKey.mode)) ?? .photo
        flash = FlashSetting(rawValue: preferences.string(PreferenceKey.flash)) ?? .off
        countdown = preferences.int(PreferenceKey.countdown)
        showsGrid = preferences.bool(PreferenceKey.grid)
        filter = LiveFilter(rawValue: preferences.string(PreferenceKey.filter)) ?? .none
        capture = CaptureService(mailbox: mailbox, cameras: source)
        applyFilter()
        applyMirroring()
        preferenceWatch = preferences.changes.subscribe { [weak self] key in self?.preferenceChanged(key) }
        capture.photos.screenFlash.withLock { handler in
            handler = { [weak self] on in
                await MainActor.run { self?.isScreenFlashOn = on }
                // Let the white window reach the screen (and the scene) before the frame is taken.
                if on { try? await Task.sleep(for: .milliseconds(250)) }
            }
        }
    }

    /// Stops following the session and the cameras' coming and going (the device watcher's
    /// thread ends with it).
    isolated deinit {
        for watcher in watchers { watcher.cancel() }
    }

    // MARK: Lifetime

    /// Opens the library, finds the cameras and starts the preview; follows cameras coming and
    /// going and the session's interruptions from then on. The camera is found and opened on a
    /// worker thread from this call on, so an app that calls it before building its window has
    /// both done at once. Calls after the first do nothing.
    public func start() {
        guard !started else { return }
        started = true
        let attempt = beginAttempt()
        let includeTest = usesTestCameras, last = preferences.string(PreferenceKey.lastCamera), wanted = videoMode, capture = self.capture
        // Found and opened on the capture service while the library opens.
        let opening = Task { () -> CameraOpening in
            let found = await capture.cameras(includeTest: includeTest)
            guard let device = CameraModel.preferredCamera(in: found, last: last) else { return CameraOpening(cameras: found) }
            return CameraOpening(cameras: found, device: device, result: await capture.open(device, wanted: wanted))
        }
        Task {
            if await openLibrary() == nil, let error = libraryError {
                toast(CameraWords.translate("The photo library cannot be opened: %@", CameraWords.reason(error)))
            }
        }
        watchSession()
        watchDevices()
        Task {
            let opened = await opening.value
            cameras = opened.cameras
            if let device = opened.device, let result = opened.result {
                await finishStart(device, result: result, attempt: attempt)
            } else if attempt == generation {
                await startCamera()
            }
        }
    }

    /// The camera page became visible (true) or hidden (false): the camera is let go while
    /// hidden, so its light goes off, and taken again on return.
    public func setCameraVisible(_ visible: Bool) {
        guard visible != wantsCamera, !isQuitting else { return }
        wantsCamera = visible
        if visible {
            Task { await startCamera() }
        } else if !isRecording {
            countdownTask?.cancel()
            retryTask?.cancel()
            generation += 1
            // A photo being taken is finished first: the camera let go under it lost it.
            let photos = captureTask
            Task {
                await photos?.value
                // Shown again meanwhile: the camera is wanted (and was opened again).
                guard !wantsCamera else { return }
                await capture.stop()
                if !wantsCamera { screen = .released }
            }
        }
    }

    // MARK: Cameras

    /// Re-reads the camera list (on the capture service: discovery opens every node).
    func refreshCameras() async {
        let includeTest = usesTestCameras
        cameras = await capture.cameras(includeTest: includeTest)
    }

    /// The camera to open: the one used last when present, else a back camera, else the first.
    func preferredCamera() -> CaptureDevice? {
        CameraModel.preferredCamera(in: cameras, last: preferences.string(PreferenceKey.lastCamera))
    }

    /// Offers the test cameras ("Use Test Camera" on the "No Camera Found" page) and starts one.
    public func useTestCameras() {
        usesTestCameras = true
        Task { await refreshCameras(); await startCamera() }
    }

    /// Opens the preferred camera (or `device`) and starts the preview, or shows why it cannot.
    func startCamera(_ device: CaptureDevice? = nil) async {
        guard wantsCamera else { return }
        let attempt = beginAttempt()
        guard let device = device ?? camera.flatMap({ current in cameras.first { $0.uniqueID == current.uniqueID } }) ?? preferredCamera() else {
            camera = nil
            // No camera because the camera portal refused (or is missing): say that, not "No Camera Found".
            screen = CaptureDevice.accessProblem(for: .video).map { CameraWords.screen(for: $0) } ?? .noCamera
            return
        }
        let result = await capture.open(device, wanted: videoMode)
        await finishStart(device, result: result, attempt: attempt)
    }

    /// A new attempt to start the camera: earlier ones still under way are ignored when they end.
    private func beginAttempt() -> Int {
        retryTask?.cancel()
        generation += 1
        if screen != .preview { screen = .starting }
        return generation
    }

    /// Shows what opening `device` gave: the preview, or the page saying why not (unless a newer
    /// attempt has begun since).
    private func finishStart(_ device: CaptureDevice, result: Result<Void, CaptureError>, attempt: Int) async {
        guard attempt == generation else {
            // Hidden while it opened: a stop asked for between the configuration and the start
            // ran first, and the camera (and its light) would stay on behind the gallery.
            if !wantsCamera, !isRecording { await capture.stop() }
            return
        }
        if camera?.uniqueID != device.uniqueID || rotationTask == nil { followRotation(of: device) }
        camera = device
        preferences.setString(PreferenceKey.lastCamera, device.uniqueID)
        applyMirroring()
        switch result {
        case .success:
            isDisconnected = false
            screen = .preview
            await refreshControlValues()
            prepareRecording()
        case let .failure(error):
            // Which program holds a busy camera: read from /proc off the main thread.
            var holder: String?
            if case .deviceBusy = error, let path = device.path {
                holder = await Task.detached { BusyCamera.holder(ofNode: path) }.value
                guard attempt == generation else { return }
            }
            screen = CameraWords.screen(for: error, busyHolder: holder)
            if case .busy = screen { retryWhileBusy() }
        }
    }

    /// Tries again (the Retry button), or by itself every two seconds while the camera is busy.
    /// After a refusal, access is asked for again first (through the camera portal: its dialog,
    /// unless the desktop's privacy settings hold the answer).
    public func retry() {
        let denied = screen.isAccessDenied
        Task {
            if denied { _ = await CaptureDevice.requestAccess(for: .video) }
            await refreshCameras()
            await startCamera()
        }
    }

    private func retryWhileBusy() {
        retryTask?.cancel()
        retryTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                guard !Task.isCancelled, let self, case .busy = self.screen else { return }
                await self.startCamera()
            }
        }
    }

    /// Switches to the next camera in the list (the preview changes without reopening anything
    /// else: the outputs stay).
    public func switchCamera() {
        guard !isRecording, cameras.count > 1 else { return }
        let index = camera.flatMap { current in cameras.firstIndex { $0.uniqueID == current.uniqueID } } ?? -1
        let next = cameras[(index + 1) % cameras.count]
        Task { await startCamera(next) }
    }

    /// Whether there is another camera to switch to.
    public var canSwitchCamera: Bool { cameras.count > 1 }

    func applyMirroring() {
        capture.video.connection.isVideoMirroredOverride = preferences.bool(PreferenceKey.mirrorFront) ? nil : false
        applyRotation()
    }

    // MARK: Watching

    private func watchSession() {
        let events = capture.session.events()
        watchers.append(Task { [weak self] in
            for await event in events {
                guard let self else { return }
                self.handle(event)
            }
        })
    }

    private func handle(_ event: CaptureSession.Event) {
        switch event {
        case .interrupted(.deviceDisconnected):
            isDisconnected = true
            if isRecording { Task { await stopRecording() } }
        case .interruptionEnded:
            isDisconnected = false
            screen = .preview
        case let .runtimeError(error):
            if isRecording { Task { await stopRecording() } }
            screen = CameraWords.screen(for: error)
        default:
            break
        }
    }

    private func watchDevices() {
        let events = capture.cameraSource.events()
        watchers.append(Task { [weak self] in
            for await _ in events {
                guard let self else { return }
                await self.refreshCameras()
                if self.screen == .noCamera { await self.startCamera() }
            }
        })
    }

    // MARK: Settings

    /// Photo or video mode (remembered).
    public func setMode(_ mode: CaptureMode) {
        guard !isRecording, mode != self.mode else { return }
        self.mode = mode
        preferences.setString(PreferenceKey.mode, mode.rawValue)
        prepareRecording()
    }

    /// In video mode with the preview running, has the encoder measured on the camera's frames
    /// ahead of the first recording at this size (`MovieFileOutput.prepareRecording`), so that
    /// pressing record starts the recording's clock at once rather than after a measurement.
    func prepareRecording() {
        guard mode == .video, screen == .preview, !isRecording else { return }
        let movies = capture.movies
        Task { await movies.prepareRecording() }
    }

    /// Flash off / on / auto (remembered).
    public func setFlash(_ flash: FlashSetting) {
        self.flash = flash
        preferences.setString(PreferenceKey.flash, flash.rawValue)
    }

    /// Self-timer seconds: 0, 3, 5 or 10 (remembered).
    public func setCountdown(_ seconds: Int) {
        countdown = [0, 3, 5, 10].contains(seconds) ? seconds : 0
        preferences.setInt(PreferenceKey.countdown, countdown)
    }

    /// Shows or hides the grid (remembered).
    public func setGrid(_ shown: Bool) {
        showsGrid = shown
        preferences.setBool(PreferenceKey.grid, shown)
    }

    /// The live filter (remembered): shown in the preview and applied to saved photos.
    public func setFilter(_ filter: LiveFilter) {
        self.filter = filter
        applyFilter()
        preferences.setString(PreferenceKey.filter, filter.rawValue)
    }

    /// Gives the preview the current filter and the frame format it needs.
    private func applyFilter() {
        capture.preview.setFilter(filter)
        let format = PreviewSink.pixelFormat(for: filter)
        if capture.video.videoSettings.pixelFormat != format { capture.video.videoSettings.pixelFormat = format }
    }

    /// The microphones a recording can take sound from (asked off the main thread: the sound
    /// server may take up to two seconds to answer; none without one).
    public func microphones() async -> [Microphone] {
        await Task.detached { Microphone.DiscoverySession().devices }.value
    }

    /// Follows a preference changed outside the model (the preferences window, `gsettings set`):
    /// mirroring is applied, and a choice the header shows is taken (the mode only while not
    /// recording). A change the model made itself reads back what it holds and does nothing.
    func preferenceChanged(_ key: String) {
        switch key {
        case PreferenceKey.mirrorFront:
            applyMirroring()
        case PreferenceKey.mode:
            if let stored = CaptureMode(rawValue: preferences.string(key)), stored != mode, !isRecording { mode = stored }
        case PreferenceKey.flash:
            if let stored = FlashSetting(rawValue: preferences.string(key)), stored != flash { flash = stored }
        case PreferenceKey.countdown:
            let stored = preferences.int(key)
            if [0, 3, 5, 10].contains(stored), stored != countdown { countdown = stored }
        case PreferenceKey.grid:
            if preferences.bool(key) != showsGrid { showsGrid = preferences.bool(key) }
        case PreferenceKey.filter:
            if let stored = LiveFilter(rawValue: preferences.string(key)), stored != filter {
                filter = stored
                applyFilter()
            }
        default:
            break
        }
    }

    // MARK: Helpers

    /// Makes the preview's frames no larger than `width`×`height` pixels (the view's size on
    /// screen, aspect ratio kept), so the view draws each frame 1:1 instead of scaling it on the
    /// UI thread; 0 (a view not yet laid out) delivers the camera's size.
    public func setPreviewSize(width: Int, height: Int) {
        let limit = width > 0 && height > 0 ? CaptureDevice.Dimensions(width: width, height: height) : nil
        guard capture.video.videoSettings.maximumDimensions != limit else { return }
        capture.video.videoSettings.maximumDimensions = limit
    }

    /// Whether the camera is streaming now (tests read it: the camera is let go while hidden).
    public var isCameraRunning: Bool { capture.session.isRunning }

    /// Frames that reached the preview's queue so far (tests and the benchmark).
    public var previewFrameCount: Int { capture.preview.frameCount }

    /// Frames the preview output dropped because the previous one was still being handled.
    public var previewDroppedFrames: Int { capture.video.droppedFrameCount }

    /// Frames the camera sent that the preview did not ask for (a window paced to its screen,
    /// `FrameMailbox.setPaced`), let go before any conversion.
    public var previewUnrequestedFrames: Int { capture.video.unrequestedFrameCount }

    /// Asks the views for a toast with `text`.
    func toast(_ text: String) { events.send(.toast(text)) }
}

/// Where the model finds cameras and hears of them coming and going.
struct CameraSource: Sendable {
    /// The cameras the app offers; the test cameras too when asked for (on the capture service:
    /// discovery opens every node).
    let cameras: @Sendable (_ includeTest: Bool) -> [CaptureDevice]
    /// Cameras plugged in and unplugged from now on.
    let events: @Sendable () -> AsyncStream<DeviceEvent>

    /// The system's cameras and the test pair (`CaptureDevice.DiscoverySession`).
    static let system = CameraSource(cameras: { CameraModel.usableCameras(includeTest: $0) },
                                     events: { CaptureDevice.DiscoverySession().deviceEvents() })
}

/// The cameras found at start, and the one opened with how that went.
struct CameraOpening: Sendable {
    /// The cameras the app offers.
    var cameras: [CaptureDevice]
    /// The camera chosen (nil: none).
    var device: CaptureDevice?
    /// How opening it went (nil: none was opened).
    var result: Result<Void, CaptureError>?
}

/// What the camera model tells its views once (state they draw is observed instead).
public enum CameraEvent: Sendable, Equatable {
    /// A one-line message for a toast.
    case toast(String)
    /// The shutter fired: a visual blink and the shutter sound.
    case shutter
    /// A photo was saved into the library (its path).
    case photoSaved(String)
    /// A photo waiting for confirmation was discarded: offer Undo (`undoDiscard`).
    case photoDiscarded
}
