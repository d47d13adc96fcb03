import Dispatch
import Glibc
import Media

/// How hard a recording's encoder may work on this machine: measured on a few of the camera's
/// frames, once per size and options, either when a recording begins or ahead of it
/// (`prepareRecording`), so that an app's recording starts at once.
extension MovieFileOutput {
    /// Frames of the camera's taken to measure an encoder (each is encoded twice over).
    static let trialFrames = 4

    /// What an encoder was measured for: the file's format, quality and preset asked for, the
    /// camera's frame size and interval.
    struct EffortKey: Hashable {
        var format: MovieSettings.Format
        var quality: MovieSettings.Quality
        var preset: String
        var width: Int
        var height: Int
        /// The camera's frame interval in microseconds.
        var interval: Int
    }

    /// The x264 preset a recording is encoded with, and the seconds per frame measured with it
    /// (nil: too slow to finish measuring, or not measured).
    struct Effort {
        var preset: String
        var secondsPerFrame: Double?
    }

    /// For tests: how many times an encoder was measured.
    var measurementCount: Int { state.withLock { $0.measurements } }

    /// Measures the encoder for the next recording on the camera's next few frames, unless this
    /// camera size and these options were measured already, so that a recording started later
    /// begins at once instead of measuring first (an app calls it when its video mode is chosen).
    /// Returns once measured; does nothing while recording or measuring, or when no frames come
    /// within two seconds (the session is not running).
    public func prepareRecording() async {
        guard let sampler = state.withLock({ state -> EncoderSampler? in
            guard state.recording == nil, state.sampler == nil, let key = effortKey(state), state.efforts[key] == nil else { return nil }
            let sampler = EncoderSampler(count: MovieFileOutput.trialFrames)
            state.sampler = sampler
            return sampler
        }) else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            pthread_detach(StreamingThread.start { [self] in
                // A recording that begins meanwhile measures for itself: this one gives way.
                let recording = { self.state.withLock { $0.recording != nil } }
                let samples = sampler.collect(firstWithin: 2, stop: recording)
                let key = state.withLock { state -> EffortKey? in
                    if state.sampler === sampler { state.sampler = nil }
                    return state.recording == nil ? effortKey(state) : nil
                }
                if let key, let first = samples.first, key.width == first.width, key.height == first.height {
                    let effort = measure(samples, for: key, stop: recording)
                    if !recording() { state.withLock { $0.efforts[key] = effort } }
                }
                done.resume()
            })
        }
    }

    /// The effort for `recording`: the one measured for its camera size and options when there
    /// is one, else measured now on the camera's next frames (the recording's clock has not
    /// started; sound meanwhile is dropped, as sound before the first frame always is).
    func chooseEffort(_ recording: Recording, frameInterval: Double) -> Effort {
        let asked = Effort(preset: recording.options.preset, secondsPerFrame: nil)
        let stopping = { recording.shared.withLock { $0.stopping } }
        let sampler = EncoderSampler(count: MovieFileOutput.trialFrames)
        let cached = state.withLock { state -> Effort? in
            if let key = effortKey(state, options: recording.options), let effort = state.efforts[key] { return effort }
            // A measurement ahead of the recording gives way to the recording's own.
            state.sampler = sampler
            return nil
        }
        if let cached { return cached }
        let samples = sampler.collect(firstWithin: nil, stop: stopping)
        state.withLock { if $0.sampler === sampler { $0.sampler = nil } }
        guard let first = samples.first, !stopping() else { return asked }
        let (format, quality, preset) = (recording.options.format, recording.options.quality, recording.options.preset)
        let key = EffortKey(format: format, quality: quality, preset: preset, width: first.width, height: first.height,
                            interval: Int((frameInterval * 1e6).rounded()))
        let effort = measure(samples, for: key, stop: stopping)
        if !stopping() { state.withLock { $0.efforts[key] = effort } }
        return effort
    }

    /// The key for the stream's frame size and interval with `options` (the output's when nil);
    /// nil before a stream has started.
    func effortKey(_ state: State, options: Options? = nil) -> EffortKey? {
        guard let size = state.frameSize else { return nil }
        let options = options ?? state.options
        return EffortKey(format: options.format, quality: options.quality, preset: options.preset, width: size.width, height: size.height,
                         interval: Int((state.frameInterval * 1e6).rounded()))
    }

    /// Encodes `samples` (twice over: the encoder's start, its first key frame and look-ahead,
    /// weighs less against the frames after it) with the preset asked for; when that takes more
    /// than `Pace.headroom` of a frame interval a frame (given up as soon as it has used every
    /// frame's share), with "ultrafast" too, which is then used (MP4 only: VP8/VP9 already run at
    /// their realtime speed). Threads stay FFmpeg's choice (every core). The size is never
    /// changed: the movie is the camera's.
    func measure(_ samples: [PixelBuffer], for key: EffortKey, stop: () -> Bool) -> Effort {
        let (frameRate, frameDelay, fragmentInterval) = state.withLock { state in
            state.measurements += 1
            return (state.frameRate, state.encoderFrameDelay, state.fragmentInterval)
        }
        var chosen = Effort(preset: key.preset, secondsPerFrame: nil)
        guard let first = samples.first else { return chosen }
        let candidates = [key.preset] + (key.format == .mp4 && key.preset != "ultrafast" ? ["ultrafast"] : [])
        let budget = Double(key.interval) / 1e6 * Pace.headroom
        let frames = samples + samples
        for (index, preset) in candidates.enumerated() {
            let settings = MovieSettings(format: key.format, width: first.width, height: first.height, frameRate: frameRate,
                                         quality: key.quality, preset: preset, audio: nil, fragmentInterval: fragmentInterval)
            guard let trial = try? VideoEncoderTrial(settings: settings, range: first.yuvRange) else { break }
            let begun = SystemClock.monotonicNanoseconds()
            var elapsed: Double { Double(SystemClock.monotonicNanoseconds() - begun) / 1e9 }
            var tooSlow = false
            do {
                for frame in frames {
                    try trial.encode(frame)
                    if frameDelay > 0 { usleep(UInt32(frameDelay * 1e6)) }
                    // Past the budget of every frame already: too slow, whatever the rest takes
                    // (a slow machine need not wait for it). The last candidate is measured whole.
                    if index < candidates.count - 1, elapsed > Double(frames.count) * budget {
                        tooSlow = true
                        break
                    }
                }
                if !tooSlow { try trial.finish() }
            } catch {
                break
            }
            let cost = elapsed / Double(frames.count)
            chosen = Effort(preset: preset, secondsPerFrame: tooSlow ? nil : cost)
            if (!tooSlow && cost <= budget) || stop() { break }
        }
        return chosen
    }
}

/// A few of the camera's frames, converted to I420, taken to measure an encoder: the camera's
/// thread fills them (`take`), the measuring thread waits for them (`collect`). Its buffers are
/// made once, for the measurement only.
final class EncoderSampler: Sendable {
    /// Frames still wanted, the frames taken and their pool.
    private struct Shared {
        var wanted: Int
        var samples: [PixelBuffer] = []
        var pool: PixelBufferPool?
    }

    private let shared: Lock<Shared>
    /// Signalled for every frame taken.
    private let arrived = DispatchSemaphore(value: 0)

    /// A sampler wanting `count` frames.
    init(count: Int) {
        shared = Lock(Shared(wanted: count))
    }

    /// On the camera's thread: converts `frame` into a sample while more are wanted.
    func take(_ frame: RawFrame, converter: PixelConverter) {
        let width = frame.buffer.width, height = frame.buffer.height
        let buffer = shared.withLock { shared -> PixelBuffer? in
            guard shared.wanted > 0 else { return nil }
            if shared.pool == nil {
                shared.pool = try? PixelBufferPool(format: .i420, width: width, height: height, rowAlignment: 64,
                                                   maximumCount: MovieFileOutput.trialFrames, preallocate: 0)
            }
            guard let pool = shared.pool, pool.width == width, pool.height == height, let buffer = pool.makeBuffer() else { return nil }
            shared.wanted -= 1
            return buffer
        }
        guard let buffer else { return }
        do { try converter.convert(frame.buffer, into: buffer) } catch {
            shared.withLock { $0.wanted += 1 }
            return
        }
        shared.withLock { $0.samples.append(buffer) }
        arrived.signal()
    }

    /// Waits for the frames wanted, for at most 1.5 s after the first (a camera slower than that
    /// is measured on what it sent) and, with `firstWithin`, that many seconds for the first;
    /// returns early, with what it has, once `stop` says so. No more are taken afterwards.
    func collect(firstWithin: Double?, stop: () -> Bool) -> [PixelBuffer] {
        let begun = SystemClock.monotonicNanoseconds()
        var deadline = firstWithin.map { begun + Int64($0 * 1e9) }
        var firstSeen = false
        while !stop() {
            _ = arrived.wait(timeout: .now() + .milliseconds(100))
            let (count, done) = shared.withLock { ($0.samples.count, $0.wanted == 0) }
            if done { break }
            let now = SystemClock.monotonicNanoseconds()
            if count > 0, !firstSeen {
                firstSeen = true
                deadline = now + 1_500_000_000
            }
            if let deadline, now >= deadline { break }
        }
        return shared.withLock { shared in
            shared.wanted = 0
            return shared.samples
        }
    }
}
