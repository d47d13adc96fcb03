import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

/// The library `isolatedEnvironment(folder)` gives `pinhole`, as a library in this process sees it.
private func userLibrary(in folder: TemporaryDirectory) -> LibraryLocation {
    LibraryLocation(photos: folder.path("Pictures/Camera"), videos: folder.path("Videos/Camera"),
                    index: folder.path(".local/share/pinhole/library.sqlite3"), trash: folder.path(".local/share/Trash"),
                    thumbnails: folder.path(".cache/thumbnails"))
}

/// Runs sqlite3 on `index` and returns its trimmed output.
private func query(_ index: String, _ sql: String) throws -> String {
    let result = try runTool("sqlite3", [index, sql])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("pinhole library beside other processes", .serialized)
struct ConcurrentChangesTests {
    @Test("two `pinhole library delete` processes, a gallery watching in this process and a third process reconciling in a loop: 40 deleted, 40 in Recently Deleted, 40 restored with their favourites and albums")
    func deleteWhileWatched() async throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let files = try (0..<40).map { index in
            try folder.file("w-\(index).jpg", JPEGEncoder().encode(SyntheticImage.photoLike(width: 64, height: 48, seed: UInt64(300 + index)), quality: 80)).path
        }
        let imported = try pinhole(["library", "import"] + files, environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let ids = imported.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
        try #require(ids.count == 40)
        #expect(try pinhole(["library", "favorite"] + Array(ids[..<10]), environment: env).status == 0)
        #expect(try pinhole(["library", "album", "create", "Trip"], environment: env).status == 0)
        #expect(try pinhole(["library", "album", "add", "Trip"] + Array(ids[30...]), environment: env).status == 0)

        // The app's gallery: a library in this process following changes (its watcher reconciles
        // every file it sees go), and a third process reconciling the whole library in a loop.
        let location = userLibrary(in: folder)
        let gallery = try await PhotoLibrary(location: location)
        let stream = await gallery.changes()
        #expect(await gallery.changeTracking == .live)
        let reconciler = try BackgroundProcess(["/bin/sh", "-c", "while :; do \"$0\" library verify --repair >/dev/null || exit 1; done", pinholeBinary],
                                               environment: env)
        let first = try BackgroundProcess([pinholeBinary, "library", "delete"] + Array(ids[..<20]), environment: env)
        let second = try BackgroundProcess([pinholeBinary, "library", "delete"] + Array(ids[20...]), environment: env)
        let statuses = (first.waitForExit(seconds: 120), second.waitForExit(seconds: 120))
        #expect(statuses.0 == 0 && statuses.1 == 0, "\(first.errors) \(second.errors)")
        #expect(!reconciler.hasExited, "the reconciler failed: \(reconciler.errors)")
        reconciler.stop()
        // The gallery shows none of them any more.
        #expect(try await gallery.count == 0)
        withExtendedLifetime(stream) {}
        let index = location.index
        #expect(try query(index, "SELECT COUNT(*) FROM assets") == "0")
        #expect(try query(index, "SELECT COUNT(*) FROM trashed") == "40", "every deleted item is recorded as trashed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path(".local/share/Trash/files")).count == 40)
        #expect(Set(try await gallery.trashedAssets().map(\.id)) == Set(ids), "Recently Deleted lists all 40")

        let restored = try pinhole(["library", "restore"] + ids, environment: env)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.split(separator: "\n").count == 40)
        #expect(try query(index, "SELECT COUNT(*), SUM(favorite) FROM assets") == "40|10")
        #expect(try pinhole(["library", "albums"], environment: env).stdout == "Trip\t10\n")
        #expect(try query(index, "PRAGMA integrity_check") == "ok")
    }

    @Test("a watcher never acts on a batch halfway: while another process's batch holds the library's lock with a photo already moved out, the gallery's watcher waits, and once the batch ends the photo is still one item")
    func watcherWaitsForTheBatch() async throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let file = try folder.file("half.jpg", JPEGEncoder().encode(SyntheticImage.photoLike(width: 64, height: 48, seed: 501), quality: 80)).path
        let imported = try pinhole(["library", "import", file], environment: env)
        let fields = imported.stdout.split(separator: "\n").first?.split(separator: "\t").map(String.init) ?? []
        try #require(imported.status == 0 && fields.count == 2, "\(imported.stderr)")
        let (id, path) = (fields[0], fields[1])
        #expect(try pinhole(["library", "favorite", id], environment: env).status == 0)
        let location = userLibrary(in: folder)
        let gallery = try await PhotoLibrary(location: location)
        let stream = await gallery.changes()
        #expect(await gallery.changeTracking == .live)

        // Another process's batch, halfway: it holds the library's lock (the file beside the
        // index) and has moved the photo's file out, its row not yet changed.
        let lockFile = location.index + ".lock"
        let batch = open(lockFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        try #require(batch >= 0 && flock(batch, LOCK_EX) == 0)
        let aside = folder.path("aside.jpg")
        #expect(rename(path, aside) == 0)
        // Wait until the watcher has either acted (the row gone: the bug) or is waiting for the
        // lock (/proc/locks lists a blocked flock by this process on the lock file).
        var info = stat()
        #expect(stat(lockFile, &info) == 0)
        let waiting = ":\(info.st_ino) "
        let decided = try await waitUntil {
            let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
            let blocked = locks.split(separator: "\n").contains { $0.contains("-> FLOCK") && $0.contains(" \(getpid()) ") && $0.contains(waiting) }
            let rows = try query(location.index, "SELECT COUNT(*) FROM assets")
            return blocked || rows == "0"
        }
        #expect(decided)
        // The batch puts the file back (as a failed batch does) and lets the lock go.
        #expect(rename(aside, path) == 0)
        close(batch)
        _ = try await gallery.synchronize()
        #expect(try query(location.index, "SELECT id, favorite FROM assets") == "\(id)|1", "the photo is still the same item, favourite kept")
        withExtendedLifetime(stream) {}
    }
}
