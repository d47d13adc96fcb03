import Foundation
import Glibc
import Media

/// Deleting to the freedesktop Trash, what "Recently Deleted" shows, restoring (the same
/// identifier, favourite mark and albums) and deleting for good.
///
/// The index keeps each trashed asset's row and album memberships (`trashed`,
/// `trashed_albums`); the Trash's own `.trashinfo` files say where each file came from and
/// when it was deleted, so a file manager or `gio trash --restore` can restore them too.
extension PhotoLibrary {
    /// The asset columns a trashed row keeps.
    static let keptColumns = ["id", "media_type", "path", "width", "height", "created", "orientation", "favorite",
                              "latitude", "longitude", "altitude", "size", "mtime", "duration", "fingerprint", "device", "inode", "has_location"]

    /// Moves assets to the freedesktop Trash (restorable); all or nothing (as a `performChanges`
    /// batch of `deleteAssets`).
    public func delete(ids: [String]) throws(LibraryError) {
        try performChanges { $0.deleteAssets(ids) }
    }

    /// The trash the file at `path` goes to: the library's (home) trash, or on another file
    /// system that volume's own (`Trash.forFile(at:home:)`).
    func trash(forFileAt path: String) throws(LibraryError) -> Trash {
        try Trash.forFile(at: path, home: trash)
    }

    /// Inside a write transaction: the trashed asset's row and albums move to the trash tables,
    /// with the trash it went to and the identity of the file there (what says later that the
    /// file at its name is still the one the library put there).
    func recordTrashed(id: String, as name: String, in bin: Trash, file: FileIdentity?, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        let columns = PhotoLibrary.keptColumns.joined(separator: ", ")
        try database.query("DELETE FROM trashed_albums WHERE asset = ?", [.text(id)])
        try database.query("INSERT OR REPLACE INTO trashed (trash_name, \(columns)) SELECT ?, \(columns) FROM assets WHERE id = ?",
                           [.text(name), .text(id)])
        try database.query("UPDATE trashed SET trash_folder = ?, device = ?, inode = ?, size = COALESCE(?, size), mtime = COALESCE(?, mtime) WHERE id = ?",
                           [bin.folder == trash.folder ? .null : .text(bin.folder), file.map { .integer($0.device) } ?? .null,
                            file.map { .integer($0.inode) } ?? .null, file.map { .integer($0.size) } ?? .null,
                            file.map { .real($0.mtime) } ?? .null, .text(id)])
        try database.query("INSERT INTO trashed_albums (asset, album) SELECT asset, album FROM album_assets WHERE asset = ?", [.text(id)])
        try database.query("DELETE FROM album_assets WHERE asset = ?", [.text(id)])
        try database.query("DELETE FROM assets WHERE id = ?", [.text(id)])
    }

    /// What this library put in the Trash and is still there, most recently deleted first.
    /// Entries emptied or restored by another program are forgotten.
    public func trashedAssets() throws(LibraryError) -> [TrashedAsset] {
        let rows = try database.query("SELECT trash_name, trash_folder, device, inode, fingerprint, mtime, \(PhotoLibrary.assetColumns) FROM trashed")
        var listed: [TrashedAsset] = [], gone: [String] = []
        for row in rows {
            guard let name = row[0].text else { continue }
            let bin = Trash.at(row[1].text, home: trash)
            let kept = PhotoLibrary.asset(from: Array(row.dropFirst(6)))
            let trashed = FileIdentity(device: row[2].integer, inode: row[3].integer, size: row[6 + 11].integer, mtime: row[5].real)
            guard bin.holds(name, trashed: trashed, fingerprint: row[4].text), let entry = try? bin.entry(name) else {
                gone.append(kept.id)
                continue
            }
            let albums = try database.query("""
                SELECT albums.name FROM trashed_albums JOIN albums ON albums.id = trashed_albums.album
                WHERE trashed_albums.asset = ? ORDER BY albums.name
                """, [.text(kept.id)]).compactMap { $0.first?.text }
            let mediaType = row[7].text == nil && PhotoLibrary.isVideoName(name) ? Asset.MediaType.video : kept.mediaType
            let asset = Asset(id: kept.id, mediaType: mediaType, path: entry.originalPath, pixelWidth: kept.pixelWidth,
                              pixelHeight: kept.pixelHeight, creationDate: kept.creationDate, orientation: kept.orientation,
                              isFavorite: kept.isFavorite, location: kept.location, hasLocation: kept.hasLocation,
                              fileSize: kept.fileSize, duration: kept.duration)
            listed.append(TrashedAsset(asset: asset, originalPath: entry.originalPath, deletionDate: entry.deletionDate,
                                       trashedPath: bin.filePath(name), albums: albums))
        }
        if !gone.isEmpty { try lock.held { held throws(LibraryError) in try forgetTrashed(gone, held) } }
        return listed.sorted { ($0.deletionDate, $0.id) > ($1.deletionDate, $1.id) }
    }

    /// Whether the trashed `id`'s file is still the one the library put in the Trash.
    private func stillTrashed(_ id: String) throws(LibraryError) -> Bool {
        guard let row = try database.query("SELECT trash_name, trash_folder, device, inode, size, mtime, fingerprint FROM trashed WHERE id = ?",
                                           [.text(id)]).first, let name = row[0].text else { return false }
        let trashed = FileIdentity(device: row[2].integer, inode: row[3].integer, size: row[4].integer, mtime: row[5].real)
        return Trash.at(row[1].text, home: trash).holds(name, trashed: trashed, fingerprint: row[6].text)
    }

    /// Forgets the trashed entries of `ids` that are gone from the Trash: looked at again under
    /// the lock (another process may have been restoring one, its file out, its row not yet).
    private func forgetTrashed(_ ids: [String], _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        var gone: [String] = []
        for id in ids where try !stillTrashed(id) { gone.append(id) }
        guard !gone.isEmpty else { return }
        try database.transaction(held) { () throws(LibraryError) in
            for id in gone { try database.query("DELETE FROM trashed WHERE id = ?", [.text(id)]) }
        }
    }

    /// Brings trashed assets back from the Trash, all or nothing: each file to where it was (or
    /// beside it, when that name is taken again), with the same identifier, favourite mark and
    /// albums (those that still exist). Content added again meanwhile is a `.duplicate`.
    @discardableResult
    public func restore(ids: [String]) throws(LibraryError) -> [Asset] {
        let paths = try lock.held { held throws(LibraryError) in try restore(ids, held) }
        publish()
        var restored: [Asset] = []
        for path in paths { restored += try assets(where: "path = ?", [.text(path)]) }
        return restored
    }

    /// `restore(ids:)`'s work, inside the lock; returns where the files went.
    private func restore(_ ids: [String], _ held: borrowing LibraryLock.Held) throws(LibraryError) -> [String] {
        var entries: [(id: String, bin: Trash, name: String, original: String, legacy: Bool, favorite: Bool)] = []
        for id in ids {
            guard let row = try database.query("SELECT trash_name, path, media_type, favorite, trash_folder FROM trashed WHERE id = ?", [.text(id)]).first,
                  let name = row[0].text, try stillTrashed(id) else { throw LibraryError.notFound(id) }
            let bin = Trash.at(row[4].text, home: trash)
            var original = row[1].text ?? ""
            if row[1].text == nil { original = try bin.entry(name).originalPath }
            if let existing = try asset(id: id) { throw LibraryError.duplicate(path: bin.filePath(name), existing: existing.path) }
            entries.append((id, bin, name, original, row[2].text == nil, row[3].integer == 1))
        }
        // 1. The files back in place (nothing replaced); 2. the rows, marks and albums together.
        var placed: [(id: String, bin: Trash, name: String, path: String)] = []
        let columns = PhotoLibrary.keptColumns.joined(separator: ", ")
        let selected = PhotoLibrary.keptColumns.map { $0 == "path" ? "?" : $0 }.joined(separator: ", ")
        do throws(LibraryError) {
            for entry in entries { placed.append((entry.id, entry.bin, entry.name, try entry.bin.putBack(entry.name, to: entry.original, held))) }
            try database.transaction(held) { () throws(LibraryError) in
                for (id, _, _, path) in placed {
                    // A row left for a file that is gone must not hold the name.
                    try database.query("DELETE FROM assets WHERE path = ?", [.text(path)])
                    try database.query("INSERT INTO assets (\(columns)) SELECT \(selected) FROM trashed WHERE id = ? AND media_type IS NOT NULL",
                                       [.text(path), .text(id)])
                    try database.query("INSERT OR IGNORE INTO album_assets (album, asset) SELECT album, asset FROM trashed_albums WHERE asset = ?",
                                       [.text(id)])
                    try database.query("DELETE FROM trashed_albums WHERE asset = ?", [.text(id)])
                    try database.query("DELETE FROM trashed WHERE id = ?", [.text(id)])
                }
            }
        } catch {
            for item in placed.reversed() { item.bin.takeBack(item.path, as: item.name, held) }
            throw error
        }
        for item in placed { item.bin.forget(item.name, held) }
        // Entries trashed before the index kept rows, and files changed while in the Trash, are read again.
        let paths = Set(placed.map(\.path))
        _ = try? PhotoLibrary.reconcile(database, location, lock, only: paths)
        try database.transaction(held) { () throws(LibraryError) in
            for (entry, item) in zip(entries, placed) where entry.legacy && entry.favorite {
                try database.query("UPDATE assets SET favorite = 1 WHERE path = ?", [.text(item.path)])
            }
        }
        return placed.map(\.path)
    }

    /// Deletes trashed assets for good (their files and `.trashinfo` files, and their stale
    /// thumbnails). Every identifier is checked first; the deletions cannot be undone. Only the
    /// file the library put in the Trash is deleted: one a file manager restored, or another
    /// that took its name since, is left alone, and the entry forgotten.
    public func deletePermanently(ids: [String]) throws(LibraryError) {
        try lock.held { held throws(LibraryError) in try deletePermanently(ids, held) }
    }

    /// `deletePermanently(ids:)`'s work, inside the lock.
    private func deletePermanently(_ ids: [String], _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        var entries: [(id: String, bin: Trash, name: String, original: String?, ours: Bool)] = []
        for id in ids {
            guard let row = try database.query("SELECT trash_name, path, trash_folder FROM trashed WHERE id = ?", [.text(id)]).first,
                  let name = row[0].text else { throw LibraryError.notFound(id) }
            let bin = Trash.at(row[2].text, home: trash)
            entries.append((id, bin, name, row[1].text ?? (try? bin.entry(name))?.originalPath, try stillTrashed(id)))
        }
        let thumbnails = ThumbnailCache(folder: location.thumbnails)
        for entry in entries {
            if entry.ours { try entry.bin.erase(entry.name, held) }
            try database.query("DELETE FROM trashed WHERE id = ?", [.text(entry.id)])
            // Thumbnails of a file that is gone (and whose name nothing took again).
            if let original = entry.original, access(original, F_OK) != 0 {
                for size in ThumbnailSize.allCases { unlink(thumbnails.path(for: original, size: size)) }
            }
        }
    }

    /// Makes writing `.trashinfo` files fail with `errno` (nil: write them), to test that the
    /// failure is reported and nothing is trashed.
    @_spi(Testing) public func simulateTrashInfoWriteFailure(errno code: Int32?) {
        trash.simulatedInfoWriteError = code
    }
}
