@_spi(Testing) @testable import Capture
import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// ffprobe's value of `entry` for the first video stream (frames counted when asked).
func videoStream(_ path: String, _ entry: String) throws -> String { try ffprobe(path, "stream=" + entry)[entry] ?? "" }

/// Records what a delegate hears.
final class RecordingEvents: MovieFileOutputRecordingDelegate, @unchecked Sendable {
    let events = Lock<[String]>([])
    func fileOutput(_ output: MovieFileOutput, didStartRecordingTo path: String) { events.withLock { $0.append("start") } }
    func fileOutput(_ output: MovieFileOutput, didFinishRecordingTo path: String, summary: RecordingSummary, error: CaptureError?) {
        events.withLock { $0.append(error.map { "finish: \($0)" } ?? "finish") }
    }
}

extension VirtualCameraSuites {
    @Suite("Recording movies from the virtual test camera")
    struct MovieFileOutputTests {
        let back = try! CaptureDevice.device(withID: "test-back")

        init() { VirtualCamera.setFaults(.init(), for: VirtualCamera.backID) }

        func session(_ output: MovieFileOutput) async throws -> CaptureSession {
            let session = CaptureSession()
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: back))
            session.addOutput(output)
            try await session.start()
            return session
        }

        /// The session's frame interval in seconds.
        func interval(_ session: CaptureSession) throws -> Double {
            try #require(session.activeStream).frameInterval.seconds
        }

        /// Frame times a recording has taken so far: recorded, dropped or skipped.
        func slots(_ output: MovieFileOutput) -> Int {
            output.recordedFrameCount + output.droppedFrameCount + output.skippedFrameCount
        }

        @Test("a 2-second recording: H.264 at the camera's size, every frame on the camera's timing and in the file or reported lost, the delegate told, a clean decode")
        func record() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            let session = try await session(output)
            defer { session.stopRunning() }
            let interval = try interval(session)
            let events = RecordingEvents()
            let path = folder.path("movie.mp4")
            let clock = ContinuousClock()
            let began = clock.now
            try output.startRecording(to: path, delegate: events)
            #expect(output.isRecording)
            #expect(throws: CaptureError.self) { try output.startRecording(to: folder.path("second.mp4"), delegate: nil) }
            // Two seconds of the camera's frames, each recorded or reported lost (a busy machine
            // may take longer to get there; it may not record fewer without saying so).
            #expect(await waitUntil { slots(output) >= Int((2 / interval).rounded()) })
            let summary = try #require(await output.stopRecording())
            let lasted = (clock.now - began) / .seconds(1)
            #expect(!output.isRecording)
            #expect(events.events.withLock { $0 } == ["start", "finish"])
            #expect(try videoStream(path, "codec_name") == "h264")
            #expect(try videoStream(path, "width") == "640" && videoStream(path, "height") == "480")
            #expect(try videoStream(path, "nb_read_frames") == String(summary.frameCount))
            #expect(try decodesCleanly(path))
            let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            account.checkTiming(onGrid: true)
            account.checkLossesReported(trailing: nil)
            account.checkDuration(tolerance: 0.5)
            #expect(account.accountedSlots >= Int((2 / interval).rounded()), "\(account)")
            // …and no more frame times than the recording lasted (the camera holds a few late frames).
            #expect(Double(account.accountedSlots) * interval <= lasted + 6 * interval, "\(account) in \(lasted) s")
            #expect(abs(summary.duration - account.duration) < 0.002, "\(summary.duration) s; \(account)")
            #expect(summary.frameCount + summary.droppedFrameCount <= summary.cameraFrameCount, "\(summary)")
            #expect(summary.fileSize == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64))
            #expect(throws: CaptureError.self) { try output.startRecording(to: path, delegate: nil) }  // exists: never overwritten
        }

        @Test("a photo taken while recording is the stream's size, and the movie goes on uncut")
        func photoWhileRecording() async throws {
            let folder = try TemporaryDirectory()
            let movie = MovieFileOutput(), photos = PhotoOutput()
            let session = try await session(movie)
            session.beginConfiguration()
            session.addOutput(photos)
            await session.commitConfiguration()  // the stream has restarted with it before recording begins
            defer { session.stopRunning() }
            let interval = try interval(session)
            try movie.startRecording(to: folder.path("with-photo.mp4"), delegate: nil)
            #expect(await waitUntil { slots(movie) >= Int((0.5 / interval).rounded()) })
            let photo = try await photos.capturePhoto(with: PhotoSettings(format: .jpeg))
            #expect(photo.resolvedSettings.photoDimensions == .init(width: 640, height: 480) && !photo.resolvedSettings.switchedFormat)
            let before = slots(movie)
            #expect(await waitUntil { slots(movie) >= before + Int((0.5 / interval).rounded()) })
            let summary = try #require(await movie.stopRecording())
            // Uncut: one stream throughout, so every frame is on the camera's grid, and any frame
            // time missing from the file was reported lost (a restarted stream would leave a hole).
            let account = try RecordingAccount(path: summary.path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            account.checkTiming(onGrid: true)
            account.checkLossesReported(trailing: nil)
            #expect(account.times.count == summary.frameCount, "\(account)")
            #expect(try videoStream(summary.path, "width") == "640")
        }

        @Test("from an MJPEG stream (decoded straight to YUV planes), started with the async form; maxRecordedFileSize ends it")
        func mjpegAndSizeLimit() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.maxRecordedFileSize = 60_000
            output.options = .init(quality: .constantRateFactor(0))  // lossless: the limit comes quickly
            let format = try #require(back.formats.first { $0.pixelFormat == .mjpeg && $0.dimensions == .init(width: 1280, height: 720) })
            try back.lockForConfiguration()
            try back.setActiveFormat(format, frameInterval: FrameInterval(framesPerSecond: 30))
            back.unlockForConfiguration()
            let session = CaptureSession()
            session.sessionPreset = .inputPriority
            session.addInput(try CaptureDeviceInput(device: back))
            session.addOutput(output)
            try await session.start()
            defer { session.stopRunning() }
            #expect(session.activeStream?.pixelFormat == .mjpeg)
            let path = folder.path("mjpeg.mp4")
            try await output.startRecording(to: path, timeout: patience)
            // No check of isRecording here: a lossless 720p frame is about as large as the limit,
            // so on a busy machine the recording has ended by the time this task runs again (CI,
            // 2026-12-04). The summary and the limit's error show that it started and why it ended.
            let summary = try #require(await output.waitUntilFinished())
            #expect(output.lastError.map { "\($0)".contains("maximum file size") } == true, "\(String(describing: output.lastError))")
            #expect(summary.fileSize >= 60_000 && summary.fileSize < 400_000, "\(summary.fileSize) bytes")
            #expect(try videoStream(path, "width") == "1280" && videoStream(path, "nb_read_frames") == String(summary.frameCount))
            // JPEG's full range is kept and said so: players show the right levels.
            #expect(try videoStream(path, "color_range") == "pc")
        }

        @Test("the async start throws when no frame comes (the session is not running); minFreeDiskSpaceLimit ends a recording on a small disk")
        func startFailureAndFreeSpace() async throws {
            let folder = try TemporaryDirectory()
            let idle = MovieFileOutput()
            await #expect(throws: CaptureError.self) { try await idle.startRecording(to: folder.path("never.mp4"), timeout: 1) }
            #expect(!idle.isRecording)
            let disk = try SmallDisk(at: folder.path("small"), size: "2m")
            defer { disk.unmount() }
            let mountPoint = disk.path
            let output = MovieFileOutput()
            output.minFreeDiskSpaceLimit = 1_950_000
            output.options = .init(quality: .constantRateFactor(0))
            let session = try await session(output)
            defer { session.stopRunning() }
            let path = mountPoint + "/limited.mp4"
            try await output.startRecording(to: path, timeout: patience)
            let summary = try #require(await output.waitUntilFinished())
            #expect("\(output.lastError.map { "\($0)" } ?? "")".contains("minimum free disk space"), "\(String(describing: output.lastError))")
            #expect(summary.frameCount > 0)
            #expect(try decodesCleanly(path))
        }

        @Test("an encoder slow to start (a slow, busy machine) is waited for, not taken for a silent camera; one that never starts is named")
        func slowEncoderStart() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            let session = try await session(output)
            defer { session.stopRunning() }
            // The encoder opens 2 s late; the start's timeout for a silent camera is 1 s: the camera
            // is sending, so the start waits and the recording is whole from its first frame.
            output.encoderStartDelay = 2
            let path = folder.path("late.mp4")
            try await output.startRecording(to: path, timeout: 1)
            #expect(output.receivedFrameCount > 0)
            let summary = try #require(await output.stopRecording())
            #expect(summary.frameCount > 0)
            #expect(try decodesCleanly(path))
            // An encoder that takes nothing within the patience: the start says so, not "no frame".
            output.encoderStartDelay = 30
            output.encoderPatience = 1
            let stalled = folder.path("stalled.mp4")
            await #expect(throws: CaptureError.recordingFailed(path: stalled, cause: .encoderStalled(seconds: 2))) {
                try await output.startRecording(to: stalled, timeout: 1)
            }
            #expect(!output.isRecording)
        }

        @Test("an encoder too slow for the camera: a 3-s recording lasts 3 s, with fewer frames per second spread evenly over it, the faster preset, honest counts, and the summary saying so")
        func slowEncoder() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.maxRecordedDuration = 3
            // 0.15 s of extra work per frame: at most 6.7 frames per second, against the camera's 30
            // (in the measurement at the start too, so no preset can keep up).
            output.encoderFrameDelay = 0.15
            let session = try await session(output)
            defer { session.stopRunning() }
            let interval = try interval(session)
            let path = folder.path("slow.mp4")
            try await output.startRecording(to: path, timeout: patience)
            let summary = try #require(await output.waitUntilFinished())
            #expect(output.lastError == .recordingLimitReached(path: path, limit: "maximum duration of 3 s"))
            #expect(try decodesCleanly(path))
            let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            // As long as asked (± a frame interval), whatever the encoder's speed; the summary says the same.
            #expect(abs(account.duration - 3) <= interval, "\(account)")
            #expect(abs(summary.duration - account.duration) < 0.002, "\(summary.duration) s; \(account)")
            // The camera's timestamps, every missing frame time reported lost.
            account.checkTiming(onGrid: true)
            account.checkLossesReported(trailing: nil)
            #expect(summary.frameCount == account.times.count, "\(summary); \(account)")
            // Spread evenly over the whole 3 s: no gap (the last frame's until the end included)
            // longer than three times the mean, nor any of a second.
            let gaps = account.gapsToTheEnd
            let mean = account.duration / Double(max(1, account.times.count))
            #expect((gaps.max() ?? 9) <= 3 * mean && (gaps.max() ?? 9) < 1, "gaps \(gaps.map { ($0 * 1000).rounded() / 1000 }); \(account)")
            // Honest counts: the frames the camera sent within the 3 s (no more than 3 s holds)
            // are each recorded or dropped.
            #expect(summary.cameraFrameCount <= Int((3 / interval).rounded()), "\(summary)")
            #expect(summary.frameCount + summary.droppedFrameCount <= summary.cameraFrameCount, "\(summary)")
            #expect(summary.droppedFrameCount > 0 && summary.frameCount >= 2, "\(summary)")
            // The summary's words: the faster preset was chosen from the measurement, fewer frames
            // per second than the camera's (what the file has), the camera's rate.
            #expect(summary.preset == "ultrafast", "\(summary)")
            let kept = try #require(summary.keptFrameRate, "\(summary)")
            #expect(abs(kept - Double(account.times.count) / account.duration) < 0.05 && kept < 1 / interval, "\(kept) fps; \(account)")
            #expect(abs(summary.cameraFrameRate - 1 / interval) < 0.01, "\(summary)")
        }

        @Test("measured ahead (prepareRecording): a recording uses that measurement instead of measuring again, and a second preparation measures nothing")
        func preparedEncoder() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.maxRecordedDuration = 1
            // Measured while too slow for any preset but the fastest…
            output.encoderFrameDelay = 0.15
            let session = try await session(output)
            defer { session.stopRunning() }
            await output.prepareRecording()
            #expect(output.measurementCount == 1)
            await output.prepareRecording()
            #expect(output.measurementCount == 1, "measured again")
            // …then fast again: the recording keeps the fastest preset chosen ahead of it, so it
            // did not measure for itself (that would find the preset asked for fast enough).
            output.encoderFrameDelay = 0
            let path = folder.path("prepared.mp4")
            try await output.startRecording(to: path, timeout: patience)
            let summary = try #require(await output.waitUntilFinished())
            #expect(summary.preset == "ultrafast", "\(summary)")
            #expect(output.measurementCount == 1)
            #expect(try decodesCleanly(path))
        }

        @Test("an encoder that keeps up: every frame kept, none dropped, the preset asked for (ultrafast stays ultrafast)")
        func fastEncoder() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.maxRecordedDuration = 1
            output.options = .init(preset: "ultrafast")
            let session = try await session(output)
            defer { session.stopRunning() }
            let interval = try interval(session)
            let path = folder.path("fast.mp4")
            try await output.startRecording(to: path, timeout: patience)
            let summary = try #require(await output.waitUntilFinished())
            let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            #expect(abs(account.duration - 1) <= interval, "\(account)")
            #expect(summary.preset == "ultrafast")
            // Whatever a busy machine dropped is reported, and the rate said with it.
            #expect((summary.keptFrameRate == nil) == (summary.droppedFrameCount == 0), "\(summary)")
            #expect(summary.frameCount + summary.droppedFrameCount <= summary.cameraFrameCount, "\(summary)")
            account.checkLossesReported(trailing: nil)
        }

        @Test("sound still on its way when the recording stops (200 ms behind the camera, as a busy sound path is) is in the movie: its sound lasts as long as its picture")
        func lateSoundAtStop() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.audioSettings = (sampleRate: 48_000, channels: 1)
            let session = try await session(output)
            defer { session.stopRunning() }
            let interval = try interval(session)
            let path = folder.path("late-sound.mp4")
            // A feeder standing in for the microphone: 10-ms buffers of a 440 Hz tone stamped when
            // they were captured, each handed over 200 ms later (a loaded machine's sound path was
            // seen to hold 390 ms), and still going after the stop is asked.
            let stop = Lock(false)
            let began = monotonicNow()
            let feeder = Thread {
                let lag: Int64 = 200_000_000, step: Int64 = 10_000_000
                var next = began, phase = 0
                var buffer = [Int16](repeating: 0, count: 480)
                while !stop.withLock({ $0 }) {
                    while next + lag <= monotonicNow() {
                        for i in buffer.indices { buffer[i] = Int16(8_000 * sin(2 * Double.pi * 440 * Double(phase + i) / 48_000)) }
                        phase += buffer.count
                        buffer.withUnsafeBufferPointer { output.appendAudio($0, timestampNanoseconds: next) }
                        next += step
                    }
                    usleep(2_000)
                }
            }
            feeder.start()
            defer { stop.withLock { $0 = true } }
            try output.startRecording(to: path, delegate: nil)
            #expect(await waitUntil { slots(output) >= Int((2 / interval).rounded()) })
            let summary = try #require(await output.stopRecording())
            #expect(summary.hasAudio)
            let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            let picture = (account.times.last ?? 0) + interval
            let seconds = Double(try decodedSound(path).count) / 48_000
            // Without waiting for it, the last 200 ms of sound were missing (the test failed so);
            // with it, the sound reaches the end (AAC adds up to 43 ms of padding, and a 10-ms
            // buffer may fall either side of it). Half the lag is left to a loaded machine.
            #expect(seconds >= picture - 0.1 && seconds <= picture + 0.055, "sound \(seconds) s, picture \(picture) s")
        }

        @Test("maxRecordedDuration finishes the file with the limit as the reason; pausing leaves no gap")
        func limitsAndPause() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.maxRecordedDuration = 1.5
            let session = try await session(output)
            defer { session.stopRunning() }
            let interval = try interval(session)
            let events = RecordingEvents()
            let path = folder.path("limited.webm")
            output.options = .init(format: .webmVP8)
            try output.startRecording(to: path, delegate: events)
            #expect(await waitUntil { slots(output) >= Int((0.5 / interval).rounded()) })
            output.pauseRecording()
            #expect(output.isRecordingPaused)
            try await Task.sleep(for: .seconds(1))
            output.resumeRecording()
            let summary = try #require(await output.waitUntilFinished())
            #expect(output.lastError == .recordingLimitReached(path: path, limit: "maximum duration of 1.5 s"))
            #expect(events.events.withLock { $0 }.last?.contains("maximum duration") == true)
            #expect(try videoStream(path, "codec_name") == "vp8")
            #expect(try decodesCleanly(path))
            // The 1.5 s are the frame times in the file plus those reported lost; the second of
            // pause is not among them. Pausing and resuming go by the wall clock, so the frames
            // after the pause are on a grid of their own (one join), and the join may hide the few
            // frames the camera held for a late reader when the pause began or ended.
            let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            let expected = Int((1.5 / interval).rounded())
            let join = 1 + VirtualCameraBackend.waitingFrames
            account.checkTiming(onGrid: true, joins: 1)
            account.checkLossesReported(trailing: nil, slack: join)
            account.checkDuration()
            // None lost unreported. (Frames the camera lost at the resume are reported as skipped but
            // fall inside the join, where the file cannot show them, and a busy machine can make
            // that many: 82 reported for 67 missing was seen under CI's load; so no upper bound.)
            #expect(account.accountedSlots >= expected - join, "\(account)")
            // No frame at or past the limit (WebM keeps times to the millisecond: 1.4996 s reads 1.5).
            #expect((account.times.last ?? 0) < 1.5 + 0.001, "no frame at or past the limit: \(account)")
            // The movie lasts the limit: its last frame until then.
            #expect(abs(account.duration - 1.5) < 0.002 && abs(summary.duration - account.duration) < 0.002, "\(summary.duration) s; \(account)")
        }
    }
}

extension VirtualCameraSuites {
    @Suite("Recording movies with sound (a private PulseAudio server)", .serialized, .privateSoundServer)
    struct MovieSoundTests {
        let back = try! CaptureDevice.device(withID: "test-back")

        @Test("AAC at 48 kHz from the microphone: the 440 Hz tone is what was recorded, and sound lasts as long as the picture",
              arguments: [MovieSettings.Format.mp4, .webm])
        func sound(format: MovieSettings.Format) async throws {
            let folder = try TemporaryDirectory()
            let movie = MovieFileOutput()
            movie.options = .init(format: format)
            let session = CaptureSession()
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: back))
            session.addOutput(movie)
            try await session.start()
            defer { session.stopRunning() }
            let microphone = try Microphone.microphone(withID: "sine")
            let audio = AudioDataOutput(settings: .init(channels: .stereo, microphoneID: microphone.uniqueID))
            try await audio.start()
            defer { audio.stopWaiting() }  // defer cannot await: the blocking form
            movie.recordSound(from: audio)
            let path = folder.path("sound.\(format.fileExtension)")
            let interval = try #require(session.activeStream).frameInterval.seconds
            try movie.startRecording(to: path, delegate: nil)
            #expect(await waitUntil { movie.recordedFrameCount + movie.droppedFrameCount + movie.skippedFrameCount >= Int((3 / interval).rounded()) })
            let summary = try #require(await movie.stopRecording())
            #expect(summary.hasAudio)
            // Every frame time missing from the picture was reported lost (counted over the span,
            // with one to spare for the shift below).
            let account = try RecordingAccount(path: path, frameInterval: interval, reportedLost: summary.droppedFrameCount + summary.skippedFrameCount)
            account.checkLossesReported(trailing: nil, slack: 1)
            #expect(account.offGridGaps.count <= 1, "on the camera's grid but for the shift below: \(account)")
            // Intermittent: whether the shift shows depends on where the first frame falls against
            // the encoder's first sound packet.
            withKnownIssue("the sound encoder's delay shifts the picture: AAC's 1024 priming samples lengthen an MP4's first frame by 21.3 ms (every later frame is that much late against the sound); Opus's pre-skip starts a WebM's picture at 7 ms",
                           isIntermittent: true) {
                account.checkTiming(onGrid: true)
            }
            let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,sample_rate,channels,start_time,duration",
                                                "-of", "default=noprint_wrappers=1", path])
            #expect(probe.stdout.contains("codec_name=\(format == .mp4 ? "aac" : "opus")") && probe.stdout.contains("sample_rate=48000")
                    && probe.stdout.contains("channels=2"), "\(probe.stdout)")
            // The sound, decoded by FFmpeg: the tone dominates.
            let samples = try decodedSound(path)
            let seconds = Double(samples.count) / 48_000
            // The sound ends with the picture (its last frame's time plus an interval): longer by at
            // most the encoder's padding (AAC: 1024 priming samples and a last frame filled up,
            // 43 ms; Opus: 27 ms) and a 10 ms buffer; shorter by at most what the sound path still
            // held when the recording stopped (a busy machine delays it: a quarter of a second
            // would be a starved reader, not load).
            let picture = (account.times.last ?? 0) + interval
            print("sound \(format.fileExtension): \(seconds) s, picture \(picture) s")
            #expect(seconds <= picture + 0.055 && seconds >= picture - 0.25, "sound \(seconds) s, picture \(picture) s")
            let middle = Array(samples[(samples.count / 4)..<(samples.count * 3 / 4)])
            let tone = goertzel(middle, frequency: 440, rate: 48_000)
            for other in [300.0, 600, 1000] {
                #expect(tone > 100 * goertzel(middle, frequency: other, rate: 48_000), "440 Hz against \(other) Hz")
            }
            #expect(try decodesCleanly(path))
        }
    }
}
