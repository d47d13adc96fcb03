import Foundation
import Media
import Testing
import TestSupport

/// `count` I420 frames of a photo-like picture that moves, and stereo 16-bit sound at 440 Hz.
struct SyntheticRecording {
    let frames: [PixelBuffer]
    let width: Int, height: Int

    init(width: Int = 320, height: Int = 240, distinct: Int = 8) throws {
        self.width = width
        self.height = height
        let converter = PixelConverter()
        frames = try (0..<distinct).map { index in
            let picture = try SyntheticImage.photoLike(width: width, height: height, seed: UInt64(index + 1))
            let frame = try PixelBuffer(format: .i420, width: width, height: height, rowAlignment: 64)
            try converter.convert(picture, into: frame)
            return frame
        }
    }

    /// Interleaved stereo samples of a 440 Hz sine starting at sample `start`.
    static func tone(start: Int, count: Int, frequency: Double = 440) -> [Int16] {
        var samples = [Int16](repeating: 0, count: count * 2)
        for index in 0..<count {
            let value = Int16(12_000 * sin(2 * Double.pi * frequency * Double(start + index) / 48_000))
            samples[index * 2] = value
            samples[index * 2 + 1] = value
        }
        return samples
    }

    /// Feeds `seconds` at `fps` (video frame n at n/fps plus `jitter(n)` ms) with sound in 10 ms pieces.
    func feed(_ writer: MovieWriter, seconds: Double, fps: Int = 30, start: Int64 = 5_000_000_000,
              jitter: (Int) -> Double = { _ in 0 }) throws {
        let frameCount = Int(seconds * Double(fps))
        var sample = 0
        for index in 0..<frameCount {
            let time = start + Int64((Double(index) / Double(fps) + jitter(index) / 1000) * 1e9)
            try writer.appendVideo(frames[index % frames.count], timestampNanoseconds: time)
            // Sound up to this frame's time, in 480-sample pieces.
            while Double(sample + 480) / 48_000 <= Double(index + 1) / Double(fps) {
                let piece = SyntheticRecording.tone(start: sample, count: 480)
                try piece.withUnsafeBufferPointer { try writer.appendAudio($0, timestampNanoseconds: start + Int64(Double(sample) / 48_000 * 1e9)) }
                sample += 480
            }
        }
    }
}

/// The top-level MP4 boxes of `path`, in order.
func topLevelBoxes(_ path: String) throws -> [String] {
    let bytes = try FileBytes.read(path: path)
    var boxes: [String] = [], offset = 0
    while offset + 8 <= bytes.count {
        var size = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        boxes.append(String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self))
        if size == 1 { size = bytes[(offset + 8)..<(offset + 16)].reduce(0) { $0 << 8 | Int($1) } }
        guard size >= 8 else { break }
        offset += size
    }
    return boxes
}


@Suite("Movie writer")
struct MovieWriterTests {
    @Test("H.264 + AAC in MP4 and VP9/VP8 + Opus in WebM: codecs, size, every frame, duration, and a clean decode by FFmpeg",
          arguments: [MovieSettings.Format.mp4, .webm, .webmVP8])
    func formats(format: MovieSettings.Format) throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("movie.\(format.fileExtension)")
        let writer = try MovieWriter(path: path, settings: MovieSettings(format: format, width: 320, height: 240, frameRate: 30), creationDate: 1_767_323_045)
        try recording.feed(writer, seconds: 2)
        #expect(writer.videoFrameCount == 60)
        try writer.finish()
        let video = try ffprobe(path, select: "v:0", "stream=codec_name,width,height,nb_read_frames")
        let expectedVideo = format == .mp4 ? "h264" : (format == .webm ? "vp9" : "vp8")
        #expect(video["codec_name"] == expectedVideo && video["width"] == "320" && video["height"] == "240")
        #expect(video["nb_read_frames"] == "60", "\(video)")
        let audio = try ffprobe(path, select: "a:0", "stream=codec_name,sample_rate,channels")
        #expect(audio["codec_name"] == (format == .mp4 ? "aac" : "opus") && audio["sample_rate"] == "48000" && audio["channels"] == "2", "\(audio)")
        let duration = try runTool("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        #expect(abs((Double(duration.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 2) < 1.0 / 30 + 0.03, "\(duration.stdout)")
        #expect(try decodesCleanly(path))
        let info = try MovieFile(path: path).info
        #expect(info.creationDate == 1_767_323_045)
        if format == .mp4 {
            let boxes = try topLevelBoxes(path)
            #expect(boxes.first == "ftyp" && boxes.firstIndex(of: "moov")! < boxes.firstIndex(of: "mdat")!, "\(boxes)")
            #expect(!boxes.contains("moof"), "a finished MP4 is a regular one: \(boxes)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["movie.\(format.fileExtension)"], "no temporary files")
    }

    @Test("a target bit rate instead of a constant-rate factor: the file's video comes out near it")
    func bitRate() throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording(width: 640, height: 480, distinct: 30)
        let path = folder.path("rate.mp4")
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 640, height: 480, frameRate: 30, quality: .bitRate(400_000), audio: nil))
        try recording.feed(writer, seconds: 4)
        try writer.finish()
        let rate = Double(try ffprobe(path, select: "v:0", "stream=bit_rate")["bit_rate"] ?? "") ?? 0
        #expect(rate > 250_000 && rate < 600_000, "\(rate) b/s for a 400 kb/s target")
    }

    @Test("variable frame timing is kept: each frame's time in the file is the time it was given, within a millisecond")
    func variableTiming() throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("vfr.mp4")
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240, frameRate: 30, audio: nil))
        let jitter: (Int) -> Double = { index in index % 3 == 0 ? 0 : Double((index * 7) % 11) }
        try recording.feed(writer, seconds: 1, jitter: jitter)
        try writer.finish()
        let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
        // The first frame's line carries an empty side-data field: "0.000000,".
        let times = result.stdout.split(separator: "\n").compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
        #expect(times.count == 30)
        for (index, time) in times.sorted().enumerated() {
            #expect(abs(time - (Double(index) / 30 + jitter(index) / 1000)) < 0.001, "frame \(index) at \(time)")
        }
    }

    @Test("finish(endingAt:): the last frame lasts until the recording's end, so a movie with few frames per second is as long as the recording",
          arguments: [MovieSettings.Format.mp4, .webmVP8])
    func lastFrameLastsUntilTheEnd(format: MovieSettings.Format) throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("sparse.\(format.fileExtension)")
        let writer = try MovieWriter(path: path, settings: MovieSettings(format: format, width: 320, height: 240, frameRate: 30, audio: nil))
        // Five frames 0.4 s apart from a 30-fps camera (the rest left out), over a 2-s recording.
        let start: Int64 = 7_000_000_000
        for index in 0..<5 { try writer.appendVideo(recording.frames[index], timestampNanoseconds: start + Int64(index) * 400_000_000) }
        try writer.finish(endingAt: start + 2_000_000_000)
        #expect(abs(writer.duration - 2) < 0.001, "\(writer.duration) s")
        let length = Double(try ffprobe(path, select: nil, "format=duration")["duration"] ?? "") ?? 0
        #expect(abs(length - 2) < 0.002, "\(length) s")
        #expect(try videoFrameTimes(path).map { ($0 * 10).rounded() / 10 } == [0, 0.4, 0.8, 1.2, 1.6])
        #expect(try decodesCleanly(path))
        // Without an end (or one not after the last frame) the last frame lasts one frame interval.
        let plain = folder.path("plain.\(format.fileExtension)")
        let other = try MovieWriter(path: plain, settings: MovieSettings(format: format, width: 320, height: 240, frameRate: 30, audio: nil))
        for index in 0..<3 { try other.appendVideo(recording.frames[index], timestampNanoseconds: start + Int64(index) * 100_000_000) }
        try other.finish(endingAt: start)
        let plainLength = Double(try ffprobe(plain, select: nil, "format=duration")["duration"] ?? "") ?? 0
        #expect(abs(plainLength - (0.2 + 1.0 / 30)) < 0.002 && abs(other.duration - plainLength) < 0.002, "\(plainLength) s, \(other.duration) s")
    }

    @Test("an encoder trial encodes frames as the writer would, writing nothing, and refuses frames of another size")
    func encoderTrial() throws {
        let recording = try SyntheticRecording()
        let trial = try VideoEncoderTrial(settings: MovieSettings(width: 320, height: 240, frameRate: 30, preset: "ultrafast", audio: nil))
        for frame in recording.frames.prefix(4) { try trial.encode(frame) }
        #expect(trial.frameCount == 4)
        let wrong = try PixelBuffer(format: .i420, width: 640, height: 480, rowAlignment: 64)
        #expect(throws: MediaError.self) { try trial.encode(wrong) }
        try trial.finish()
        #expect(throws: MediaError.self) { try trial.encode(recording.frames[0]) }
        #expect(throws: MediaError.self) { try VideoEncoderTrial(settings: MovieSettings(width: 320, height: 240, preset: "no-such-preset", audio: nil)) }
    }

    @Test("sound from a card whose clock runs 100 ppm fast stays within one frame of the picture over 10 minutes")
    func tenMinuteSync() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("sync.mp4")
        let (width, height, fps) = (64, 48, 30)
        var settings = MovieSettings(width: width, height: height, frameRate: fps, preset: "ultrafast", audio: (48_000, 1))
        settings.fragmentInterval = 10
        let writer = try MovieWriter(path: path, settings: settings)
        let black = try PixelBuffer(format: .i420, width: width, height: height)
        let white = try PixelBuffer(format: .i420, width: width, height: height)
        for plane in 0..<3 {
            let fill: UInt8 = plane == 0 ? 16 : 128
            memset(black.baseAddress(ofPlane: plane), Int32(fill), Int(black.bytesPerRow(ofPlane: plane)) * (plane == 0 ? height : height / 2))
            memset(white.baseAddress(ofPlane: plane), Int32(plane == 0 ? 235 : 128), Int(white.bytesPerRow(ofPlane: plane)) * (plane == 0 ? height : height / 2))
        }
        let mark = 599.0, total = 600.0, start: Int64 = 1_000_000_000
        // The card delivers 48 004.8 samples per real second in 10 ms buffers stamped with their
        // real time, as AudioDataOutput stamps them; a 1 kHz burst starts at the mark's real time.
        let cardRate = 48_000.0 * (1 + 100e-6)
        var cardSamples = 0
        var piece = [Int16](repeating: 0, count: 480)
        for frame in 0..<Int(total) * fps {
            let time = Double(frame) / Double(fps)
            try writer.appendVideo(abs(time - mark) < 0.001 ? white : black, timestampNanoseconds: start + Int64(time * 1e9))
            while Double(cardSamples + 480) / cardRate <= time + 1.0 / Double(fps) {
                let bufferTime = Double(cardSamples) / cardRate
                for index in 0..<480 {
                    let t = Double(cardSamples + index) / cardRate
                    piece[index] = t >= mark && t < mark + 0.2 ? Int16(16_000 * sin(2 * Double.pi * 1000 * (t - mark))) : 0
                }
                try piece.withUnsafeBufferPointer { try writer.appendAudio($0, timestampNanoseconds: start + Int64(bufferTime * 1e9)) }
                cardSamples += 480
            }
        }
        try writer.finish()
        #expect(writer.audioCorrections > 0, "the drift was corrected")
        // Where FFmpeg finds the white frame and the burst, decoding the whole file (every frame
        // as it is: no frame-rate conversion).
        let frames = folder.path("frames.raw"), sound = folder.path("sound.raw")
        #expect(try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", frames]).status == 0)
        #expect(try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "s16le", "-ac", "1", sound]).status == 0)
        let pixels = try FileBytes.read(path: frames), samples = try FileBytes.read(path: sound)
        let frameBytes = width * height
        let whiteIndex = try #require(stride(from: 0, to: pixels.count, by: frameBytes).first { pixels[$0 + frameBytes / 2] > 128 }).self / frameBytes
        let loudIndex = try #require(stride(from: 0, to: samples.count - 1, by: 2).first { abs(Int(Int16(bitPattern: UInt16(samples[$0]) | UInt16(samples[$0 + 1]) << 8))) > 4000 }) / 2
        let videoTime = Double(whiteIndex) / Double(fps), audioTime = Double(loudIndex) / 48_000
        #expect(abs(videoTime - mark) < 0.002, "picture mark at \(videoTime)")
        #expect(abs(audioTime - videoTime) < 1.0 / Double(fps), "sound \(audioTime) s against picture \(videoTime) s")
    }

    @Test("a recording stopped without finishing (a crash) plays up to its last fragment")
    func crashSafety() throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("crash.mp4")
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240, frameRate: 30, fragmentInterval: 1))
        try recording.feed(writer, seconds: 3.5)
        writer.abandon()
        #expect(try topLevelBoxes(path).contains("moof"))
        #expect(try decodesCleanly(path))
        let frames = Int(try ffprobe(path, select: "v:0", "stream=nb_read_frames")["nb_read_frames"] ?? "") ?? 0
        // Whole one-second fragments only (30 frames each), all but the one in progress: 3.5 s
        // fed, the encoder's short look-ahead aside, leaves three.
        #expect(frames % 30 == 0 && frames >= 60 && frames <= 90, "whole fragments only: \(frames) frames")
    }

    @Test("a rotated recording carries the display matrix; bad sizes and existing files are refused")
    func rotationAndRefusals() throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("turned.mp4")
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240, audio: nil, rotation: .clockwise90))
        try recording.feed(writer, seconds: 0.5)
        try writer.finish()
        let turned = try MovieFile(path: path).info
        #expect(turned.rotation == .clockwise90, "\(turned)")
        // FFmpeg (autorotating) shows it 240 wide and 320 high.
        let shown = folder.path("shown.png")
        #expect(try runTool("ffmpeg", ["-v", "error", "-i", path, "-frames:v", "1", shown]).status == 0)
        #expect(try runTool("pngcheck", [shown]).stdout.contains("(240x320,"))
        #expect(throws: MediaError.self) { try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240)) }
        #expect(throws: MediaError.self) { try MovieWriter(path: folder.path("odd.mp4"), settings: MovieSettings(width: 321, height: 240)) }
        let other = try MovieWriter(path: folder.path("size.mp4"), settings: MovieSettings(width: 640, height: 480, audio: nil))
        #expect(throws: MediaError.self) { try other.appendVideo(recording.frames[0], timestampNanoseconds: 0) }
        other.abandon()
    }
}
