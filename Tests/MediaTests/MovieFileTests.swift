import Foundation
import Media
import Testing
import TestSupport

@Suite("Movie files")
struct MovieFileTests {
    @Test("MP4, MOV, MKV and WebM made by FFmpeg: container, size, codecs, duration, frame rate and date",
          arguments: [("mp4", "h264"), ("mov", "h264"), ("mkv", "h264"), ("webm", "vp9")])
    func probe(fileExtension: String, codec: String) throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("clip.\(fileExtension)")
        try makeTestMovie(path, seconds: 2, size: "320x240", rate: 25, codec: codec, extra: ["-metadata", "creation_time=2026-01-02T03:04:05Z"])
        let info = try MovieFile(path: path).info
        #expect(info.kind.fileExtension == fileExtension)
        #expect(info.width == 320 && info.height == 240)
        #expect(info.videoCodec == codec)
        #expect(info.audioCodec == (codec == "vp9" ? "opus" : "aac"))
        #expect(abs(info.duration - 2) < 0.1, "duration \(info.duration)")
        #expect(abs((info.frameRate ?? 0) - 25) < 0.01)
        #expect(info.creationDate == 1_767_323_045)
        if fileExtension == "mp4" || fileExtension == "mov" { #expect(info.frameCount == 50) }
        #expect(info.rotation == .none)
    }

    @Test("a phone's ISO 6709 location tag is read; a malformed one is ignored")
    func location() throws {
        let folder = try TemporaryDirectory()
        let tagged = folder.path("tagged.mp4"), broken = folder.path("broken.mp4")
        try makeTestMovie(tagged, seconds: 0.5, audio: false, extra: ["-metadata", "location=+48.8577+002.2950+035.000/"])
        let place = try #require(try MovieFile(path: tagged).info.location)
        #expect(abs(place.latitude - 48.8577) < 1e-6 && abs(place.longitude - 2.295) < 1e-6 && place.altitude == 35)
        try makeTestMovie(broken, seconds: 0.5, audio: false, extra: ["-metadata", "location=somewhere nice"])
        #expect(try MovieFile(path: broken).info.location == nil)
    }

    @Test("the first frame is the movie's first picture, fitted to the thumbnail size")
    func firstFrame() throws {
        let folder = try TemporaryDirectory()
        let movie = folder.path("clip.mp4"), reference = folder.path("first.png")
        try makeTestMovie(movie, seconds: 1, size: "640x360", audio: false)
        // FFmpeg's own decode of frame 0, scaled the same way, is the reference.
        let result = try runTool("ffmpeg", ["-v", "error", "-y", "-i", movie, "-frames:v", "1", "-vf", "scale=256:144:flags=area", reference])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try MovieFile(path: movie).firstFrame(longestSide: 256)
        #expect(image.width == 256 && image.height == 144)
        let expected = try PNGCodec.decode(FileBytes.read(path: reference), to: .bgra)
        #expect(meanAbsoluteError(expected, image) < 6)
        #expect(image.bgraPixel(x: 10, y: 10).a == 255)
        let thumbnail = try Thumbnailer().thumbnail(ofFile: movie, longestSide: 128)
        #expect(thumbnail.width == 128 && thumbnail.height == 72)
    }

    @Test("a phone's rotated movie: the display matrix is read and the first frame is upright, as FFmpeg shows it")
    func rotated() throws {
        let folder = try TemporaryDirectory()
        let plain = folder.path("plain.mp4"), turned = folder.path("turned.mp4"), reference = folder.path("upright.png")
        try makeTestMovie(plain, seconds: 1, size: "320x240", audio: false)
        #expect(try runTool("ffmpeg", ["-v", "error", "-y", "-i", plain, "-c", "copy", "-metadata:s:v:0", "rotate=90", turned]).status == 0)
        let movie = try MovieFile(path: turned)
        #expect(movie.info.rotation.swapsDimensions)
        #expect(movie.info.displaySize.width == 240 && movie.info.displaySize.height == 320)
        // ffmpeg applies the display matrix itself (autorotate): its frame is the upright truth.
        #expect(try runTool("ffmpeg", ["-v", "error", "-y", "-i", turned, "-frames:v", "1", reference]).status == 0)
        let expected = try PNGCodec.decode(FileBytes.read(path: reference), to: .bgra)
        let image = try movie.firstFrame(longestSide: 320)
        #expect(image.width == expected.width && image.height == expected.height)
        #expect(meanAbsoluteError(expected, image) < 6)
    }

    @Test("not movies or damaged ones are refused with a message, never a crash")
    func badInput() throws {
        let folder = try TemporaryDirectory()
        let good = folder.path("good.mp4")
        try makeTestMovie(good, seconds: 1, audio: false)
        let bytes = try FileBytes.read(path: good)
        let cases: [(String, [UInt8])] = [
            ("empty.mp4", []),
            ("random.mp4", randomBytes(100_000, seed: 7)),
            ("header-only.mp4", Array(bytes.prefix(64))),
            ("half.mp4", Array(bytes.prefix(bytes.count / 2))),
            ("photo.mp4", try JPEGEncoder().encode(photoLikeImage(width: 64, height: 48), quality: 80)),
        ]
        for (name, data) in cases {
            let url = try folder.file(name, data)
            do {
                let movie = try MovieFile(path: url.path)
                _ = try movie.firstFrame(longestSide: 128)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(!error.description.isEmpty && !error.description.contains("\n"), "\(name): \(error)")
            }
        }
        #expect(throws: MediaError.self) { try MovieFile(path: folder.path("missing.mp4")) }
        // A refused movie (sound only) closes what it opened: no descriptor is left behind.
        let soundOnly = folder.path("sound-only.mp4")
        #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", soundOnly]).status == 0)
        let before = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
        for _ in 0..<50 { #expect(throws: MediaError.self) { try MovieFile(path: soundOnly) } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count <= before + 2)
    }
}
