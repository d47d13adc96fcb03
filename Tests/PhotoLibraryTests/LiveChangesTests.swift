import Foundation
import Glibc
import Media
@_spi(Testing) import PhotoLibrary
import Testing
import TestSupport

/// Milliseconds since `start`, for the figures a test prints (never asserted: the benchmark measures).
private func milliseconds(since start: ContinuousClock.Instant) -> Int {
    let elapsed = ContinuousClock.now - start
    return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
}

@Suite("Live changes from other programs")
struct LiveChangesTests {
    @Test("a photo copied in with cp, one moved in with mv, one linked with ln and a movie copied in appear in the stream; rm removes one")
    func copyMoveRemove() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        let stream = StreamRecorder(await library.changes())
        #expect(await library.changeTracking == .live)
        let copied = try folder.file("copied.jpg", jpeg(hour: 8, minute: 0, seed: 71)).path
        let moved = try folder.file("moved.jpg", jpeg(hour: 9, minute: 0, seed: 72)).path
        let movie = folder.path("clip.mp4")
        try makeTestMovie(movie, seconds: 1)
        var figures: [String] = []

        func arrival(_ what: String, _ command: String, _ arguments: [String]) async throws -> LibraryChange? {
            #expect(try runTool(command, arguments).status == 0)
            let start = ContinuousClock.now
            // A busy machine may take long over one arrival: the later ones are still awaited.
            let change = await stream.take(1, seconds: 3 * patience).first
            figures.append("\(what) \(milliseconds(since: start)) ms")
            return change
        }

        let afterCopy = try await arrival("cp", "cp", [copied, location.photos + "/copied.jpg"])
        let copiedAsset = try #require(try await library.assets().first { $0.path == location.photos + "/copied.jpg" })
        #expect(afterCopy == LibraryChange(inserted: [copiedAsset.id], removed: [], changed: []))
        let afterMove = try await arrival("mv", "mv", [moved, location.photos + "/moved.jpg"])
        let movedAsset = try #require(try await library.assets().first { $0.path == location.photos + "/moved.jpg" })
        #expect(afterMove == LibraryChange(inserted: [movedAsset.id], removed: [], changed: []))
        let afterMovie = try await arrival("cp (movie)", "cp", [movie, location.videos + "/clip.mp4"])
        let movieAsset = try #require(try await library.assets(mediaType: .video).first)
        #expect(afterMovie == LibraryChange(inserted: [movieAsset.id], removed: [], changed: []) && movieAsset.duration ?? 0 > 0.5)
        // A finished file linked in (as `ln` does, and AtomicFile for other Pinhole processes, which
        // add its row themselves): indexed after the grace left to its writer.
        let linked = try folder.file("linked.jpg", jpeg(hour: 10, minute: 0, seed: 73)).path
        let afterLink = try await arrival("ln (after its grace)", "ln", [linked, location.photos + "/linked.jpg"])
        let linkedAsset = try #require(try await library.assets().first { $0.path == location.photos + "/linked.jpg" })
        #expect(afterLink == LibraryChange(inserted: [linkedAsset.id], removed: [], changed: []))
        let afterRemove = try await arrival("rm", "rm", [location.photos + "/copied.jpg"])
        #expect(afterRemove == LibraryChange(inserted: [], removed: [copiedAsset.id], changed: []))
        #expect(Set(try await library.assets().map(\.id)) == [movedAsset.id, movieAsset.id, linkedAsset.id])
        print("live change latency (command finished → change in the stream): \(figures.joined(separator: ", "))")
    }

    @Test("a file being written is indexed only once closed; hidden temporary files and other names never")
    func halfWritten() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        let stream = await library.changes()
        let slow = try jpeg(hour: 10, minute: 0, seed: 81)
        let path = location.photos + "/slow.jpg"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        let half = slow.count / 2
        #expect(slow.withUnsafeBytes { write(fd, $0.baseAddress, half) } == half)
        // A complete temporary file as AtomicFile names them, and a file that is no photo.
        _ = try folder.file("lib/Photos/.Photo from x.jpg.999.0.tmp", jpeg(hour: 11, minute: 0, seed: 82))
        _ = try folder.file("lib/Photos/notes.txt", Array("not a photo".utf8))
        // A marker copied in after them: once it is in, the events before it were handled.
        #expect(try runTool("cp", [try folder.file("marker.jpg", jpeg(hour: 12, minute: 0, seed: 83)).path, location.photos + "/marker.jpg"]).status == 0)
        let first = await collect(stream, count: 1, seconds: patience).first
        #expect(try await library.assets().map(\.path) == [location.photos + "/marker.jpg"])
        #expect(first?.inserted.count == 1)
        // Finished and closed: now it is indexed, whole.
        #expect(slow.withUnsafeBytes { write(fd, $0.baseAddress! + half, slow.count - half) } == slow.count - half)
        close(fd)
        let second = await collect(stream, count: 1, seconds: patience).first
        let indexed = try #require(try await library.assets().first { $0.path == path })
        #expect(second == LibraryChange(inserted: [indexed.id], removed: [], changed: []))
        #expect(indexed.fileSize == slow.count && indexed.pixelWidth == 320)
    }

    @Test("when inotify cannot be set up the stream and changeTracking say so, and changes are still found by polling")
    func fallback() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        await library.simulateWatchFailure(.tooManyWatches)
        let stream = await library.changes()
        let said = await collect(stream, count: 1, seconds: patience).first
        #expect(said == LibraryChange(inserted: [], removed: [], changed: [], tracking: .polling(because: .tooManyWatches)))
        #expect(await library.changeTracking == .polling(because: .tooManyWatches))
        #expect(ChangeTracking.polling(because: .tooManyWatches).description.contains("max_user_watches"))
        // Moved in whole: polling cannot tell a copy in progress from a damaged file.
        #expect(try runTool("mv", [try folder.file("a.jpg", jpeg(hour: 8, minute: 0, seed: 91)).path, location.photos + "/a.jpg"]).status == 0)
        let found = await collect(stream, count: 1, seconds: patience).first
        #expect(found?.inserted.count == 1 && found?.tracking == nil)
    }

    @Test("a watched folder removed: its photos go, the stream says it polls, and a folder made again is followed")
    func folderRemoved() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        let photo = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 95))
        let stream = await library.changes()
        #expect(try runTool("rm", ["-r", location.photos]).status == 0)
        let changes = await collect(stream, count: 2, seconds: patience)
        #expect(changes.first == LibraryChange(inserted: [], removed: [photo.id], changed: []))
        #expect(changes.last?.tracking == .polling(because: .folder(path: location.photos, failure: .notFound)))
        #expect(try runTool("mkdir", [location.photos]).status == 0)
        #expect(try runTool("mv", [try folder.file("b.jpg", jpeg(hour: 9, minute: 0, seed: 96)).path, location.photos + "/b.jpg"]).status == 0)
        let found = await collect(stream, count: 1, seconds: patience).first
        #expect(found?.inserted.count == 1)
    }
}
