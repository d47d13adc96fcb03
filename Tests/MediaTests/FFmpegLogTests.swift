import CAV
import Foundation
import Media
import Testing
import TestSupport

@Suite("FFmpeg's log", .serialized)
struct FFmpegLogTests {
    @Test("opening, decoding and writing movies leaves the process's FFmpeg log level as the program set it")
    func logLevelUnchanged() throws {
        let folder = try TemporaryDirectory()
        let made = folder.path("made.mp4")
        try makeTestMovie(made, seconds: 1, audio: false)
        let before = av_log_get_level()
        defer { av_log_set_level(before) }
        for (index, level) in [AV_LOG_WARNING, AV_LOG_ERROR].enumerated() {
            av_log_set_level(level)
            let movie = try MovieFile(path: made)
            _ = try movie.firstFrame(longestSide: 64)
            #expect(av_log_get_level() == level)
            // Written, finished (an MP4 is remuxed to a regular one) and read back.
            let written = folder.path("written-\(index).mp4")
            let writer = try MovieWriter(path: written, settings: MovieSettings(width: 64, height: 48, frameRate: 10, audio: nil))
            let frame = try PixelBuffer(format: .i420, width: 64, height: 48)
            for number in 0..<10 { try writer.appendVideo(frame, timestampNanoseconds: Int64(number) * 100_000_000) }
            try writer.finish()
            _ = try MovieFile(path: written).firstFrame(longestSide: 64)
            #expect(av_log_get_level() == level)
            #expect(throws: MediaError.self) { try MovieFile(path: folder.file("bad-\(index).mp4", Array(FileBytes.read(path: made).prefix(2000))).path) }
            #expect(av_log_get_level() == level)
        }
    }

    @Test("a damaged movie's error carries FFmpeg's own line for it, on one line")
    func ffmpegLineInError() throws {
        let folder = try TemporaryDirectory()
        let good = folder.path("good.mp4")
        try makeTestMovie(good, seconds: 1, audio: false)
        // FFmpeg writes the index (moov) at the end: the first half has none.
        let bytes = try FileBytes.read(path: good)
        let half = try folder.file("half.mp4", Array(bytes.prefix(bytes.count / 2))).path
        do {
            _ = try MovieFile(path: half)
            Issue.record("half a movie was accepted")
        } catch {
            #expect(error.description.contains("moov atom not found") && !error.description.contains("\n"), "\(error)")
        }
    }
}
