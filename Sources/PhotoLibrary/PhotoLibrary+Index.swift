import Foundation
import Glibc
import Media

/// Opening the index (a damaged one is rebuilt), its schema, and the clean-up after a crash.
extension PhotoLibrary {
    /// Opens the index; a damaged one (SQLite says corrupt or not a database, or quick_check
    /// fails) is moved aside and rebuilt: the files are the truth. Any other failure (busy,
    /// locked, I/O) is reported, never "repaired": another process may be using the index.
    static func openIndex(at path: String) throws(LibraryError) -> Database {
        // Opening may create the file and switch it to WAL, which SQLite does not wait for
        // (it answers "database is locked" at once): processes opening the library take turns.
        let lock = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if lock >= 0 { while flock(lock, LOCK_EX) != 0 && errno == EINTR {} }
        defer { if lock >= 0 { close(lock) } }
        let database = try Database(path: path)
        do {
            try database.configure()
            let check = try database.query("PRAGMA quick_check")
            let healthy = check.first?.first?.text == "ok"
            if healthy {
                try createSchema(database)
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
        try createSchema(fresh)
        return fresh
    }

    private static func createSchema(_ database: Database) throws(LibraryError) {
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
                has_location INTEGER
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
        // Version 1 indexes (photos only) gain the videos' duration.
        let columns = try database.query("PRAGMA table_info(assets)").compactMap { $0[1].text }
        if !columns.contains("duration") { try database.execute("ALTER TABLE assets ADD COLUMN duration REAL") }
        // Version 2 indexes kept only a trashed asset's name and mark: the whole row is kept now
        // (entries from before have NULLs and are read from their files when restored).
        let kept = try database.query("PRAGMA table_info(trashed)").compactMap { $0[1].text }
        let types = ["media_type": "TEXT", "path": "TEXT", "width": "INTEGER", "height": "INTEGER", "created": "REAL", "orientation": "INTEGER",
                     "latitude": "REAL", "longitude": "REAL", "altitude": "REAL", "size": "INTEGER", "mtime": "REAL", "duration": "REAL",
                     "has_location": "INTEGER"]
        for column in keptColumns where !kept.contains(column) {
            try database.execute("ALTER TABLE trashed ADD COLUMN \(column) \(types[column] ?? "")")
        }
        // Version 3 albums had no chosen cover.
        let albumColumns = try database.query("PRAGMA table_info(albums)").compactMap { $0[1].text }
        if !albumColumns.contains("cover") { try database.execute("ALTER TABLE albums ADD COLUMN cover TEXT") }
        // Version 4 knew only EXIF's and movies' coordinates: whether a file holds a location in
        // any metadata is NULL (not known yet) in its rows until `fillInLocationFlags` reads them.
        if !columns.contains("has_location") { try database.execute("ALTER TABLE assets ADD COLUMN has_location INTEGER") }
        if try database.query("PRAGMA user_version").first?.first?.integer != 5 { try database.execute("PRAGMA user_version = 5") }
    }

    /// Deletes temporary files a crash left behind (`.NAME.PID.N.tmp`, see `AtomicFile`): those
    /// whose writer is no longer running, or that are over a day old. Another live process's file
    /// in flight is left alone (deleting it made that process's save fail: found by two
    /// concurrent importers).
    static func removeLeftovers(in folder: String) {
        for name in FileSystem.names(in: folder) where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let parts = name.split(separator: ".")
            let pid = parts.count >= 3 ? pid_t(parts[parts.count - 3]) : nil
            var info = stat()
            let path = folder + "/" + name
            guard stat(path, &info) == 0 else { continue }
            let age = time(nil) - info.st_mtim.tv_sec
            let writerGone = pid.map { kill($0, 0) != 0 && errno == ESRCH } ?? true
            if writerGone || age > 86_400 { unlink(path) }
        }
    }
}
