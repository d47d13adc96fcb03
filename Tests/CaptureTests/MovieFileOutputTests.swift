@_spi(Testing) import Capture
import Foundation
import Glibc
import Media
import Synchronization
import Testing
import TestSupport

/// ffprobe's value of `entry` for the first video stream (frames counted when asked).
func videoStream(_ path: String, _ entry: String) throws -> String { try ffprobe(path, "stream=" + entry)[entry] ?? "" }

/// Records what a delegate hears.
final class RecordingEvents: MovieFileOutputRecordingDelegate, @unchecked Sendable {
    let events = Mutex<[String]>([])
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

        func session(_ output: MovieFileOutput) throws -> CaptureSession {
            let session = CaptureSession()
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: back))
            session.addOutput(output)
            try session.startSynchronously()
            return session
        }

        @Test("a 2-second recording: H.264 at the camera's size, every recorded frame in the file, the delegate told, a clean decode")
        func record() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            let session = try session(output)
            defer { session.stopRunning() }
            let events = RecordingEvents()
            let path = folder.path("movie.mp4")
            try output.startRecording(to: path, delegate: events)
            #expect(output.isRecording)
            #expect(throws: CaptureError.self) { try output.startRecording(to: folder.path("second.mp4"), delegate: nil) }
            try await Task.sleep(for: .seconds(2))
            let summary = try #require(await output.stopRecording())
            #expect(!output.isRecording)
            #expect(events.events.withLock { $0 } == ["start", "finish"])
            #expect(summary.frameCount >= 50 && summary.droppedFrameCount == 0, "\(summary)")
            #expect(try videoStream(path, "codec_name") == "h264")
            #expect(try videoStream(path, "width") == "640" && videoStream(path, "height") == "480")
            #expect(try videoStream(path, "nb_read_frames") == String(summary.frameCount))
            #expect(abs(summary.duration - 2) < 0.3, "\(summary.duration)")
            #expect(try decodesCleanly(path))
            #expect(summary.fileSize == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64))
            #expect(throws: CaptureError.self) { try output.startRecording(to: path, delegate: nil) }  // exists: never overwritten
        }

        @Test("a photo taken while recording is the stream's size, and the movie goes on uncut")
        func photoWhileRecording() async throws {
            let folder = try TemporaryDirectory()
            let movie = MovieFileOutput(), photos = PhotoOutput()
            let session = try session(movie)
            session.addOutput(photos)
            defer { session.stopRunning() }
            try movie.startRecording(to: folder.path("with-photo.mp4"), delegate: nil)
            try await Task.sleep(for: .milliseconds(700))
            let photo = try await photos.capturePhoto(with: PhotoSettings(format: .jpeg))
            #expect(photo.resolvedSettings.photoDimensions == .init(width: 640, height: 480) && !photo.resolvedSettings.switchedFormat)
            try await Task.sleep(for: .milliseconds(700))
            let summary = try #require(await movie.stopRecording())
            #expect(summary.droppedFrameCount == 0)
            let rate = try #require(session.activeStream).frameInterval.framesPerSecond
            #expect(abs(Double(summary.frameCount) - summary.duration * rate) <= 2, "no gap in the movie at \(rate) fps: \(summary)")
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
            try session.startSynchronously()
            defer { session.stopRunning() }
            #expect(session.activeStream?.pixelFormat == .mjpeg)
            let path = folder.path("mjpeg.mp4")
            try await output.startRecording(to: path)
            #expect(output.isRecording)
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
            let mountPoint = folder.path("small")
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
            try #require(try runTool("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint]).status == 0)
            defer { _ = try? runTool("umount", [mountPoint]) }
            let output = MovieFileOutput()
            output.minFreeDiskSpaceLimit = 1_950_000
            output.options = .init(quality: .constantRateFactor(0))
            let session = try session(output)
            defer { session.stopRunning() }
            let path = mountPoint + "/limited.mp4"
            try await output.startRecording(to: path)
            let summary = try #require(await output.waitUntilFinished())
            #expect("\(output.lastError.map { "\($0)" } ?? "")".contains("minimum free disk space"), "\(String(describing: output.lastError))")
            #expect(summary.frameCount > 0)
            #expect(try decodesCleanly(path))
        }

        @Test("maxRecordedDuration finishes the file with the limit as the reason; pausing leaves no gap")
        func limitsAndPause() async throws {
            let folder = try TemporaryDirectory()
            let output = MovieFileOutput()
            output.maxRecordedDuration = 1.5
            let session = try session(output)
            defer { session.stopRunning() }
            let events = RecordingEvents()
            let path = folder.path("limited.webm")
            output.options = .init(format: .webmVP8)
            try output.startRecording(to: path, delegate: events)
            try await Task.sleep(for: .milliseconds(500))
            output.pauseRecording()
            #expect(output.isRecordingPaused)
            try await Task.sleep(for: .seconds(1))
            output.resumeRecording()
            let summary = try #require(await output.waitUntilFinished())
            #expect(abs(summary.duration - 1.5) < 0.1, "the pause is not in the movie: \(summary.duration)")
            #expect(output.lastError == .recordingLimitReached(path: path, limit: "maximum duration of 1.5 s"))
            #expect(events.events.withLock { $0 }.last?.contains("maximum duration") == true)
            #expect(try videoStream(path, "codec_name") == "vp8")
            #expect(try decodesCleanly(path))
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
            try session.startSynchronously()
            defer { session.stopRunning() }
            let microphone = try Microphone.microphone(withID: "sine")
            let audio = AudioDataOutput(settings: .init(channels: .stereo, microphoneID: microphone.uniqueID))
            try audio.start()
            defer { audio.stop() }
            movie.recordSound(from: audio)
            let path = folder.path("sound.\(format.fileExtension)")
            try movie.startRecording(to: path, delegate: nil)
            try await Task.sleep(for: .seconds(3))
            let summary = try #require(await movie.stopRecording())
            #expect(summary.hasAudio && summary.droppedFrameCount == 0)
            let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_name,sample_rate,channels,start_time,duration",
                                                "-of", "default=noprint_wrappers=1", path])
            #expect(probe.stdout.contains("codec_name=\(format == .mp4 ? "aac" : "opus")") && probe.stdout.contains("sample_rate=48000")
                    && probe.stdout.contains("channels=2"), "\(probe.stdout)")
            // The sound, decoded by FFmpeg: the tone dominates.
            let samples = try decodedSound(path)
            let seconds = Double(samples.count) / 48_000
            #expect(abs(seconds - summary.duration) <= 1.0 / 30 + 0.03, "sound \(seconds) s, picture \(summary.duration) s")
            let middle = Array(samples[(samples.count / 4)..<(samples.count * 3 / 4)])
            let tone = goertzel(middle, frequency: 440, rate: 48_000)
            for other in [300.0, 600, 1000] {
                #expect(tone > 100 * goertzel(middle, frequency: other, rate: 48_000), "440 Hz against \(other) Hz")
            }
            #expect(try decodesCleanly(path))
        }
    }
}
