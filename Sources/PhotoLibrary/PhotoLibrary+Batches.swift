import Foundation
import Glibc
import Media

/// Changes: all-or-nothing batches, and favourites.
extension PhotoLibrary {
    /// Applies a batch of changes all together or not at all, and returns the identifiers of
    /// the assets it created, in order. Every new file is written durably first; the rows, marks,
    /// album entries and Trash moves then happen together, and any failure puts everything back
    /// (new files removed, trashed files restored, the transaction rolled back).
    @discardableResult
    public func performChanges(_ build: (inout ChangeRequests) -> Void) throws(LibraryError) -> [String] {
        var batch = ChangeRequests()
        build(&batch)
        // The whole batch holds the library's lock: no other process's watcher or reconcile
        // sees its files moved before its rows are (a deleted file gone, its row not yet trashed).
        let ids = try lock.held { held throws(LibraryError) in try apply(batch, held) }
        publish()
        return ids
    }

    /// `performChanges`' work, inside the lock.
    private func apply(_ batch: ChangeRequests, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> [String] {
        // 1. New files, checked and written (nothing is visible yet: no rows).
        var created: [(entry: MediaEntry, contentID: String, size: Int, path: String, mtime: Double, label: String)] = []
        var moves: [String] = []
        // What each creation gave, in order: a new file, or (a recording already in the videos
        // folder that an observer indexed meanwhile) an existing asset.
        var outcomes: [String?] = []
        do throws(LibraryError) {
            for request in batch.requests {
                let item: (entry: MediaEntry, contentID: String, size: Int, path: String)
                let label: String
                switch request {
                case let .create(bytes, name):
                    label = name
                    item = try writePhoto(data: bytes, name: name, held)
                case let .createFromFile(path, moving, _) where moving && (path as NSString).deletingLastPathComponent == location.videos:
                    if try !assets(where: "path = ?", [.text(path)]).isEmpty {
                        // An observer indexed it when the recorder closed it; the recorder may have
                        // rewritten it since (a fragmented MP4 made regular, moved over it): the
                        // row is brought up to date first, so the identifier returned is the file's.
                        _ = try PhotoLibrary.reconcile(database, location, lock, only: [path])
                        if let indexed = try assets(where: "path = ?", [.text(path)]).first {
                            outcomes.append(indexed.id)
                            continue
                        }
                    }
                    label = path
                    item = try placeVideo(from: path, moving: true, held)
                    moves.append(path)
                case let .createFromFile(path, moving, videoOnly):
                    label = path
                    // Opened as a regular file only (never waiting on a FIFO) and its kind told
                    // from its first bytes: a file that is neither is refused before it is read.
                    let sniffed = try SniffedFile(path: path)
                    if sniffed.movie != nil {
                        item = try placeVideo(from: path, moving: moving, held)
                    } else {
                        if videoOnly { throw LibraryError.unsupportedFile(path: path, reason: .notAMovie) }
                        item = try writePhoto(data: sniffed.imageBytes(), name: path, held)
                    }
                    if moving { moves.append(path) }
                default: continue
                }
                CrashPoint.reached("file-linked")
                created.append((item.entry, item.contentID, item.size, item.path, PhotoLibrary.modificationTime(of: item.path) ?? 0, label))
                outcomes.append(nil)
            }
        } catch {
            for item in created where !moves.contains(item.path) { unlink(item.path) }
            throw error
        }
        // 2. Trash moves, rows, marks and albums together.
        var trashed: [(asset: Asset, bin: Trash, name: String, file: FileIdentity?)] = []
        do throws(LibraryError) {
            for case let .delete(ids) in batch.requests {
                for id in ids {
                    guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
                    let bin = try trash(forFileAt: asset.path)
                    let moved = try bin.trash(asset.path, held)
                    trashed.append((asset, bin, moved.name, moved.file))
                }
            }
            try database.transaction(held) { () throws(LibraryError) in
                for item in created {
                    // Checked before writing, and again here under the write lock: another process
                    // may have committed the same content since (two imports of one folder at once).
                    if let existing = try PhotoLibrary.sameContent(in: database, as: item.path, type: item.entry.mediaType, contentID: item.contentID) {
                        throw LibraryError.duplicate(path: item.label, existing: existing)
                    }
                    try PhotoLibrary.insert(database, entry: item.entry, contentID: item.contentID, size: item.size, path: item.path, mtime: item.mtime, held)
                }
                for item in trashed { try recordTrashed(id: item.asset.id, as: item.name, in: item.bin, file: item.file, held) }
                for request in batch.requests {
                    switch request {
                    case let .favorite(ids, flag):
                        for id in ids {
                            guard try !database.query("SELECT 1 FROM assets WHERE id = ?", [.text(id)]).isEmpty else { throw LibraryError.notFound(id) }
                            try database.query("UPDATE assets SET favorite = ? WHERE id = ?", [.integer(flag ? 1 : 0), .text(id)])
                        }
                    case let .addToAlbum(ids, album):
                        let albumID = try albumID(album)
                        for id in ids {
                            guard try !database.query("SELECT 1 FROM assets WHERE id = ?", [.text(id)]).isEmpty else { throw LibraryError.notFound(id) }
                            try database.query("INSERT OR IGNORE INTO album_assets (album, asset) VALUES (?, ?)", [.integer(albumID), .text(id)])
                        }
                    default: break
                    }
                }
            }
        } catch {
            for item in created where !moves.contains(item.path) { unlink(item.path) }
            for item in trashed.reversed() { _ = try? item.bin.restore(item.name, held) }
            throw error
        }
        CrashPoint.reached("row-committed")
        // The thumbnails file managers and the gallery show, from the decode that checked each file.
        for item in created {
            if let thumbnail = item.entry.thumbnail { _ = try? ThumbnailCache(folder: location.thumbnails).store(thumbnail, for: item.path, size: .large) }
        }
        for path in moves where !created.contains(where: { $0.path == path }) { unlink(path) }
        var fresh = created.makeIterator()
        return try outcomes.map { outcome throws(LibraryError) -> String in
            if let outcome { return outcome }
            guard let item = fresh.next(), let id = try assets(where: "path = ?", [.text(item.path)]).first?.id else {
                throw LibraryError.index("a new row is missing")
            }
            return id
        }
    }

    /// Marks assets as favourites (or not).
    public func setFavorite(_ favorite: Bool, ids: [String]) throws(LibraryError) {
        try lock.held { held throws(LibraryError) in try mark(favorite, ids: ids, held) }
        publish()
    }

    /// Sets or clears the favourite mark of `ids`, all or nothing.
    private func mark(_ favorite: Bool, ids: [String], _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.transaction(held) { () throws(LibraryError) in
            for id in ids {
                guard try asset(id: id) != nil else { throw LibraryError.notFound(id) }
                try database.query("UPDATE assets SET favorite = ? WHERE id = ?", [.integer(favorite ? 1 : 0), .text(id)])
            }
        }
    }

    /// The path of another asset with the same content as the file at `path` (the same
    /// fingerprint and kind, and the same bytes), if any.
    static func sameContent(in database: Database, as path: String, type: Asset.MediaType, contentID: String) throws(LibraryError) -> String? {
        let rows = try database.query("SELECT path FROM assets WHERE media_type = ? AND fingerprint = ? AND path != ?",
                                      [.text(type.rawValue), .text(contentID), .text(path)])
        return rows.compactMap { $0.first?.text }.first { ContentHash.sameContents($0, path) }
    }
}
