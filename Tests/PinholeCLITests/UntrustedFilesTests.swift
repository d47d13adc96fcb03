import Foundation
import Glibc
import Testing
import TestSupport

/// `pinhole library` against files that lie about their structure, dates that cannot be, and
/// paths that are no files: run as a separate process, so a trap shows as an exit status and a
/// hang as a process still running, never as a dead or stuck test run.
@Suite("pinhole library and untrusted files", .serialized)
struct UntrustedFilesTests {
    /// A private library for one test: its environment and folder.
    private func library() throws -> (TemporaryDirectory, [String: String]) {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        env["PINHOLE_LIBRARY"] = folder.path("library")
        return (folder, env)
    }

    @Test("an MP4 with a box whose 64-bit size is near Int64.max is imported, then left alone and named at every opening")
    func hugeBox() throws {
        let (folder, env) = try library()
        let movie = folder.path("huge.mp4")
        try makeTestMovie(movie, seconds: 0.4, audio: false)
        try appendHugeBox(to: movie)
        #expect(try runTool("ffprobe", ["-v", "error", movie]).status == 0, "FFmpeg reads it")
        let imported = try pinhole(["library", "import", movie], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let stored = try #require(imported.stdout.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        for _ in 0..<2 {
            let listed = try pinhole(["library", "list"], environment: env)
            #expect(listed.status == 0, "exit \(listed.status): \(listed.stderr)")
            #expect(listed.stdout.contains(stored), "still listed: \(listed.stdout)")
            #expect(listed.stderr.contains(stored) && listed.stderr.contains("left as it is") && listed.stderr.contains("past the end"), "\(listed.stderr)")
        }
        #expect(try pinhole(["library", "verify"], environment: env).status == 0)
    }

    @Test("a movie whose creation_time is in year 2147483000 is imported under the time of import")
    func impossibleDate() throws {
        let (folder, env) = try library()
        let movie = folder.path("future.mov")
        try makeTestMovie(movie, seconds: 0.4, audio: false,
                          extra: ["-metadata", "creation_time=2147483000-12001-01T00:00:00", "-movflags", "use_metadata_tags"])
        let before = Date().timeIntervalSince1970
        let imported = try pinhole(["library", "import", movie], environment: env)
        #expect(imported.status == 0, "exit \(imported.status): \(imported.stderr)")
        let listed = try pinhole(["library", "list", "--json"], environment: env)
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let created = try #require(assets.first?["created"] as? String)
        let date = try #require(ISO8601DateFormatter().date(from: created))
        #expect(abs(date.timeIntervalSince1970 - before) < 3600, "\(created)")
    }

    @Test("a FIFO named x.jpg is refused at once as not a regular file, and the library is not stuck")
    func fifo() throws {
        let (folder, env) = try library()
        let fifo = folder.path("x.jpg"), photo = folder.path("good.jpg")
        #expect(mkfifo(fifo, 0o600) == 0)
        let snap = try pinhole(["snap", "-o", photo], environment: env)
        #expect(snap.status == 0, "\(snap.stderr)")
        let run = try BackgroundProcess([pinholeBinary, "library", "import", fifo, photo], environment: env)
        defer { run.stop() }
        // Killed when still running after a while: before, it waited in open() for a writer forever.
        let status = run.waitForExit(seconds: patience)
        #expect(status == 1, "exit \(String(describing: status)) (nil: still blocked after \(patience) s)")
        #expect(run.errors.contains("x.jpg cannot be imported: it is not a regular file."), "\(run.errors)")
        #expect(run.output.split(separator: "\n").count == 1, "the good photo is imported: \(run.output)")
        // A FIFO dropped into the photos folder itself, and one named as a movie into the videos
        // folder: the library opens and lists around them.
        #expect(mkfifo(folder.path("library/Photos/y.jpg"), 0o600) == 0 && mkfifo(folder.path("library/Videos/z.mp4"), 0o600) == 0)
        let listed = try BackgroundProcess([pinholeBinary, "library", "list"], environment: env)
        #expect(listed.waitForExit(seconds: patience) == 0, "\(listed.errors)")
        #expect(listed.output.split(separator: "\n").count == 1, "\(listed.output)")
    }
}
