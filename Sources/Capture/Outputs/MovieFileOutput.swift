import Dispatch
import Glibc
import Media

/// Records the session's camera (and, with `audioDataOutput` set, a microphone) into a movie
/// file: H.264 + AAC in MP4 by default, VP9/VP8 + Opus in WebM as an option (see `MovieWriter`:
/// fragmented while recording, so a crash leaves a playable file; regular once finished).
///
/// Frames are converted to I420 once on the camera's thread into a small pool (MJPEG decodes
/// straight to YUV planes) and encoded on the output's own thread. Before the recording's clock
/// starts, a few of the camera's frames measure the encoder: when the x264 preset asked for cannot
/// keep up with the camera on this machine, "ultrafast" is used. When encoding still falls behind,
/// frames are left out evenly (one kept every so often, adjusted as the encoder's backlog grows
/// or clears) and counted as dropped: the movie keeps its length and the driver's timestamps, with
/// fewer frames per second (`RecordingSummary.keptFrameRate`), and memory stays bounded (a pool
/// that still runs dry drops frames too, counted likewise). Timestamps are the driver's, so
/// variable frame timing stays correct; the last frame lasts until the recording's end.
public final class MovieFileOutput: FrameConsumer {
    /// Container, codecs and quality of new recordings.
    public struct Options: Sendable, Equatable {
        /// Container and codecs.
        public var format: MovieSettings.Format
        /// Constant-rate factor or bit rate.
        public var quality: MovieSettings.Quality
        /// x264 preset asked for. A measurement on the camera's first frames picks "ultrafast"
        /// instead when this one cannot keep up with the camera on this machine (see
        /// `RecordingSummary.preset`).
        public var preset: String
        /// Options (MP4, CRF 23, veryfast).
        public init(format: MovieSettings.Format = .mp4, quality: MovieSettings.Quality = .constantRateFactor(23), preset: String = "veryfast") {
            self.format = format
            self.quality = quality
            self.preset = preset
        }
    }

    /// What the camera's and the microphone's threads queue for the encoding thread: a frame
    /// with its timestamp, or interleaved samples with their channel count and timestamp.
    enum Item {
        case video(PixelBuffer, Int64)
        case audio([Int16], Int, Int64)
    }

    /// The output's settings and its current recording, under `state`'s lock.
    struct State {
        var options = Options()
        var fragmentInterval = 1.0
        var maxDuration: Double?
        var maxFileSize: Int64?
        var minFreeDiskSpace: Int64 = 0
        var audio: (sampleRate: Int, channels: Int)?
        var recording: Recording?
        var lastError: CaptureError?
        var lastSummary: RecordingSummary?
        var soundSource: AudioDataOutput?
        var frameRate = 30
        /// The camera's frame interval in seconds (`frameRate` is its rounded rate).
        var frameInterval = 1.0 / 30
        var mirrorScratch: PixelBuffer?
        var encoderPatience = 60.0
        var encoderStartDelay = 0.0
        /// See `encoderFrameDelay`.
        var encoderFrameDelay = 0.0
        /// The stream's frame size (set when it starts): what a recording's encoder is measured at.
        var frameSize: (width: Int, height: Int)?
        /// Frames being taken from the camera to measure an encoder (at most one measurement at a time).
        var sampler: EncoderSampler?
        /// Encoders measured on this machine, by what they were measured for (see `chooseEffort`).
        var efforts: [EffortKey: Effort] = [:]
        /// Encoder measurements made (see `measurementCount`).
        var measurements = 0
    }

    /// One recording in progress, shared by the camera thread, the encoding thread and callers.
    final class Recording: @unchecked Sendable {
        let path: String
        let delegate: (any MovieFileOutputRecordingDelegate)?
        let options: Options
        let fragmentInterval: Double
        let limits: (duration: Double?, size: Int64?, freeSpace: Int64)
        let audio: (sampleRate: Int, channels: Int)?
        let startedAt = SystemClock.wallClockSeconds()
        let wake = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        struct Shared {
            var queue: [Item] = []
            var stopping = false
            var paused = false
            var pausedAt: Int64 = 0
            var pauseOffset: Int64 = 0
            var pool: PixelBufferPool?
            var spare: [[Int16]] = []
            var dropped = 0
            var skipped = 0
            /// Frames the camera delivered since the recording began, whatever became of them
            /// (recorded, dropped, paused or past the limit): tells a silent camera from a slow encoder.
            var received = 0
            /// FFmpeg and the encoder are open and measured: frames are taken from now on (the
            /// recording's first frame, and its clock, come after the encoder's start-up).
            var encoderReady = false
            /// Frames the camera delivered within the recording's window (from its first frame
            /// to its end, pauses excluded): every one is recorded or dropped.
            var windowFrames = 0
            /// Frames taken from the camera's thread and being converted, not yet queued: the
            /// encoding thread waits for them before it finishes the file.
            var converting = 0
            /// The newest frame's time within the window, kept or not (after pause offsets).
            var lastWindowTime: Int64?
            /// The camera's frame interval in nanoseconds (set when the recording begins).
            var cameraInterval: Int64 = 33_333_333
            /// Nanoseconds between the frames kept when encoding cannot keep up with every one
            /// (0: every frame is kept); the encoding thread adjusts it as it goes.
            var keepInterval: Int64 = 0
            /// When the next frame is due to be kept (with `keepInterval`), so that the frames
            /// left out are spread evenly.
            var nextDue: Int64?
            /// The first frame's time (after pause offsets): the duration limit counts from it.
            var firstTime: Int64?
            /// The last frame's time within the duration limit (after pause offsets).
            var lastTime: Int64?
            /// A frame at or past the duration limit arrived: the recording ends.
            var pastLimit = false
            /// The end (timestamp plus length, after pause offsets) of the newest sound queued.
            var soundEnd: Int64?
            /// The file's sound is complete: after a stop, sound reaching up to the picture's end
            /// is still taken (it was captured before the stop but is still on its way) until this
            /// is set.
            var soundClosed = false
            var frames = 0
            var duration: Double = 0
            var size: Int64 = 0
            var summary: RecordingSummary?
            var error: CaptureError?
            var waiters: [CheckedContinuation<RecordingSummary, Never>] = []

            /// Where the movie ends: at its duration limit when that ended it, else one frame
            /// interval past the last frame the camera sent within it (kept or not: frames left
            /// out make fewer frames per second, not a shorter movie); nil before the first frame.
            func end(limit: Double?) -> Int64? {
                if pastLimit, let first = firstTime, let limit { return first + Int64(limit * 1e9) }
                return lastWindowTime.map { $0 + cameraInterval }
            }

            /// A free frame from the recording's pool (made at the first frame's size), or nil
            /// when every one is in use (the encoder is behind) or the size changed. The encoding
            /// thread makes the whole pool resident when the first frame reaches it
            /// (`makeResident`), so a recording's memory is what it is after its first second,
            /// however far the encoder falls behind later (an hour at 1080p grew by 5 buffers,
            /// 15 MiB, when they were made as needed). Not here: writing 24 MiB on the camera's
            /// thread made an emulated camera skip frames at a recording's start.
            mutating func buffer(width: Int, height: Int) -> PixelBuffer? {
                if pool == nil {
                    pool = try? PixelBufferPool(format: .i420, width: width, height: height, rowAlignment: 64,
                                                maximumCount: MovieFileOutput.poolSize, preallocate: 3)
                }
                guard let pool, pool.width == width, pool.height == height else { return nil }
                return pool.makeBuffer()
            }
        }
        let shared = Lock(Shared())

        init(path: String, delegate: (any MovieFileOutputRecordingDelegate)?, options: Options, fragmentInterval: Double,
             limits: (Double?, Int64?, Int64), audio: (sampleRate: Int, channels: Int)?) {
            self.path = path
            self.delegate = delegate
            self.options = options
            self.fragmentInterval = fragmentInterval
            self.limits = limits
            self.audio = audio
        }
    }

    /// Settings and the current recording.
    let state = Lock(State())
    /// Converts camera frames to I420 for the encoder.
    let converter = PixelConverter()
    /// The connection to the camera (front cameras are not mirrored in saved movies, as in photos).
    public let connection = CaptureConnection(mirrorsFrontCameraByDefault: false)

    /// Frames a recording may hold between the camera and the encoder.
    static let poolSize = 8

    /// Makes an output (MP4, one-second fragments, no limits, silent until `audioSettings` is set).
    public init() {}

    /// Container, codecs and quality of the next recording.
    public var options: Options {
        get { state.withLock { $0.options } }
        set { state.withLock { $0.options = newValue } }
    }

    /// Seconds between fragments: the most a crash can lose (1 s by default).
    public var movieFragmentInterval: Double {
        get { state.withLock { $0.fragmentInterval } }
        set { state.withLock { $0.fragmentInterval = max(0.1, newValue) } }
    }

    /// A recording that reaches this length is finished (nil: no limit).
    public var maxRecordedDuration: Double? {
        get { state.withLock { $0.maxDuration } }
        set { state.withLock { $0.maxDuration = newValue } }
    }

    /// A recording whose file reaches this size in bytes is finished (nil: no limit).
    public var maxRecordedFileSize: Int64? {
        get { state.withLock { $0.maxFileSize } }
        set { state.withLock { $0.maxFileSize = newValue } }
    }

    /// A recording is finished when the disk's free space falls below this many bytes (0: until
    /// the disk is full, after which the file keeps its complete fragments).
    public var minFreeDiskSpaceLimit: Int64 {
        get { state.withLock { $0.minFreeDiskSpace } }
        set { state.withLock { $0.minFreeDiskSpace = max(0, newValue) } }
    }

    /// The sound the next recording expects through `appendAudio` (sample rate, channels), or nil
    /// for a silent movie. Set by whoever feeds the microphone (see `AudioDataOutput`).
    public var audioSettings: (sampleRate: Int, channels: Int)? {
        get { state.withLock { $0.audio } }
        set { state.withLock { $0.audio = newValue } }
    }

    /// Records `audio`'s microphone into this output's movies (its buffers come through a
    /// delegate on a queue of the movie's; the output itself is started and stopped by the
    /// caller), or, with nil, makes silent movies. Takes effect at the next `startRecording`.
    public func recordSound(from audio: AudioDataOutput?) {
        let previous = state.withLock { state -> AudioDataOutput? in
            let old = state.soundSource
            state.soundSource = audio
            state.audio = audio.map { (AudioDataOutput.Settings.sampleRate, $0.audioSettings.channels.rawValue) }
            return old
        }
        previous?.setSampleBufferDelegate(nil, queue: nil)
        audio?.setSampleBufferDelegate(SoundFeed(movie: self), queue: DispatchQueue(label: "pinhole.movie-sound"))
    }

    /// Whether a recording is in progress (until its file is finished).
    public var isRecording: Bool { state.withLock { $0.recording != nil } }

    /// Whether the recording is paused.
    public var isRecordingPaused: Bool { current?.shared.withLock { $0.paused } ?? false }

    /// Length of the current recording so far, in seconds.
    public var recordedDuration: Double { current?.shared.withLock { $0.duration } ?? 0 }

    /// Size of the current recording's file so far, in bytes.
    public var recordedFileSize: Int64 { current?.shared.withLock { $0.size } ?? 0 }

    /// Frames recorded so far in the current recording.
    public var recordedFrameCount: Int { current?.shared.withLock { $0.frames } ?? 0 }

    /// Frames dropped so far in the current recording (the encoder fell behind).
    public var droppedFrameCount: Int { current?.shared.withLock { $0.dropped } ?? 0 }

    /// Frames the camera skipped so far in the current recording (gaps in its sequence numbers).
    public var skippedFrameCount: Int { current?.shared.withLock { $0.skipped } ?? 0 }

    /// Frames the camera has delivered since the current recording began, whatever became of
    /// them: while it grows the camera is sending, even when the encoder (still starting, or
    /// slow) has put none of them in the file. A watchdog for a silent camera reads this.
    public var receivedFrameCount: Int { current?.shared.withLock { $0.received } ?? 0 }

    /// How long the async `startRecording` waits, after its `timeout`, for the encoder to take
    /// the first frame once the camera is sending: opening FFmpeg and the encoder takes seconds
    /// on a slow, busy machine (60 s unless set).
    public var encoderPatience: Double {
        get { state.withLock { $0.encoderPatience } }
        set { state.withLock { $0.encoderPatience = max(0, newValue) } }
    }

    /// For tests: how long the encoding thread waits before opening the movie writer, as a slow
    /// machine's first FFmpeg load does (cut short by a stop).
    var encoderStartDelay: Double {
        get { state.withLock { $0.encoderStartDelay } }
        set { state.withLock { $0.encoderStartDelay = newValue } }
    }

    /// For tests: seconds the encoding thread spends on top of encoding each video frame (the
    /// measurement at the start included), as a slow machine's encoder does.
    var encoderFrameDelay: Double {
        get { state.withLock { $0.encoderFrameDelay } }
        set { state.withLock { $0.encoderFrameDelay = max(0, newValue) } }
    }

    private var current: Recording? { state.withLock { $0.recording } }

    // MARK: - Recording

    /// Starts recording to `path` (which must not exist; its folder must). Frames flow once the
    /// session runs; `delegate` hears when the file starts and when it is finished.
    public func startRecording(to path: String, delegate: (any MovieFileOutputRecordingDelegate)?) throws(CaptureError) {
        var info = stat()
        if stat(path, &info) == 0 { throw .recordingFailed(path: path, cause: .file(.exists, kept: false)) }
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        guard access(folder.isEmpty ? "/" : folder, W_OK) == 0 else {
            throw .recordingFailed(path: path, cause: .file(FileFailure(errno: errno), kept: false))
        }
        let recording = try state.withLock { state throws(CaptureError) -> Recording in
            guard state.recording == nil else { throw .recordingFailed(path: path, cause: .alreadyRecording) }
            let recording = Recording(path: path, delegate: delegate, options: state.options, fragmentInterval: state.fragmentInterval,
                                      limits: (state.maxDuration, state.maxFileSize, state.minFreeDiskSpace), audio: state.audio)
            state.recording = recording
            return recording
        }
        pthread_detach(StreamingThread.start { [self] in encode(recording) })
    }

    /// Starts recording to `path` (see the delegate form) and returns once the first frame is in
    /// the file; throws when the file cannot be started, or when the recording ends before it
    /// begins: no frame from the camera within `timeout` seconds (the session is not running, or
    /// the camera sends nothing), or frames arriving but none taken by the encoder within
    /// `encoderPatience` more (`encoderStalled`). A slow encoder start is waited for, not taken
    /// for a silent camera.
    public func startRecording(to path: String, timeout: Double = 10) async throws(CaptureError) {
        let started = StartSignal()
        try startRecording(to: path, delegate: started)
        guard let recording = current else { return }
        let patience = encoderPatience
        let outcome = await started.wait { elapsed in
            let received = recording.shared.withLock { $0.received }
            return elapsed >= (received == 0 ? timeout : timeout + patience)
        }
        switch outcome {
        case .started: return
        case let .failed(error): throw error
        case .timedOut:
            let received = recording.shared.withLock { $0.received }
            requestStop(recording)
            _ = await finished(recording)
            throw .recordingFailed(path: path, cause: received == 0 ? .noFrame(seconds: timeout) : .encoderStalled(seconds: timeout + patience))
        }
    }

    private func requestStop(_ recording: Recording) {
        recording.shared.withLock { $0.stopping = true }
        recording.wake.signal()
    }

    /// Finishes the recording (frames stop, the encoder drains, the file is finished) and returns
    /// its summary once the file is complete; nil when nothing was recording. Errors (a full
    /// disk) are in `lastError` and the delegate call. Callers that only ask for the stop (a
    /// signal handler) run it in a `Task` and let the delegate or `waitUntilFinished()` report.
    @discardableResult
    public func stopRecording() async -> RecordingSummary? {
        guard let recording = current else { return nil }
        requestStop(recording)
        return await finished(recording)
    }

    /// Waits for the current recording to end (by `stopRecording`, a limit or an error); when it
    /// has ended already, the last recording's summary (nil if there was none).
    @discardableResult
    public func waitUntilFinished() async -> RecordingSummary? {
        guard let recording = current else { return lastSummary }
        return await finished(recording)
    }

    /// The summary of the last finished recording.
    public var lastSummary: RecordingSummary? { state.withLock { $0.lastSummary } }

    /// The error that ended the last recording, if one did.
    public var lastError: CaptureError? { state.withLock { $0.lastError } }

    private func finished(_ recording: Recording) async -> RecordingSummary {
        await withCheckedContinuation { continuation in
            let summary = recording.shared.withLock { shared -> RecordingSummary? in
                if let summary = shared.summary { return summary }
                shared.waiters.append(continuation)
                return nil
            }
            if let summary { continuation.resume(returning: summary) }
        }
    }

    /// Stops recording frames without ending the file; `resumeRecording()` goes on where it left off
    /// (the pause leaves no gap in the movie).
    public func pauseRecording() {
        current?.shared.withLock { shared in
            guard !shared.paused else { return }
            shared.paused = true
            shared.pausedAt = SystemClock.monotonicNanoseconds()
        }
    }

    /// Resumes a paused recording.
    public func resumeRecording() {
        current?.shared.withLock { shared in
            guard shared.paused else { return }
            shared.paused = false
            shared.pauseOffset += SystemClock.monotonicNanoseconds() - shared.pausedAt
        }
    }

    /// Adds interleaved 16-bit sound captured at `timestampNanoseconds` (CLOCK_MONOTONIC) to the
    /// recording, in the `audioSettings` it was started with; ignored when not recording.
    public func appendAudio(_ samples: UnsafeBufferPointer<Int16>, timestampNanoseconds: Int64) {
        guard let recording = current, recording.audio != nil else { return }
        let channels = recording.audio?.channels ?? 1, rate = recording.audio?.sampleRate ?? 48_000
        let queued = recording.shared.withLock { shared -> Bool in
            guard !shared.paused, !shared.soundClosed else { return false }
            let time = timestampNanoseconds - shared.pauseOffset
            // Once stopping, only sound that began before the picture's end still belongs.
            if shared.stopping, time >= shared.end(limit: recording.limits.duration) ?? .min { return false }
            // At most ~5 s of sound waits for a stalled encoder (bounded memory); beyond, it is dropped.
            guard shared.queue.count < 500 else { return false }
            // Sound is small; a chunk reused from earlier ones avoids allocating per buffer.
            var chunk = shared.spare.popLast() ?? []
            chunk.removeAll(keepingCapacity: true)
            chunk.append(contentsOf: samples)
            shared.queue.append(.audio(chunk, samples.count, time))
            shared.soundEnd = time + Int64(samples.count / max(channels, 1)) * 1_000_000_000 / Int64(max(rate, 1))
            return true
        }
        if queued { recording.wake.signal() }
    }

    // MARK: - FrameConsumer

    func streamWillStart(_ configuration: StreamConfiguration, device: CaptureDevice) throws(CaptureError) {
        let rate = Int(configuration.frameInterval.framesPerSecond.rounded())
        let interval = configuration.frameInterval.seconds
        state.withLock {
            $0.frameRate = rate > 0 ? rate : 30
            $0.frameInterval = interval > 0 ? interval : 1.0 / 30
            $0.frameSize = (configuration.width, configuration.height)
        }
    }

    func streamDidStop() {}

    func consume(_ frame: RawFrame, context: FrameContext) {
        guard connection.isEnabled else { return }
        let (recording, sampler) = state.withLock { ($0.recording, $0.sampler) }
        // Before a recording begins (or ahead of it, see `prepareRecording`), a few frames
        // measure the encoder.
        if let sampler { sampler.take(frame, converter: converter) }
        guard let recording else { return }
        let width = frame.buffer.width, height = frame.buffer.height
        let taken = recording.shared.withLock { shared -> (PixelBuffer, Int64)? in
            shared.received += 1
            guard shared.encoderReady, !shared.stopping, !shared.paused else { return nil }
            // A limit of D seconds keeps exactly the frames taken in [0, D): later ones are neither
            // recorded nor counted as lost (the encoding thread ends the recording at the first).
            let time = frame.timestampNanoseconds - shared.pauseOffset
            if let limit = recording.limits.duration, let first = shared.firstTime, Double(time - first) / 1e9 >= limit {
                // Frames the camera skipped right before the first such frame, spread evenly since
                // the last one, are lost from the recording where they fall inside the limit.
                if !shared.pastLimit, context.gap > 0, let last = shared.lastTime {
                    let step = Double(time - last) / Double(context.gap + 1)
                    shared.skipped += (1...context.gap).count(where: { Double(last - first) + Double($0) * step < limit * 1e9 })
                }
                shared.pastLimit = true
                return nil
            }
            if shared.firstTime == nil { shared.firstTime = time } else { shared.skipped += context.gap }
            shared.lastTime = time
            shared.windowFrames += 1
            shared.lastWindowTime = time
            // Encoding cannot keep up with every frame: only one every `keepInterval` is kept,
            // so the frames left out are spread evenly over the recording (the movie keeps its
            // length and has fewer frames per second), not lost in bursts when the pool runs dry.
            if shared.keepInterval > 0, let due = shared.nextDue, time < due - shared.cameraInterval / 2 {
                shared.dropped += 1
                return nil
            }
            guard let buffer = shared.buffer(width: width, height: height) else {
                shared.dropped += 1
                return nil
            }
            if shared.keepInterval > 0 {
                // The next one is due a keep interval after this one was due (an even average
                // rate), or after this one when it came much later than due.
                let base = shared.nextDue.map { time - $0 > shared.keepInterval ? time : $0 } ?? time
                shared.nextDue = base + shared.keepInterval
            } else {
                shared.nextDue = nil
            }
            shared.converting += 1
            return (buffer, time)
        }
        guard let (buffer, time) = taken else {
            // The encoding thread may be waiting with nothing queued: let it see the limit.
            if recording.shared.withLock({ $0.pastLimit }) { recording.wake.signal() }
            return
        }
        do {
            if connection.isVideoMirrored(for: context.device) {
                let scratch = try mirrorScratch(width: width, height: height)
                try converter.convert(frame.buffer, into: scratch)
                try PixelTransform.mirror(scratch, into: buffer)
            } else {
                try converter.convert(frame.buffer, into: buffer)
            }
        } catch {
            recording.shared.withLock {
                $0.dropped += 1
                $0.converting -= 1
            }
            recording.wake.signal()
            return
        }
        recording.shared.withLock {
            $0.queue.append(.video(buffer, time))
            $0.converting -= 1
        }
        recording.wake.signal()
    }

    /// The intermediate frame for mirroring (used on the camera's thread only).
    private func mirrorScratch(width: Int, height: Int) throws(MediaError) -> PixelBuffer {
        try state.withLock { state throws(MediaError) -> PixelBuffer in
            if let scratch = state.mirrorScratch, scratch.width == width, scratch.height == height { return scratch }
            let scratch = try PixelBuffer(format: .i420, width: width, height: height, rowAlignment: 64)
            state.mirrorScratch = scratch
            return scratch
        }
    }
}

/// Hands a microphone's buffers to a movie output.
private final class SoundFeed: AudioDataOutputSampleBufferDelegate {
    weak let movie: MovieFileOutput?

    init(movie: MovieFileOutput) { self.movie = movie }

    func captureOutput(_ output: AudioDataOutput, didOutput audioBuffer: AudioBuffer) {
        movie?.appendAudio(audioBuffer.samples, timestampNanoseconds: audioBuffer.presentationTimestampNanoseconds)
    }
}

/// The async start's delegate: resumes its waiter when the recording starts or fails.
private final class StartSignal: MovieFileOutputRecordingDelegate, Sendable {
    enum Outcome { case started, failed(CaptureError), timedOut }
    private let state = Lock<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))

    func fileOutput(_ output: MovieFileOutput, didStartRecordingTo path: String) { finish(.started) }

    func fileOutput(_ output: MovieFileOutput, didFinishRecordingTo path: String, summary: RecordingSummary, error: CaptureError?) {
        finish(.failed(error ?? .recordingFailed(path: path, cause: .endedBeforeStart)))
    }

    private func finish(_ outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits for the start or the end; `expired` is asked every quarter second with the seconds
    /// waited so far, and ends the wait (`timedOut`) when it says so.
    func wait(until expired: @escaping @Sendable (Double) -> Bool) async -> Outcome {
        let timer = Task {
            let start = ContinuousClock.now
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                let elapsed = start.duration(to: .now)
                if expired(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) {
                    finish(.timedOut)
                    return
                }
            }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
