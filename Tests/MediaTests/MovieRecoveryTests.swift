import Foundation
import Glibc
@testable import Media
import Testing
import TestSupport

/// `MovieRecovery`: fragmented MP4s left by a recorder that is gone are finished; a live
/// recorder's file is never touched.
@Suite struct MovieRecoveryTests {
    /// The number of video frames ffprobe reads from `path`.
    private func frames(_ path: String) throws -> Int {
        Int(try ffprobe(path, select: "v:0", "stream=nb_read_frames")["nb_read_frames"] ?? "") ?? -1
    }

    /// `finishIfAbandoned`, asked again (up to 2 s) while the lock reads as held after the writer
    /// let go: a child process another test spawns at that moment holds a copy of every
    /// descriptor until its exec closes the close-on-exec ones.
    private func finishOnceLetGo(_ path: String) throws -> MovieRecovery.Outcome {
        for _ in 0..<200 {
            let outcome = try MovieRecovery.finishIfAbandoned(path: path)
            if outcome != .inUse { return outcome }
            usleep(10_000)
        }
        return .inUse
    }

    /// The container's length in seconds, as ffprobe reads it.
    private func duration(_ path: String) throws -> Double {
        Double(try ffprobe(path, select: nil, "format=duration")["duration"] ?? "") ?? -1
    }

    @Test("a fragmented MP4 is left alone while its writer holds it, and finished (regular, same frames and length) once abandoned")
    func finishesOnlyAbandonedFiles() throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("crash.mp4")
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240, frameRate: 30, fragmentInterval: 1))
        try recording.feed(writer, seconds: 2.5)
        #expect(try topLevelBoxes(path).contains("moof"))
        let live = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try MovieRecovery.finishIfAbandoned(path: path) == .inUse)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == live, "the live file is untouched")
        writer.abandon()
        let (framesBefore, lengthBefore) = (try frames(path), try duration(path))
        #expect(framesBefore >= 30, "\(framesBefore) frames kept")
        #expect(try finishOnceLetGo(path) == .finished)
        let boxes = try topLevelBoxes(path)
        #expect(!boxes.contains("moof") && boxes.starts(with: ["ftyp", "moov"]), "a regular MP4 with moov first: \(boxes)")
        #expect(try frames(path) == framesBefore)
        let length = try duration(path)
        #expect(abs(length - lengthBefore) < 0.05, "\(length) s against \(lengthBefore) s")
        #expect(try decodesCleanly(path))
        #expect(try finishOnceLetGo(path) == .notFragmented)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["crash.mp4"], "no temporary files left")
    }

    @Test("a finished recording is regular already; other files are not MP4s to finish")
    func leavesOtherFilesAlone() throws {
        let folder = try TemporaryDirectory()
        let recording = try SyntheticRecording()
        let path = folder.path("done.mp4")
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240))
        try recording.feed(writer, seconds: 0.5)
        #expect(try writer.finish() == nil, "made regular")
        #expect(try finishOnceLetGo(path) == .notFragmented)
        let text = folder.path("notes.mp4")
        try Data("not a movie".utf8).write(to: URL(fileURLWithPath: text))
        #expect(try MovieRecovery.finishIfAbandoned(path: text) == .notFragmented)
        #expect(throws: MediaError.self) { try MovieRecovery.finishIfAbandoned(path: folder.path("missing.mp4")) }
        // A recorder that died before its first fragment left no frame: nothing to finish, left as it is.
        let empty = folder.path("empty.mp4")
        try MovieWriterHolder.abandonAfterHeader(empty)
        let before = try Data(contentsOf: URL(fileURLWithPath: empty))
        #expect(try finishOnceLetGo(empty) == .notFragmented)
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)) == before)
    }
}

/// Writers made and given up on at a given point.
enum MovieWriterHolder {
    /// Creates a movie at `path` (header written and synced) and abandons it before any frame.
    static func abandonAfterHeader(_ path: String) throws {
        let writer = try MovieWriter(path: path, settings: MovieSettings(width: 320, height: 240))
        writer.abandon()
    }
}
