import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

/// The inode of the file at `path` (0 when it cannot be read).
private func inode(_ path: String) -> UInt {
    var info = stat()
    return stat(path, &info) == 0 ? UInt(info.st_ino) : 0
}

/// A JPEG another program saved: no EXIF at all, so its date is the file's time.
private func plainJPEG(seed: UInt64) throws -> [UInt8] {
    try JPEGEncoder().encode(SyntheticImage.photoLike(width: 200, height: 100, seed: seed), quality: 80)
}

@Suite("A file's identity: edits, renames and copies outside Pinhole")
struct IdentityTests {
    @Test("a photo changed in place (touch; exiftool, which writes a new file and renames it over) keeps its identifier, favourite, albums, cover and capture date; its fingerprint, facts and thumbnail are renewed")
    func changedInPlace() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        let dated = try await library.addPhoto(data: jpeg(hour: 10, minute: 0, seed: 201))
        let scan = location.photos + "/scan.jpg"
        try Data(plainJPEG(seed: 202)).write(to: URL(fileURLWithPath: scan))
        #expect(try await library.synchronize().added == 1)
        let undated = try #require(try await library.assets().first { $0.path == scan })
        try await library.setFavorite(true, ids: [dated.id, undated.id])
        try await library.createAlbum("Trip")
        try await library.add(ids: [dated.id, undated.id], toAlbum: "Trip")
        try await library.setCover(dated.id, ofAlbum: "Trip")
        let thumbnail = try await library.thumbnail(for: dated.id, size: .large)
        let fingerprint = try sqlite(location.index, "SELECT fingerprint FROM assets WHERE id = '\(dated.id)'")

        // touch: both files get a new time, nothing else.
        #expect(try runTool("touch", ["-d", "2031-05-01 12:00", dated.path, scan]).status == 0)
        #expect(try await library.synchronize() == (added: 0, removed: 0))
        let touched = try await library.assets()
        #expect(Set(touched.map(\.id)) == [dated.id, undated.id], "the same identifiers after touch")
        #expect(touched.filter(\.isFavorite).count == 2, "favourites kept after touch")
        #expect(touched.first { $0.id == undated.id }?.creationDate == undated.creationDate, "a photo without EXIF keeps its date")
        #expect(try sqlite(location.index, "SELECT fingerprint FROM assets WHERE id = '\(dated.id)'") == fingerprint, "same bytes, same fingerprint")

        // exiftool edits the tags (the rotate tools' Orientation among them) into a new file and
        // renames it over the photo: a new inode, new bytes.
        let before = inode(dated.path)
        let edit = try runTool("exiftool", ["-q", "-overwrite_original", "-Artist=Someone Else", "-Orientation#=6", dated.path])
        #expect(edit.status == 0, "\(edit.stderr)")
        #expect(inode(dated.path) != before, "exiftool replaced the file")
        // The next opening of the library (the app started, any `pinhole library` command) sees it.
        let reopened = try await PhotoLibrary(location: location)
        let edited = try #require(try await reopened.asset(id: dated.id), "the edited photo keeps its identifier")
        #expect(edited.isFavorite && edited.creationDate == dated.creationDate && edited.path == dated.path)
        #expect(edited.orientation == .right, "the file's facts are read again")
        #expect(edited.fileSize == Int((try FileManager.default.attributesOfItem(atPath: dated.path)[.size] as? NSNumber)?.intValue ?? 0))
        #expect(try await reopened.albums().map(\.count) == [2], "the album still holds both")
        #expect(try await reopened.cover(ofAlbum: "Trip")?.id == dated.id, "the chosen cover still stands")
        #expect(try sqlite(location.index, "SELECT COUNT(*) FROM assets") == "2")
        #expect(try sqlite(location.index, "SELECT COUNT(*) FROM album_assets WHERE asset NOT IN (SELECT id FROM assets)") == "0")
        let renewed = try sqlite(location.index, "SELECT fingerprint FROM assets WHERE id = '\(dated.id)'")
        #expect(!renewed.isEmpty && renewed != fingerprint, "the fingerprint follows the new bytes")
        _ = await reopened.waitForBackgroundThumbnails()
        let mtime = Int((try FileManager.default.attributesOfItem(atPath: dated.path)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let check = try runTool("pngcheck", ["-t", thumbnail])
        #expect(check.stdout.contains("Thumb::MTime:\n    \(mtime)"), "the thumbnail is made again: \(check.stdout)")
    }

    @Test("while the library is watched: an edit is a change of the same item, a rename within the folder keeps the item, favourite and albums")
    func watchedEditAndRename() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        let photo = try await library.addPhoto(data: jpeg(hour: 11, minute: 0, seed: 211))
        try await library.setFavorite(true, ids: [photo.id])
        try await library.createAlbum("Best")
        try await library.add(ids: [photo.id], toAlbum: "Best")
        let stream = await library.changes()
        #expect(await library.changeTracking == .live)

        #expect(try runTool("exiftool", ["-q", "-overwrite_original", "-Artist=Editor", photo.path]).status == 0)
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [], removed: [], changed: [photo.id]))
        #expect(try await library.asset(id: photo.id)?.isFavorite == true)

        let renamed = location.photos + "/Holiday.jpg"
        #expect(try runTool("mv", [photo.path, renamed]).status == 0)
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [], removed: [], changed: [photo.id]))
        let moved = try #require(try await library.asset(id: photo.id))
        #expect(moved.path == renamed && moved.isFavorite)
        #expect(try await library.assets(inAlbum: "Best").map(\.id) == [photo.id])
    }

    @Test("with the library closed: a photo renamed, or removed and put back from a backup (a new inode, the same bytes) keeps its item; a second copy beside the first is a new item")
    func renamedAndRestoredWhileClosed() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let (a, b): (Asset, Asset)
        do {
            let library = try await PhotoLibrary(location: location)
            a = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 221))
            b = try await library.addPhoto(data: jpeg(hour: 9, minute: 0, seed: 222))
            try await library.setFavorite(true, ids: [a.id, b.id])
        }
        let renamed = location.photos + "/renamed.jpg"
        #expect(try runTool("mv", [a.path, renamed]).status == 0)
        let backup = folder.path("backup.jpg")
        #expect(try runTool("cp", [b.path, backup]).status == 0 && unlink(b.path) == 0)
        let restoredPath = location.photos + "/from backup.jpg"
        #expect(try runTool("cp", [backup, restoredPath]).status == 0)
        let copy = location.photos + "/copy of renamed.jpg"
        #expect(try runTool("cp", [renamed, copy]).status == 0)

        let library = try await PhotoLibrary(location: location)
        let assets = try await library.assets()
        #expect(assets.count == 3)
        #expect(assets.first { $0.id == a.id }?.path == renamed, "renamed: the same item")
        #expect(assets.first { $0.id == b.id }?.path == restoredPath, "put back from a backup: the same item")
        #expect(assets.filter(\.isFavorite).map(\.id).sorted() == [a.id, b.id].sorted())
        let second = try #require(assets.first { $0.path == copy })
        #expect(second.id != a.id && !second.isFavorite, "a copy beside its original is another item, never matched by its bytes alone")
    }

    @Test("an index from version 4 gains the identity columns: rows keep identifier, favourite and album, fingerprints come from the identifiers, and an item then edited or trashed and restored stays itself")
    func fromVersion4() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let (a, b): (Asset, Asset)
        do {
            let library = try await PhotoLibrary(location: location)
            a = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 241))
            b = try await library.addPhoto(data: jpeg(hour: 9, minute: 0, seed: 242))
            try await library.setFavorite(true, ids: [a.id, b.id])
            try await library.createAlbum("Kept")
            try await library.add(ids: [a.id, b.id], toAlbum: "Kept")
            try await library.delete(ids: [b.id])
        }
        // Version 4's tables, as that version made them.
        _ = try sqlite(location.index, """
            DROP INDEX IF EXISTS assets_inode; DROP INDEX IF EXISTS assets_fingerprint;
            ALTER TABLE assets DROP COLUMN fingerprint; ALTER TABLE assets DROP COLUMN device; ALTER TABLE assets DROP COLUMN inode;
            ALTER TABLE trashed DROP COLUMN fingerprint; ALTER TABLE trashed DROP COLUMN device; ALTER TABLE trashed DROP COLUMN inode;
            ALTER TABLE trashed DROP COLUMN trash_folder; PRAGMA user_version = 4;
            """)
        #expect(try sqlite(location.index, "SELECT COUNT(*) FROM pragma_table_info('assets') WHERE name = 'fingerprint'") == "0")
        let library = try await PhotoLibrary(location: location)
        #expect(try sqlite(location.index, "PRAGMA user_version") == "5")
        #expect(try sqlite(location.index, "SELECT id, favorite, fingerprint = substr(id, 2), inode > 0 FROM assets") == "\(a.id)|1|1|1")
        #expect(try sqlite(location.index, "SELECT id, fingerprint = substr(id, 2) FROM trashed") == "\(b.id)|1")
        #expect(try runTool("exiftool", ["-q", "-overwrite_original", "-Artist=Editor", a.path]).status == 0)
        try await library.synchronize()
        #expect(try await library.asset(id: a.id)?.isFavorite == true)
        let restored = try await library.restore(ids: [b.id])
        #expect(restored.map(\.id) == [b.id] && restored.first?.isFavorite == true)
        #expect(try await library.albums().map(\.count) == [2])
    }
}
