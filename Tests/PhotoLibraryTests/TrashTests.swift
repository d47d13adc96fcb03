import Foundation
import Glibc
import Media
@_spi(Testing) import PhotoLibrary
import Testing
import TestSupport

/// A `.trashinfo` file read as the freedesktop Trash spec defines it, by Python (not our
/// parser): the `[Trash Info]` group first, `Path` percent-decoded, `DeletionDate` as local
/// YYYY-MM-DDThh:mm:ss turned into seconds since 1970.
private func readTrashInfo(_ path: String) throws -> (firstLine: String, path: String, date: Double) {
    let script = """
        import sys, urllib.parse, datetime
        lines = open(sys.argv[1], encoding='utf-8').read().splitlines()
        values = dict(line.split('=', 1) for line in lines[1:] if '=' in line)
        date = datetime.datetime.strptime(values['DeletionDate'], '%Y-%m-%dT%H:%M:%S')
        print(lines[0]); print(urllib.parse.unquote(values['Path'])); print(int(date.timestamp()))
        """
    let result = try runTool("/usr/bin/python3", ["-c", script, path])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = result.stdout.split(separator: "\n").map(String.init)
    try #require(lines.count == 3)
    return (lines[0], lines[1], Double(lines[2]) ?? 0)
}

@Suite("Trash and Recently Deleted")
struct TrashTests {
    @Test("delete then restore gives back the same item (identifier, favourite, albums); the Trash holds files/ and info/*.trashinfo as the spec defines")
    func undo() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        // A name that needs percent-encoding, from another program.
        let odd = location.photos + "/café 100% [1].jpg"
        try FileManager.default.createDirectory(atPath: location.photos, withIntermediateDirectories: true)
        let bytes = try jpeg(hour: 10, minute: 0, seed: 101)
        try Data(bytes).write(to: URL(fileURLWithPath: odd))
        #expect(try await library.synchronize().added == 1)
        let photo = try #require(try await library.assets().first)
        let other = try await library.addPhoto(data: jpeg(hour: 11, minute: 0, seed: 102))
        try await library.createAlbum("Trip")
        try await library.createAlbum("Best")
        try await library.add(ids: [photo.id, other.id], toAlbum: "Trip")
        try await library.add(ids: [photo.id], toAlbum: "Best")
        try await library.setFavorite(true, ids: [photo.id])
        let marked = try #require(try await library.asset(id: photo.id))
        let stream = await library.changes()

        let before = Date().timeIntervalSince1970
        try await library.delete(ids: [photo.id])
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [], removed: [photo.id], changed: []))
        let name = "café 100% [1].jpg"
        #expect(try FileBytes.read(path: folder.path("Trash/files") + "/" + name) == bytes)
        let info = try readTrashInfo(folder.path("Trash/info") + "/" + name + ".trashinfo")
        #expect(info.firstLine == "[Trash Info]" && info.path == odd)
        #expect(info.date >= before.rounded(.down) - 1 && info.date <= Date().timeIntervalSince1970 + 1)
        let raw = try String(contentsOfFile: folder.path("Trash/info") + "/" + name + ".trashinfo", encoding: .utf8)
        #expect(raw.contains("caf%C3%A9%20100%25%20%5B1%5D.jpg"), "\(raw)")
        #expect(try await library.albums().map(\.count) == [0, 1], "Best is empty, Trip has the other photo")

        let trashed = try await library.trashedAssets()
        #expect(trashed.map(\.id) == [photo.id])
        #expect(trashed.first?.originalPath == odd && trashed.first?.deletionDate == info.date)
        #expect(trashed.first?.trashedPath == folder.path("Trash/files") + "/" + name)
        #expect(trashed.first?.albums == ["Best", "Trip"] && trashed.first?.asset.isFavorite == true)
        #expect(trashed.first?.asset.pixelWidth == 320 && trashed.first?.asset.fileSize == bytes.count)

        let restored = try await library.restore(ids: [photo.id])
        #expect(restored == [marked], "the same asset: identifier, path, favourite, every field")
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [photo.id], removed: [], changed: []))
        #expect(try await library.assets(inAlbum: "Best").map(\.id) == [photo.id])
        #expect(Set(try await library.assets(inAlbum: "Trip").map(\.id)) == [photo.id, other.id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("Trash/files")).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("Trash/info")).isEmpty)
        #expect(try await library.trashedAssets().isEmpty)
        #expect(try FileBytes.read(path: odd) == bytes)
    }

    @Test("restoring: beside a name taken again; unknown identifiers and content added again are refused, leaving the Trash as it was")
    func restoreCases() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let a = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 111))
        let bBytes = try jpeg(hour: 9, minute: 0, seed: 112)
        let b = try await library.addPhoto(data: bBytes)
        try await library.delete(ids: [a.id, b.id])
        #expect(try await library.count == 0)
        #expect(Set(try await library.trashedAssets().map(\.id)) == [a.id, b.id])
        // All or nothing: one unknown identifier restores nothing.
        await #expect(throws: LibraryError.notFound("nope")) { try await library.restore(ids: [a.id, "nope"]) }
        let afterRefusal = (try await library.count, try await library.trashedAssets().count)
        #expect(afterRefusal == (0, 2))
        // A's name is taken by another file meanwhile: A comes back beside it, same identifier.
        try Data(jpeg(hour: 12, minute: 0, seed: 113)).write(to: URL(fileURLWithPath: a.path))
        let back = try await library.restore(ids: [a.id])
        #expect(back.map(\.id) == [a.id] && back.first?.path == a.path.replacingOccurrences(of: ".jpg", with: " (2).jpg"))
        // B's content was added again: restoring it would make a duplicate.
        let again = try await library.addPhoto(data: bBytes)
        #expect(again.id == b.id)
        await #expect(throws: LibraryError.self) { try await library.restore(ids: [b.id]) }
        #expect(try await library.trashedAssets().map(\.id) == [b.id])
    }

    @Test("deleting for good removes the file, its .trashinfo and its thumbnails; entries another program emptied are forgotten")
    func deleteForGood() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let a = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 121))
        let b = try await library.addPhoto(data: jpeg(hour: 9, minute: 0, seed: 122))
        let c = try await library.addPhoto(data: jpeg(hour: 10, minute: 0, seed: 123))
        let thumbnail = try await library.thumbnail(for: a.id, size: .normal)
        try await library.delete(ids: [a.id, b.id, c.id])
        await #expect(throws: LibraryError.notFound("nope")) { try await library.deletePermanently(ids: [a.id, "nope"]) }
        #expect(try await library.trashedAssets().count == 3, "checked first: nothing deleted")
        try await library.deletePermanently(ids: [a.id])
        let aName = (a.path as NSString).lastPathComponent
        #expect(!FileManager.default.fileExists(atPath: folder.path("Trash/files") + "/" + aName))
        #expect(!FileManager.default.fileExists(atPath: folder.path("Trash/info") + "/" + aName + ".trashinfo"))
        #expect(!FileManager.default.fileExists(atPath: thumbnail))
        await #expect(throws: LibraryError.notFound(a.id)) { try await library.restore(ids: [a.id]) }
        // A file manager empties B from the Trash.
        let bName = (b.path as NSString).lastPathComponent
        #expect(try runTool("rm", [folder.path("Trash/files") + "/" + bName, folder.path("Trash/info") + "/" + bName + ".trashinfo"]).status == 0)
        #expect(try await library.trashedAssets().map(\.id) == [c.id])
        #expect(try sqlite(location.index, "SELECT COUNT(*) FROM trashed") == "1")
    }

    @Test("a .trashinfo that cannot be written fails the delete: nothing is trashed, the asset stays")
    func infoWriteFails() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let photo = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 131))
        await library.simulateTrashInfoWriteFailure(errno: ENOSPC)
        await #expect(throws: LibraryError.cannotTrash(path: photo.path, failure: .diskFull)) { try await library.delete(ids: [photo.id]) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("Trash/info")).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("Trash/files")).isEmpty)
        #expect(try await library.assets() == [photo] && FileManager.default.fileExists(atPath: photo.path))
        #expect(try await library.trashedAssets().isEmpty)
    }

    @Test("an entry trashed by an index from before rows were kept (version 2) restores with its identifier and favourite")
    func legacyEntry() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let photo: Asset
        do {
            let library = try await PhotoLibrary(location: location)
            photo = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 141))
            try await library.setFavorite(true, ids: [photo.id])
            try await library.delete(ids: [photo.id])
        }
        _ = try sqlite(location.index, """
            CREATE TABLE old (id TEXT PRIMARY KEY, trash_name TEXT NOT NULL, favorite INTEGER NOT NULL DEFAULT 0);
            INSERT INTO old SELECT id, trash_name, favorite FROM trashed;
            DROP TABLE trashed_albums; DROP TABLE trashed; ALTER TABLE old RENAME TO trashed; PRAGMA user_version = 2;
            """)
        let library = try await PhotoLibrary(location: location)
        #expect(try sqlite(location.index, "PRAGMA user_version") == "5")
        let listed = try await library.trashedAssets()
        #expect(listed.map(\.id) == [photo.id] && listed.first?.originalPath == photo.path)
        let restored = try await library.restore(ids: [photo.id])
        #expect(restored.map(\.id) == [photo.id] && restored.first?.isFavorite == true && restored.first?.path == photo.path)
    }
}
