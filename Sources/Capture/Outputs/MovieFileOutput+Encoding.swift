import Dispatch
import Glibc
import Media
import Synchronization

/// `MovieFileOutput`'s encoding thread, one per recording.
extension MovieFileOutput {
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
        recording.shared.withLock { $0.encoderReady = true }
        loop: while true {
            recording.wake.wait()
            while true {
                let (item, stopping, pastLimit) = recording.shared.withLock { shared -> (Item?, Bool, Bool) in
                    (shared.queue.isEmpty ? nil : shared.queue.removeFirst(), shared.stopping, shared.pastLimit)
                }
                guard let item else {
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
                                                         preset: recording.options.preset, audio: recording.audio,
                                                         fragmentInterval: recording.fragmentInterval, rotation: rotation)
                            writer = try MovieWriter(path: recording.path, settings: settings, range: buffer.yuvRange, creationDate: recording.startedAt)
                        }
                        try writer?.appendVideo(buffer, timestampNanoseconds: time)
                        if !started {
                            started = true
                            recording.delegate?.fileOutput(self, didStartRecordingTo: recording.path)
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
        recording.shared.withLock { $0.stopping = true }
        var leftFragmented: MediaError?
        if let writer {
            if case .recordingFailed = failure {
                writer.abandon()
            } else {
                do { leftFragmented = try writer.finish() } catch {
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
            let summary = RecordingSummary(path: recording.path, duration: writer?.duration ?? 0, frameCount: writer?.videoFrameCount ?? 0,
                                           droppedFrameCount: shared.dropped, skippedFrameCount: shared.skipped, fileSize: size, hasAudio: recording.audio != nil && writer != nil,
                                           leftFragmented: leftFragmented)
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
