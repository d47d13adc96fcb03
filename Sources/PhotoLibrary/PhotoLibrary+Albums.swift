import Foundation
import Glibc
import Media

/// Albums.
extension PhotoLibrary {
    /// The albums, by name, with how many assets each holds.
    public func albums() throws(LibraryError) -> [(name: String, count: Int)] {
        try database.query("""
            SELECT albums.name, COUNT(assets.id) FROM albums
            LEFT JOIN album_assets ON album_assets.album = albums.id
            LEFT JOIN assets ON assets.id = album_assets.asset
            GROUP BY albums.id ORDER BY albums.name
            """).map { ($0[0].text ?? "", Int($0[1].integer ?? 0)) }
    }

    /// Creates an album named `name` (without leading and trailing spaces; one line, not empty).
    public func createAlbum(_ name: String) throws(LibraryError) {
        let trimmed = try PhotoLibrary.albumName(name)
        try lock.held { held throws(LibraryError) in try insertAlbum(trimmed, held) }
    }

    /// Inserts the album `name` (checked and inserted under the lock: two processes creating one
    /// name at once get one album and `.albumExists`, not an index failure).
    private func insertAlbum(_ name: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        guard try database.query("SELECT 1 FROM albums WHERE name = ?", [.text(name)]).isEmpty else { throw .albumExists(name) }
        try database.query("INSERT INTO albums (name) VALUES (?)", [.text(name)])
    }

    /// Renames an album; the new name is checked as `createAlbum` checks one.
    public func renameAlbum(_ name: String, to newName: String) throws(LibraryError) {
        let trimmed = try PhotoLibrary.albumName(newName)
        try lock.held { held throws(LibraryError) in try renameAlbum(try albumID(name), to: trimmed, held) }
    }

    /// Renames the album `id` to the checked `trimmed` name.
    private func renameAlbum(_ id: Int64, to trimmed: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        guard try database.query("SELECT 1 FROM albums WHERE name = ? AND id != ?", [.text(trimmed), .integer(id)]).isEmpty else {
            throw .albumExists(trimmed)
        }
        try database.query("UPDATE albums SET name = ? WHERE id = ?", [.text(trimmed), .integer(id)])
    }

    /// `name` without leading and trailing spaces, or `.invalidAlbumName` when that leaves
    /// nothing or more than one line.
    static func albumName(_ name: String) throws(LibraryError) -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(where: \.isNewline) else { throw .invalidAlbumName(name) }
        return trimmed
    }

    /// Deletes an album (its photos stay in the library).
    public func deleteAlbum(_ name: String) throws(LibraryError) {
        try lock.held { held throws(LibraryError) in try deleteAlbum(try albumID(name), held) }
    }

    /// Deletes the album `id` (its entries go with it).
    private func deleteAlbum(_ id: Int64, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.query("DELETE FROM albums WHERE id = ?", [.integer(id)])
    }

    /// Adds assets to an album (all or nothing).
    public func add(ids: [String], toAlbum name: String) throws(LibraryError) {
        try lock.held { held throws(LibraryError) in try add(ids: ids, toAlbum: try albumID(name), held) }
    }

    /// Adds assets to the album `album`, in one transaction.
    private func add(ids: [String], toAlbum album: Int64, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.transaction(held) { () throws(LibraryError) in
            for id in ids {
                guard try asset(id: id) != nil else { throw LibraryError.notFound(id) }
                try database.query("INSERT OR IGNORE INTO album_assets (album, asset) VALUES (?, ?)", [.integer(album), .text(id)])
            }
        }
    }

    /// Removes assets from an album.
    public func remove(ids: [String], fromAlbum name: String) throws(LibraryError) {
        try lock.held { held throws(LibraryError) in try remove(ids: ids, fromAlbum: try albumID(name), held) }
    }

    /// Removes assets from the album `album`, in one transaction.
    private func remove(ids: [String], fromAlbum album: Int64, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.transaction(held) { () throws(LibraryError) in
            for id in ids { try database.query("DELETE FROM album_assets WHERE album = ? AND asset = ?", [.integer(album), .text(id)]) }
        }
    }

    /// The assets of an album, newest first.
    public func assets(inAlbum name: String) throws(LibraryError) -> [Asset] {
        try assets(where: "id IN (SELECT asset FROM album_assets WHERE album = ?) ORDER BY created DESC, id", [.integer(try albumID(name))])
    }

    /// Makes the asset `id` the album's cover (the picture that stands for it); an asset not in
    /// the album is added to it first, as a cover is one of its items.
    public func setCover(_ id: String, ofAlbum name: String) throws(LibraryError) {
        try lock.held { held throws(LibraryError) in try setCover(id, ofAlbum: try albumID(name), held) }
    }

    /// Makes `id` the cover of the album `album` (adding it), once checked that it exists.
    private func setCover(_ id: String, ofAlbum album: Int64, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        guard try asset(id: id) != nil else { throw .notFound(id) }
        try database.transaction(held) { () throws(LibraryError) in
            try database.query("INSERT OR IGNORE INTO album_assets (album, asset) VALUES (?, ?)", [.integer(album), .text(id)])
            try database.query("UPDATE albums SET cover = ? WHERE id = ?", [.text(id), .integer(album)])
        }
    }

    /// The album's cover: the asset chosen with `setCover` while it is still in the album and
    /// the library, otherwise its newest asset; nil for an empty album.
    public func cover(ofAlbum name: String) throws(LibraryError) -> Asset? {
        let album = try albumID(name)
        let chosen = try database.query("""
            SELECT albums.cover FROM albums JOIN album_assets ON album_assets.album = albums.id AND album_assets.asset = albums.cover
            WHERE albums.id = ?
            """, [.integer(album)]).first?.first?.text
        if let chosen, let asset = try asset(id: chosen) { return asset }
        return try assets(inAlbum: name).first
    }

    func albumID(_ name: String) throws(LibraryError) -> Int64 {
        guard let id = try database.query("SELECT id FROM albums WHERE name = ?", [.text(name)]).first?.first?.integer else {
            throw .albumNotFound(name)
        }
        return id
    }
}
