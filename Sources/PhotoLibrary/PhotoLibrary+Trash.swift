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
                              "latitude", "longitude", "altitude", "size", "mtime", "duration", "has_location"]

    /// Moves assets to the freedesktop Trash (restorable); all or nothing (as a `performChanges`
    /// batch of `deleteAssets`).
    public func delete(ids: [String]) throws(LibraryError) {
        try performChanges { $0.deleteAssets(ids) }
    }

    /// Inside a write transaction: the trashed asset's row and albums move to the trash tables.
    func recordTrashed(id: String, as name: String) throws(LibraryError) {
        let columns = PhotoLibrary.keptColumns.joined(separator: ", ")
        try database.query("DELETE FROM trashed_albums WHERE asset = ?", [.text(id)])
        try database.query("INSERT OR REPLACE INTO trashed (trash_name, \(columns)) SELECT ?, \(columns) FROM assets WHERE id = ?",
                           [.text(name), .text(id)])
        try database.query("INSERT INTO trashed_albums (asset, album) SELECT asset, album FROM album_assets WHERE asset = ?", [.text(id)])
        try database.query("DELETE FROM album_assets WHERE asset = ?", [.text(id)])
        try database.query("DELETE FROM assets WHERE id = ?", [.text(id)])
    }

    /// What this library put in the Trash and is still there, most recently deleted first.
    /// Entries emptied or restored by another program are forgotten.
    public func trashedAssets() throws(LibraryError) -> [TrashedAsset] {
        let rows = try database.query("SELECT trash_name, \(PhotoLibrary.assetColumns) FROM trashed")
        var listed: [TrashedAsset] = [], gone: [String] = []
        for row in rows {
            guard let name = row[0].text else { continue }
            let kept = PhotoLibrary.asset(from: Array(row.dropFirst()))
            guard trash.contains(name), let entry = try? trash.entry(name) else {
                gone.append(kept.id)
                continue
            }
            let albums = try database.query("""
                SELECT albums.name FROM trashed_albums JOIN albums ON albums.id = trashed_albums.album
                WHERE trashed_albums.asset = ? ORDER BY albums.name
                """, [.text(kept.id)]).compactMap { $0.first?.text }
            let mediaType = row[2].text == nil && PhotoLibrary.isVideoName(name) ? Asset.MediaType.video : kept.mediaType
            let asset = Asset(id: kept.id, mediaType: mediaType, path: entry.originalPath, pixelWidth: kept.pixelWidth,
                              pixelHeight: kept.pixelHeight, creationDate: kept.creationDate, orientation: kept.orientation,
                              isFavorite: kept.isFavorite, location: kept.location, hasLocation: kept.hasLocation,
                              fileSize: kept.fileSize, duration: kept.duration)
            listed.append(TrashedAsset(asset: asset, originalPath: entry.originalPath, deletionDate: entry.deletionDate,
                                       trashedPath: trash.filePath(name), albums: albums))
        }
        if !gone.isEmpty {
            try database.transaction { () throws(LibraryError) in
                for id in gone { try database.query("DELETE FROM trashed WHERE id = ?", [.text(id)]) }
            }
        }
        return listed.sorted { ($0.deletionDate, $0.id) > ($1.deletionDate, $1.id) }
    }

    /// Brings trashed assets back from the Trash, all or nothing: each file to where it was (or
    /// beside it, when that name is taken again), with the same identifier, favourite mark and
    /// albums (those that still exist). Content added again meanwhile is a `.duplicate`.
    @discardableResult
    public func restore(ids: [String]) throws(LibraryError) -> [Asset] {
        var entries: [(id: String, name: String, original: String, legacy: Bool, favorite: Bool)] = []
        for id in ids {
            guard let row = try database.query("SELECT trash_name, path, media_type, favorite FROM trashed WHERE id = ?", [.text(id)]).first,
                  let name = row[0].text, trash.contains(name) else { throw LibraryError.notFound(id) }
            var original = row[1].text ?? ""
            if row[1].text == nil { original = try trash.entry(name).originalPath }
            if let existing = try asset(id: id) { throw LibraryError.duplicate(path: trash.filePath(name), existing: existing.path) }
            entries.append((id, name, original, row[2].text == nil, row[3].integer == 1))
        }
        // 1. The files back in place (nothing replaced); 2. the rows, marks and albums together.
        var placed: [(id: String, name: String, path: String)] = []
        let columns = PhotoLibrary.keptColumns.joined(separator: ", ")
        let selected = PhotoLibrary.keptColumns.map { $0 == "path" ? "?" : $0 }.joined(separator: ", ")
        do throws(LibraryError) {
            for entry in entries { placed.append((entry.id, entry.name, try trash.putBack(entry.name, to: entry.original))) }
            try database.transaction { () throws(LibraryError) in
                for (id, _, path) in placed {
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
            for item in placed.reversed() { trash.takeBack(item.path, as: item.name) }
            throw error
        }
        for item in placed { trash.forget(item.name) }
        // Entries trashed before the index kept rows, and files changed while in the Trash, are read again.
        let paths = Set(placed.map(\.path))
        _ = try? PhotoLibrary.reconcile(database, location, only: paths)
        for (entry, item) in zip(entries, placed) where entry.legacy && entry.favorite {
            try database.query("UPDATE assets SET favorite = 1 WHERE path = ?", [.text(item.path)])
        }
        publish()
        var restored: [Asset] = []
        for item in placed { restored += try assets(where: "path = ?", [.text(item.path)]) }
        return restored
    }

    /// Deletes trashed assets for good (their files and `.trashinfo` files, and their stale
    /// thumbnails). Every identifier is checked first; the deletions cannot be undone.
    public func deletePermanently(ids: [String]) throws(LibraryError) {
        var entries: [(id: String, name: String, original: String?)] = []
        for id in ids {
            guard let row = try database.query("SELECT trash_name, path FROM trashed WHERE id = ?", [.text(id)]).first,
                  let name = row[0].text else { throw LibraryError.notFound(id) }
            entries.append((id, name, row[1].text ?? (try? trash.entry(name))?.originalPath))
        }
        let thumbnails = ThumbnailCache(folder: location.thumbnails)
        for entry in entries {
            try trash.erase(entry.name)
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
