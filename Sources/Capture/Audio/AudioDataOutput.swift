import Dispatch
import Glibc
import Media
import Synchronization

/// Receives sound from an `AudioDataOutput` on the queue it was registered with.
public protocol AudioDataOutputSampleBufferDelegate: AnyObject, Sendable {
    /// A new buffer of sound.
    func captureOutput(_ output: AudioDataOutput, didOutput audioBuffer: AudioBuffer)
    /// A buffer was dropped because the consumer was behind (every pooled buffer still held).
    func captureOutput(_ output: AudioDataOutput, didDropBufferAt samplePosition: Int64)
    /// The sample clock and CLOCK_MONOTONIC disagreed by more than the tolerance, and the
    /// timestamps moved by `seconds` (positive: later) at the buffer at `samplePosition`.
    func captureOutput(_ output: AudioDataOutput, didCorrectClockBy seconds: Double, at samplePosition: Int64)
    /// Recording stopped by itself (the sound server went away, the microphone was removed).
    func captureOutput(_ output: AudioDataOutput, didStopWithError error: CaptureError)
}

extension AudioDataOutputSampleBufferDelegate {
    /// Dropped buffers are counted by the output; implementing this is optional.
    public func captureOutput(_ output: AudioDataOutput, didDropBufferAt samplePosition: Int64) {}
    /// Corrections are counted by the output; implementing this is optional.
    public func captureOutput(_ output: AudioDataOutput, didCorrectClockBy seconds: Double, at samplePosition: Int64) {}
    /// The error stays in `runtimeError`; implementing this is optional.
    public func captureOutput(_ output: AudioDataOutput, didStopWithError error: CaptureError) {}
}

/// Sound from a microphone, for recording movies: 48 kHz signed 16-bit interleaved buffers
/// (mono or stereo), each stamped on CLOCK_MONOTONIC like camera frames so the two stay in sync.
///
/// Recording runs on a dedicated thread reading the sound server (PulseAudio, or PipeWire's
/// pulse service) in small fragments (10 ms by default); `start()` waits only for the server to
/// accept the stream (bounded by `Settings.timeout`), `stop()` returns within about one buffer.
/// Buffers come from a bounded pool and are delivered through `audioBuffers()` and/or a delegate;
/// a consumer that falls behind costs dropped buffers (counted; the timestamps of later buffers
/// stay right), never unbounded memory or a stalled recording.
///
/// Timestamps follow the sample count from a measured start (read time minus the server's
/// latency, the least late of the first ~50 ms of buffers, which are delivered together once
/// it is known), so consecutive buffers are exactly their duration apart; when the sound card's
/// clock drifts from CLOCK_MONOTONIC by more than `Settings.clockTolerance`, they are
/// re-anchored (counted in `statistics`, marked by `AudioBuffer.isDiscontinuity`).
///
/// A running output is kept alive by its recording thread until `stop()`.
public final class AudioDataOutput: Sendable {
    /// Channels to record (the server mixes the microphone's own channels to these).
    public enum Channels: Int, Sendable, CaseIterable {
        /// One channel.
        case mono = 1
        /// Two channels, interleaved left then right.
        case stereo = 2
    }

    /// How to record. Changes apply at the next `start()`.
    public struct Settings: Sendable, Equatable {
        /// Frames per second of every recording, in Hz.
        public static let sampleRate = 48_000
        /// Mono or stereo (the default).
        public var channels: Channels
        /// The microphone's `uniqueID`; nil records from the default microphone.
        public var microphoneID: String?
        /// The length of one buffer (5 to 100 ms; 10 ms by default): the server's fragment size too.
        public var bufferDuration: Duration
        /// How much sound may wait for slow consumers before buffers are dropped (1 s by default).
        public var maximumQueuedDuration: Duration
        /// How far the sample clock may drift from CLOCK_MONOTONIC before timestamps are re-anchored
        /// (5 ms by default: well within a video frame, above a busy machine's scheduling delays).
        public var clockTolerance: Duration
        /// How long to wait for the sound server, for each of listing and opening the microphone.
        public var timeout: Duration

        /// Settings as given; the defaults record stereo from the default microphone.
        public init(channels: Channels = .stereo, microphoneID: String? = nil, bufferDuration: Duration = .milliseconds(10),
                    maximumQueuedDuration: Duration = .seconds(1), clockTolerance: Duration = .milliseconds(5), timeout: Duration = .seconds(2)) {
            self.channels = channels
            self.microphoneID = microphoneID
            self.bufferDuration = bufferDuration
            self.maximumQueuedDuration = maximumQueuedDuration
            self.clockTolerance = clockTolerance
            self.timeout = timeout
        }

        /// Frames in one buffer.
        var framesPerBuffer: Int {
            let milliseconds = min(max(AudioClock.nanoseconds(bufferDuration) / 1_000_000, 5), 100)
            return Settings.sampleRate * Int(milliseconds) / 1000
        }

        /// Buffers that may wait for consumers.
        var queuedBuffers: Int {
            max(2, Int(AudioClock.nanoseconds(maximumQueuedDuration) / (Int64(framesPerBuffer) * 1_000_000_000 / Int64(Settings.sampleRate))))
        }
    }

    /// What happened while recording (since the last `start()`).
    public struct Statistics: Sendable, Equatable {
        /// Buffers handed to consumers.
        public var buffersDelivered = 0
        /// Buffers dropped because consumers were behind.
        public var buffersDropped = 0
        /// Frames recorded (dropped ones included).
        public var samplesRecorded: Int64 = 0
        /// Times the timestamps were re-anchored because the clocks drifted apart.
        public var clockCorrections = 0
        /// The last re-anchoring, in seconds (0 when none).
        public var lastClockCorrection: Double = 0
    }

    /// A recording thread's flags, shared with `start()`/`stop()`.
    private final class Recording: Sendable {
        let stopRequested = Atomic<Bool>(false)
        let opened = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let openError = Lock<CaptureError?>(nil)
    }

    private struct State {
        var settings: Settings
        var delegate: (any AudioDataOutputSampleBufferDelegate)?
        var queue: DispatchQueue?
        var continuation: AsyncStream<AudioBuffer>.Continuation?
        var recording: Recording?
        var thread: pthread_t?
        var running = false
        var microphone: Microphone?
        var runtimeError: CaptureError?
        var statistics = Statistics()
    }
    private let state: Lock<State>
    /// Serialises `start()` and `stop()` (never taken by the recording thread).
    private let control = Lock(())

    /// An output recording with `settings` once started.
    public init(settings: Settings = Settings()) {
        state = Lock(State(settings: settings))
    }

    /// How to record (applies at the next `start()`).
    public var audioSettings: Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    /// Whether the recording thread is running.
    public var isRunning: Bool { state.withLock { $0.running } }

    /// The microphone being recorded (or last recorded).
    public var microphone: Microphone? { state.withLock { $0.microphone } }

    /// Why recording stopped by itself, if it did (cleared by `start()`).
    public var runtimeError: CaptureError? { state.withLock { $0.runtimeError } }

    /// Counts since the last `start()`.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Delivers buffers to `delegate` on `queue` (nil removes it). Buffers are never dropped for
    /// a delegate that is merely slow, only when the pool runs out (`maximumQueuedDuration`).
    public func setSampleBufferDelegate(_ delegate: (any AudioDataOutputSampleBufferDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            $0.queue = delegate == nil ? nil : (queue ?? DispatchQueue(label: "pinhole.audio-data-output"))
        }
    }

    /// The buffers as an async sequence, ending at `stop()` (or when recording fails); a new call
    /// ends the previous sequence. Up to `maximumQueuedDuration` of sound waits for a slow reader;
    /// beyond that the oldest buffers are dropped and counted.
    public func audioBuffers() -> AsyncStream<AudioBuffer> {
        let limit = state.withLock { $0.settings.queuedBuffers }
        let (stream, continuation) = AsyncStream<AudioBuffer>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let previous = state.withLock { state -> AsyncStream<AudioBuffer>.Continuation? in
            let old = state.continuation
            state.continuation = continuation
            return old
        }
        previous?.finish()
        return stream
    }

    /// Starts recording from the chosen (or default) microphone. Returns once the server has
    /// accepted the stream; throws `.noSoundServer`, `.soundServerNotResponding`, `.noMicrophone`,
    /// `.microphoneNotFound` or `.microphoneAccessDenied`. Does nothing when already running.
    ///
    /// Finding the microphone and opening the stream each wait for the sound server (up to
    /// `Settings.timeout`): that waiting happens on a Dispatch worker, never on the caller's
    /// thread, so a UI thread may await this.
    public func start() async throws(CaptureError) {
        let result: Result<Void, CaptureError> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(returning: Result { () throws(CaptureError) in try self.startWaiting() })
            }
        }
        try result.get()
    }

    /// `start()`'s work, which blocks its thread while the server answers.
    private func startWaiting() throws(CaptureError) {
        try control.withLock { _ throws(CaptureError) in
            let (settings, previous, running) = state.withLock { state in
                let previous = state.thread
                if !state.running { state.thread = nil; state.recording = nil }
                return (state.settings, state.running ? nil : previous, state.running)
            }
            guard !running else { return }
            if let previous { StreamingThread.join(previous) }  // ended by itself earlier
            let microphone = try Microphone.microphone(withID: settings.microphoneID, timeout: settings.timeout)
            let recording = Recording()
            state.withLock {
                $0.recording = recording
                $0.running = true
                $0.microphone = microphone
                $0.runtimeError = nil
                $0.statistics = Statistics()
            }
            let thread = StreamingThread.start { [self] in record(recording, settings: settings, microphone: microphone) }
            let failure: CaptureError?
            if recording.opened.wait(timeout: .now() + .nanoseconds(Int(AudioClock.nanoseconds(settings.timeout)))) == .timedOut {
                // The thread ends by itself once the server answers (or never, if it never does).
                recording.stopRequested.store(true, ordering: .releasing)
                pthread_detach(thread)
                failure = .soundServerNotResponding(seconds: AudioClock.seconds(settings.timeout))
            } else if let error = recording.openError.withLock({ $0 }) {
                StreamingThread.join(thread)
                failure = error
            } else {
                failure = nil
            }
            try state.withLock { state throws(CaptureError) in
                if let failure {
                    state.recording = nil
                    state.running = false
                    throw failure
                }
                state.thread = thread
            }
        }
    }

    /// Stops recording: the thread ends within about one buffer's duration, and `audioBuffers()`'s
    /// sequence finishes. Buffers already queued for the delegate are still delivered. Returns
    /// once that buffer is read (10 ms by default), or after at most 1 s for a hung server, whose
    /// thread is then let go; the waiting happens on a Dispatch worker, so a UI thread may await this.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global(qos: .userInitiated).async {
                self.stopWaiting()
                continuation.resume()
            }
        }
    }

    /// `stop()`'s work, which blocks its thread until the recording thread has ended (or been let go).
    func stopWaiting() {
        control.withLock { _ in
            let (recording, thread, continuation) = state.withLock { state in
                defer {
                    state.recording = nil
                    state.thread = nil
                    state.running = false
                    state.continuation = nil
                }
                return (state.recording, state.thread, state.continuation)
            }
            if let recording {
                recording.stopRequested.store(true, ordering: .releasing)
                // A read blocks at most one buffer unless the server hangs; then let the thread go.
                if recording.finished.wait(timeout: .now() + .seconds(1)) == .success {
                    if let thread { StreamingThread.join(thread) }
                } else if let thread {
                    pthread_detach(thread)
                }
            } else if let thread {
                StreamingThread.join(thread)
            }
            continuation?.finish()
        }
    }

    // MARK: - The recording thread

    /// Opens the stream, then reads, stamps and delivers buffers until asked to stop or the
    /// stream fails.
    private func record(_ recording: Recording, settings: Settings, microphone: Microphone) {
        defer { recording.finished.signal() }
        let frames = settings.framesPerBuffer, channels = settings.channels.rawValue
        let recorder: PulseRecorder
        do {
            recorder = try PulseRecorder(microphone: microphone.uniqueID, channelCount: channels, sampleRate: Settings.sampleRate,
                                         fragmentFrames: frames)
        } catch {
            recording.openError.withLock { $0 = error }
            recording.opened.signal()
            return
        }
        recording.opened.signal()
        let pool = AudioBufferPool(channelCount: channels, sampleRate: Settings.sampleRate, capacity: frames,
                                   maximumCount: settings.queuedBuffers + 4, preallocate: 8)
        // Where sound goes when every pooled buffer is held: read anyway, so the server never overruns.
        let spill = AudioBuffer(channelCount: channels, sampleRate: Settings.sampleRate, capacity: frames)
        // About a second of measurements: a busy machine makes some reads late, hardly all of them.
        var clock = AudioClock(sampleRate: Settings.sampleRate, tolerance: settings.clockTolerance, window: max(16, Settings.sampleRate / frames))
        // The first reads of a new stream are often late: the first ~50 ms are held back and the
        // clock anchored on the least late of them, rather than on the first alone.
        let settling = min(5, max(1, Settings.sampleRate / 20 / frames))
        var pending: [(buffer: AudioBuffer?, measuredStart: Int64?)] = []
        pending.reserveCapacity(settling)
        var droppedBefore = false

        /// Stamps one buffer read (nil: read into the spill buffer) and delivers or drops it.
        func emit(_ buffer: AudioBuffer?, measuredStart: Int64?) {
            let stamp = clock.stamp(frames: frames, measuredStart: measuredStart)
            if let correction = stamp.correction { corrected(by: correction, at: stamp.position) }
            guard let buffer else {
                droppedBefore = true
                dropped(at: stamp.position, frames: frames)
                return
            }
            buffer.sampleCount = frames
            buffer.presentationTimestampNanoseconds = stamp.presentationTime
            buffer.samplePosition = stamp.position
            buffer.isDiscontinuity = droppedBefore || stamp.correction != nil
            droppedBefore = false
            deliver(buffer, from: recording)
        }

        while !recording.stopRequested.load(ordering: .acquiring) {
            let buffer = pool.makeBuffer()
            do {
                try recorder.read(into: (buffer ?? spill).data, frames: frames)
            } catch {
                fail(recording, error: error)
                return
            }
            let readTime = SystemClock.monotonicNanoseconds()
            // stop() may have given up on a read that blocked (a frozen server): deliver nothing late.
            if recording.stopRequested.load(ordering: .acquiring) { return }
            let measuredStart = recorder.latency().map { readTime - $0 - clock.duration(of: Int64(frames)) }
            guard clock.isAnchored else {
                pending.append((buffer, measuredStart))
                if pending.count == settling {
                    clock.anchor(onFirst: pending.map(\.measuredStart), frames: frames)
                    for held in pending { emit(held.buffer, measuredStart: held.measuredStart) }
                    pending.removeAll()
                }
                continue
            }
            emit(buffer, measuredStart: measuredStart)
        }
    }

    /// Hands `buffer` to the async sequence and the delegate, unless `recording` was stopped.
    private func deliver(_ buffer: AudioBuffer, from recording: Recording) {
        let current = state.withLock { state -> (delegate: (any AudioDataOutputSampleBufferDelegate)?, queue: DispatchQueue?,
                                                 continuation: AsyncStream<AudioBuffer>.Continuation?)? in
            guard state.recording === recording else { return nil }
            state.statistics.samplesRecorded += Int64(buffer.sampleCount)
            return (state.delegate, state.queue, state.continuation)
        }
        guard let (delegate, queue, continuation) = current else { return }
        var delivered = false
        if let continuation {
            switch continuation.yield(buffer) {
            case .enqueued: delivered = true
            case .dropped:  // the oldest unread buffer made room for this one
                delivered = true
                state.withLock { $0.statistics.buffersDropped += 1 }
            case .terminated: break  // the reader stopped listening; a new audioBuffers() call replaces it
            @unknown default: break
            }
        }
        if let delegate, let queue {
            queue.async { [self] in delegate.captureOutput(self, didOutput: buffer) }
            delivered = true
        }
        if delivered { state.withLock { $0.statistics.buffersDelivered += 1 } }
    }

    /// Counts a buffer of `frames` frames that was read but found no pooled buffer, and tells the delegate.
    private func dropped(at position: Int64, frames: Int) {
        let (delegate, queue) = state.withLock { state -> ((any AudioDataOutputSampleBufferDelegate)?, DispatchQueue?) in
            state.statistics.buffersDropped += 1
            state.statistics.samplesRecorded += Int64(frames)
            return (state.delegate, state.queue)
        }
        if let delegate, let queue {
            queue.async { [self] in delegate.captureOutput(self, didDropBufferAt: position) }
        }
    }

    /// Counts a re-anchoring of the timestamps and tells the delegate.
    private func corrected(by nanoseconds: Int64, at position: Int64) {
        let seconds = Double(nanoseconds) / 1e9
        let (delegate, queue) = state.withLock { state -> ((any AudioDataOutputSampleBufferDelegate)?, DispatchQueue?) in
            state.statistics.clockCorrections += 1
            state.statistics.lastClockCorrection = seconds
            return (state.delegate, state.queue)
        }
        if let delegate, let queue {
            queue.async { [self] in delegate.captureOutput(self, didCorrectClockBy: seconds, at: position) }
        }
    }

    /// Records that the stream failed, ends the async sequence and tells the delegate.
    private func fail(_ recording: Recording, error: CaptureError) {
        let (delegate, queue, continuation) = state.withLock { state -> ((any AudioDataOutputSampleBufferDelegate)?, DispatchQueue?,
                                                                          AsyncStream<AudioBuffer>.Continuation?) in
            guard state.recording === recording else { return (nil, nil, nil) }
            state.running = false
            state.runtimeError = error
            defer { state.continuation = nil }
            return (state.delegate, state.queue, state.continuation)
        }
        continuation?.finish()
        if let delegate, let queue {
            queue.async { [self] in delegate.captureOutput(self, didStopWithError: error) }
        }
    }
}
