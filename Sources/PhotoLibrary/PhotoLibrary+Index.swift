import Foundation
import Glibc
import Media

/// Opening the index (a damaged one is rebuilt), its schema, and the clean-up after a crash.
extension PhotoLibrary {
    /// Opens the index; a damaged one (SQLite says corrupt or not a database, or quick_check
    /// fails) is moved aside and rebuilt: the files are the truth. Any other failure (busy,
    /// locked, I/O) is reported, never "repaired": another process may be using the index.
    static func openIndex(at path: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> Database {
        // Opening may create the file and switch it to WAL, which SQLite does not wait for
        // (it answers "database is locked" at once): processes opening the library take turns,
        // holding the library's lock (as the migrations must).
        let database = try Database(path: path)
        do {
            try database.configure()
            let check = try database.query("PRAGMA quick_check")
            let healthy = check.first?.first?.text == "ok"
            if healthy {
                try createSchema(database, held)
                return database
            }
        } catch {
            guard database.lastErrorMeansDamage else { throw error }
        }
        let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
        rename(path, aside)
        unlink(path + "-wal")
        unlink(path + "-shm")
        let fresh = try Database(path: path)
        try fresh.configure()
        try createSchema(fresh, held)
        return fresh
    }

    /// Creates the tables, or brings an older index's up to date (version 5).
    private static func createSchema(_ database: Database, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS assets (
                id TEXT PRIMARY KEY,
                media_type TEXT NOT NULL,
                path TEXT NOT NULL UNIQUE,
                width INTEGER NOT NULL,
                height INTEGER NOT NULL,
                created REAL NOT NULL,
                orientation INTEGER NOT NULL DEFAULT 1,
                favorite INTEGER NOT NULL DEFAULT 0,
                latitude REAL, longitude REAL, altitude REAL,
                size INTEGER NOT NULL,
                mtime REAL NOT NULL,
                duration REAL,
                fingerprint TEXT, device INTEGER, inode INTEGER, has_location INTEGER
            );
            CREATE INDEX IF NOT EXISTS assets_created ON assets (created DESC);
            CREATE TABLE IF NOT EXISTS albums (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE,
                cover TEXT
            );
            CREATE TABLE IF NOT EXISTS album_assets (
                album INTEGER NOT NULL REFERENCES albums (id) ON DELETE CASCADE,
                asset TEXT NOT NULL,
                PRIMARY KEY (album, asset)
            );
            CREATE TABLE IF NOT EXISTS trashed (
                id TEXT PRIMARY KEY,
                trash_name TEXT NOT NULL,
                favorite INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE IF NOT EXISTS trashed_albums (
                asset TEXT NOT NULL REFERENCES trashed (id) ON DELETE CASCADE,
                album INTEGER NOT NULL REFERENCES albums (id) ON DELETE CASCADE,
                PRIMARY KEY (asset, album)
            );
            """)
        // Verdicts on files refused, by size and time (`+Verdicts`).
        try createVerdictTable(database, held)
        // Version 1 indexes (photos only) gain the videos' duration.
        let columns = try database.query("PRAGMA table_info(assets)").compactMap { $0[1].text }
        if !columns.contains("duration") { try database.execute("ALTER TABLE assets ADD COLUMN duration REAL") }
        // Version 2 indexes kept only a trashed asset's name and mark: the whole row is kept now
        // (entries from before have NULLs and are read from their files when restored).
        let kept = try database.query("PRAGMA table_info(trashed)").compactMap { $0[1].text }
        let types = ["media_type": "TEXT", "path": "TEXT", "width": "INTEGER", "height": "INTEGER", "created": "REAL", "orientation": "INTEGER",
                     "latitude": "REAL", "longitude": "REAL", "altitude": "REAL", "size": "INTEGER", "mtime": "REAL", "duration": "REAL",
                     "fingerprint": "TEXT", "device": "INTEGER", "inode": "INTEGER", "has_location": "INTEGER"]
        for column in keptColumns where !kept.contains(column) {
            try database.execute("ALTER TABLE trashed ADD COLUMN \(column) \(types[column] ?? "")")
        }
        // Version 3 albums had no chosen cover.
        let albumColumns = try database.query("PRAGMA table_info(albums)").compactMap { $0[1].text }
        if !albumColumns.contains("cover") { try database.execute("ALTER TABLE albums ADD COLUMN cover TEXT") }
        // Version 4 matched a file to its row by path and content only (an edited file became a
        // new item): rows gain the file's fingerprint (its identifier's content part, from
        // which it was made), device and inode (filled by the next reconcile), and a trashed
        // row the Trash folder it went to (NULL: the home Trash).
        let assetColumns = try database.query("PRAGMA table_info(assets)").compactMap { $0[1].text }
        for (column, type) in [("fingerprint", "TEXT"), ("device", "INTEGER"), ("inode", "INTEGER")] where !assetColumns.contains(column) {
            try database.execute("ALTER TABLE assets ADD COLUMN \(column) \(type)")
        }
        let trashedColumns = try database.query("PRAGMA table_info(trashed)").compactMap { $0[1].text }
        for (column, type) in [("fingerprint", "TEXT"), ("device", "INTEGER"), ("inode", "INTEGER"), ("trash_folder", "TEXT")]
            where !trashedColumns.contains(column) {
            try database.execute("ALTER TABLE trashed ADD COLUMN \(column) \(type)")
        }
        try database.transaction(held) { () throws(LibraryError) in
            for table in ["assets", "trashed"] {
                for row in try database.query("SELECT id FROM \(table) WHERE fingerprint IS NULL") {
                    guard let id = row.first?.text else { continue }
                    try database.query("UPDATE \(table) SET fingerprint = ? WHERE id = ?", [.text(fingerprint(ofIdentifier: id)), .text(id)])
                }
            }
        }
        try database.execute("""
            CREATE INDEX IF NOT EXISTS assets_inode ON assets (inode);
            CREATE INDEX IF NOT EXISTS assets_fingerprint ON assets (fingerprint);
            """)
        // Version 4 knew only EXIF's and movies' coordinates: whether a file holds a location in
        // any metadata is NULL (not known yet) in its rows until `fillInLocationFlags` reads them.
        if !assetColumns.contains("has_location") { try database.execute("ALTER TABLE assets ADD COLUMN has_location INTEGER") }
        if try database.query("PRAGMA user_version").first?.first?.integer != 5 { try database.execute("PRAGMA user_version = 5") }
    }

    /// The content fingerprint an identifier was made from: "p" or "v", the `ContentHash`
    /// ("HASH-LENGTH"), and for a second copy "-N".
    static func fingerprint(ofIdentifier id: String) -> String {
        let parts = id.dropFirst().split(separator: "-", omittingEmptySubsequences: false)
        return parts.prefix(2).joined(separator: "-")
    }

    /// Deletes the temporary files a crashed Pinhole writer left in `folder`: only names of
    /// Pinhole's own pattern whose writer no longer holds their lock (`AtomicFile`), never another
    /// program's hidden files, and never one a live writer is still writing.
    static func removeLeftovers(in folder: String, _ held: borrowing LibraryLock.Held) {
        for name in FileSystem.names(in: folder) where AtomicFile.isTemporaryName(name) {
            AtomicFile.removeAbandonedTemporary(folder + "/" + name)
        }
    }
}
