import Dispatch
import Glibc
import Media

/// `MovieFileOutput`'s encoding thread, one per recording.
extension MovieFileOutput {
    /// Whether the ending recording still waits for sound: it records sound, some has arrived,
    /// the newest ends more than a buffer (20 ms) before the picture does, and the half second
    /// allowed since the wait began (`since`, set at the first call) has not passed.
    func awaitsSound(_ recording: Recording, since: inout Int64?) -> Bool {
        guard recording.audio != nil else { return false }
        let now = SystemClock.monotonicNanoseconds()
        if since == nil { since = now }
        guard let began = since, now - began < 500_000_000 else { return false }
        return recording.shared.withLock { shared in
            guard let sound = shared.soundEnd, let end = shared.end(limit: recording.limits.duration) else { return false }
            return sound < end - 20_000_000
        }
    }

    /// The encoding thread's body: takes queued frames and sound, feeds a `MovieWriter`, applies
    /// the limits and finishes (or cuts back) the file, then tells the delegate and the waiters.
    func encode(_ recording: Recording) {
        var writer: MovieWriter?
        var failure: CaptureError?
        var lastSpaceCheck: Int64 = 0
        let rotation = (try? Rotation(degrees: Int(connection.videoRotationAngle))) ?? .none
        var started = false
        // FFmpeg and the encoder are opened before frames are taken: on a slow machine that takes
        // seconds, which would otherwise run the recording's clock (and its duration limit) while
        // its frames were dropped. (A failure here is met again, and reported, at the first frame.)
        var delay = state.withLock { $0.encoderStartDelay }
        while delay > 0, !recording.shared.withLock({ $0.stopping }) {
            usleep(20_000)
            delay -= 0.02
        }
        try? MovieWriter.prepare(format: recording.options.format)
        // The encoder's effort is chosen from a measurement on the camera's first frames (a file
        // cannot change it once begun), and so is how many frames it keeps at first.
        let interval = state.withLock { $0.frameInterval }
        let effort = chooseEffort(recording, frameInterval: interval)
        var pace = Pace(frameInterval: interval, secondsPerFrame: effort.secondsPerFrame)
        let frameDelay = state.withLock { $0.encoderFrameDelay }
        recording.shared.withLock {
            $0.cameraInterval = Int64(interval * 1e9)
            $0.keepInterval = pace.keepInterval
            $0.encoderReady = true
        }
        // A stop that came during the measurement may have been taken by it.
        recording.wake.signal()
        // When the recording began to end and the sound still on its way was first waited for.
        var soundTailSince: Int64?
        loop: while true {
            recording.wake.wait()
            while true {
                let (item, stopping, pastLimit, converting) = recording.shared.withLock { shared -> (Item?, Bool, Bool, Bool) in
                    (shared.queue.isEmpty ? nil : shared.queue.removeFirst(), shared.stopping, shared.pastLimit, shared.converting > 0)
                }
                guard let item else {
                    // A frame taken before the end is still being converted: it belongs in the
                    // file (the movie lasts until the last frame taken), so it is waited for.
                    if converting { break }
                    // The sound path (microphone, server, AudioDataOutput's queue) runs some
                    // buffers behind the camera: sound captured before the end is waited for, a
                    // bounded half second, so that the movie's sound lasts as long as its picture.
                    if pastLimit || stopping, writer != nil, awaitsSound(recording, since: &soundTailSince) {
                        _ = recording.wake.wait(timeout: .now() + .milliseconds(20))
                        continue
                    }
                    // Every frame taken in [0, D) is in the file: the duration limit is reached.
                    if pastLimit, let limit = recording.limits.duration {
                        failure = .recordingLimitReached(path: recording.path, limit: "maximum duration of \(MovieFileOutput.seconds(limit))")
                        break loop
                    }
                    if stopping { break loop }
                    break
                }
                do throws(MediaError) {
                    switch item {
                    case let .video(buffer, time):
                        if writer == nil {
                            let settings = MovieSettings(format: recording.options.format, width: buffer.width, height: buffer.height,
                                                         frameRate: state.withLock { $0.frameRate }, quality: recording.options.quality,
                                                         preset: effort.preset, audio: recording.audio,
                                                         fragmentInterval: recording.fragmentInterval, rotation: rotation)
                            writer = try MovieWriter(path: recording.path, settings: settings, range: buffer.yuvRange, creationDate: recording.startedAt)
                            // The frames' pool, whole and resident from now on (see `buffer`).
                            recording.shared.withLock { $0.pool }?.makeResident()
                        }
                        try writer?.appendVideo(buffer, timestampNanoseconds: time)
                        if frameDelay > 0 { usleep(UInt32(frameDelay * 1e6)) }
                        if !started {
                            started = true
                            recording.delegate?.fileOutput(self, didStartRecordingTo: recording.path)
                        }
                        recording.shared.withLock { shared in
                            let backlog = shared.queue.count { if case .video = $0 { true } else { false } }
                            shared.keepInterval = pace.update(backlog: backlog)
                        }
                    case let .audio(samples, count, time):
                        let result = samples.withUnsafeBufferPointer { pointer in
                            Result { () throws(MediaError) in try writer?.appendAudio(UnsafeBufferPointer(rebasing: pointer.prefix(count)), timestampNanoseconds: time) }
                        }
                        try result.get()
                        recording.shared.withLock { $0.spare.append(samples) }
                    }
                } catch {
                    failure = .recordingFailed(path: recording.path, cause: MovieFileOutput.cause(error, fileKept: writer != nil))
                    break loop
                }
                guard let writer else { continue }
                let (duration, size) = (writer.duration, writer.bytesWritten)
                recording.shared.withLock {
                    $0.frames = writer.videoFrameCount
                    $0.duration = duration
                    $0.size = size
                }
                if let limit = recording.limits.size, size >= limit {
                    failure = .recordingLimitReached(path: recording.path, limit: "maximum file size of \(limit / 1_000_000) MB")
                    break loop
                }
                let now = SystemClock.monotonicNanoseconds()
                if recording.limits.freeSpace > 0, now - lastSpaceCheck > 500_000_000 {
                    lastSpaceCheck = now
                    var disk = statvfs()
                    if statvfs(recording.path, &disk) == 0, Int64(disk.f_bavail) * Int64(disk.f_frsize) < recording.limits.freeSpace {
                        failure = .recordingLimitReached(path: recording.path, limit: "minimum free disk space of \(recording.limits.freeSpace / 1_000_000) MB")
                        break loop
                    }
                }
            }
        }
        // Finish the file: a limit or a stop finishes it; a write error keeps what is complete.
        recording.shared.withLock {
            $0.stopping = true
            $0.soundClosed = true
        }
        var leftFragmented: MediaError?
        if let writer {
            if case .recordingFailed = failure {
                writer.abandon()
            } else {
                // The movie lasts as long as the recording (`Shared.end`).
                let end = recording.shared.withLock { $0.end(limit: recording.limits.duration) }
                do { leftFragmented = try writer.finish(endingAt: end) } catch {
                    writer.abandon()
                    failure = .recordingFailed(path: recording.path, cause: MovieFileOutput.cause(error, fileKept: true))
                }
            }
        } else if failure == nil {
            failure = .recordingFailed(path: recording.path, cause: .noFrame(seconds: nil))
        }
        var info = stat()
        let size = stat(recording.path, &info) == 0 ? Int64(info.st_size) : 0
        let (summary, waiters) = recording.shared.withLock { shared -> (RecordingSummary, [CheckedContinuation<RecordingSummary, Never>]) in
            let duration = writer?.duration ?? 0, frames = writer?.videoFrameCount ?? 0
            let summary = RecordingSummary(path: recording.path, duration: duration, frameCount: frames,
                                           droppedFrameCount: shared.dropped, skippedFrameCount: shared.skipped, fileSize: size, hasAudio: recording.audio != nil && writer != nil,
                                           leftFragmented: leftFragmented, cameraFrameCount: shared.windowFrames, cameraFrameRate: 1 / interval,
                                           keptFrameRate: shared.dropped > 0 && duration > 0 ? Double(frames) / duration : nil, preset: effort.preset)
            shared.summary = summary
            shared.error = failure
            shared.queue.removeAll()
            let waiters = shared.waiters
            shared.waiters = []
            return (summary, waiters)
        }
        state.withLock {
            $0.recording = nil
            $0.lastError = failure
            $0.lastSummary = summary
        }
        recording.delegate?.fileOutput(self, didFinishRecordingTo: recording.path, summary: summary, error: failure)
        for waiter in waiters { waiter.resume(returning: summary) }
    }

    /// The cause of a failed write: a file failure (the file kept when the writer had made it:
    /// it is cut back to its last complete fragment), else an encoding failure.
    private static func cause(_ error: MediaError, fileKept: Bool) -> RecordingFailure {
        if case let .io(_, failure) = error { return .file(failure, kept: fileKept) }
        return .encoding(error)
    }

    /// "2 s", or "2.5 s".
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

extension MovieFileOutput {
    /// How many of the camera's frames a recording keeps: every one while the encoder keeps up;
    /// when it cannot, one every `keepInterval`, evenly (the movie keeps its length and timing,
    /// with fewer frames per second). It starts from the measurement's seconds per frame and
    /// follows the frames waiting for the encoder. A backlog of half the pool (more than a file
    /// sync's pause) is watched for as many frames as it holds: one that shrank meanwhile was a
    /// stall the encoder is catching up on (the machine paused it; every frame is kept), one that
    /// did not, or a pool all but used up, slows the pace; a steady empty queue lets it quicken
    /// again.
    struct Pace {
        /// The share of the encoder's measured speed a recording counts on (the rest is room
        /// for sound, the muxer, the file's syncs and a machine that gets busier).
        static let headroom = 0.8
        /// The camera's frame interval (seconds).
        let frameInterval: Double
        /// Seconds between kept frames (0: every frame is kept).
        private(set) var keep: Double
        /// Frames to encode before the backlog is judged again (those queued when it was last judged).
        private var settling = 0
        /// The backlog when it was last judged, while it stays at half the pool or more.
        private var watched: Int?
        /// Frames encoded in a row with nothing waiting.
        private var calm = 0

        /// The pace for a camera with `frameInterval` and an encoder measured at `secondsPerFrame`.
        init(frameInterval: Double, secondsPerFrame: Double?) {
            self.frameInterval = frameInterval
            let needed = (secondsPerFrame ?? 0) / Pace.headroom
            keep = needed > frameInterval * 1.05 ? needed : 0
        }

        /// `keep` in nanoseconds, as the camera's thread compares it.
        var keepInterval: Int64 { Int64(keep * 1e9) }

        /// After a frame was encoded with `backlog` frames waiting: the new keep interval.
        mutating func update(backlog: Int) -> Int64 {
            if settling > 0 {
                settling -= 1
            } else if backlog >= MovieFileOutput.poolSize / 2 {
                // First seen, it may be a stall: judged again once these frames are encoded,
                // unless the pool has a single frame left.
                let catchingUp = backlog < (watched ?? MovieFileOutput.poolSize - 1)
                if !catchingUp { keep = max(keep, frameInterval) * 1.25 }
                watched = backlog
                settling = backlog
                calm = 0
            } else if backlog == 0, keep > 0 {
                watched = nil
                calm += 1
                if calm >= 8 {
                    keep *= 0.9
                    if keep < frameInterval * 1.05 { keep = 0 }
                    calm = 0
                }
            } else {
                watched = nil
                calm = 0
            }
            return keepInterval
        }
    }
}
