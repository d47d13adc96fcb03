import Foundation
import Glibc
import Media

/// The user's photos and videos: files in the Pictures/Camera and Videos/Camera folders are the
/// truth, an SQLite index (WAL, shared by the app and `pinhole`) makes them fast to list.
///
/// Adding a photo writes it under a temporary name in the target folder, fsyncs it, links it
/// to its final name without replacing anything, fsyncs the folder and only then commits the
/// index row: a crash at any moment leaves no asset or a complete one. Opening a library cleans
/// up temporary files a crash left, rebuilds a missing or damaged index from the files, and
/// notices files other programs added or removed.
public actor PhotoLibrary {
    /// Where the library lives.
    public nonisolated let location: LibraryLocation
    private let database: Database
    private let trash: Trash
    private var observers: [Int: AsyncStream<LibraryChange>.Continuation] = [:]
    private var nextObserver = 0
    private var snapshot: [String: String] = [:]
    private var watcher: Task<Void, Never>?
    private var lastDataVersion: Int64 = -1
    private var lastFolderTime: [Double] = []
    private var thumbnailing: Task<Int, Never>?

    /// Opens the library at `location` (the user's by default), creating folders and index, and
    /// (unless `synchronize` is false, as `verify` needs) bringing the index up to date with the files.
    public init(location: LibraryLocation = .user, synchronize: Bool = true) throws(LibraryError) {
        self.location = location
        trash = Trash(folder: location.trash)
        for folder in [location.photos, location.videos, (location.index as NSString).deletingLastPathComponent] {
            do throws(MediaError) { try AtomicFile.makeFolders(folder) } catch {
                guard case let .io(_, failure) = error else { throw .accessDenied(path: folder, failure: .permissionDenied) }
                throw failure.isOutOfSpace ? .cannotWrite(path: folder, failure: failure) : .accessDenied(path: folder, failure: failure)
            }
        }
        for folder in [location.photos, location.videos] where access(folder, R_OK | W_OK | X_OK) != 0 {
            throw .accessDenied(path: folder, failure: FileFailure(errno: errno))
        }
        database = try PhotoLibrary.openIndex(at: location.index)
        PhotoLibrary.removeLeftovers(in: location.photos)
        PhotoLibrary.removeLeftovers(in: location.videos)
        if synchronize {
            let changed = try PhotoLibrary.reconcile(database, location).changed
            thumbnailing = PhotoLibrary.thumbnailInBackground(changed, cache: ThumbnailCache(folder: location.thumbnails), after: nil)
        }
    }

    deinit { thumbnailing?.cancel() }

    /// Opens the index; a damaged one (SQLite says corrupt or not a database, or quick_check
    /// fails) is moved aside and rebuilt: the files are the truth. Any other failure (busy,
    /// locked, I/O) is reported, never "repaired": another process may be using the index.
    private static func openIndex(at path: String) throws(LibraryError) -> Database {
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
                duration REAL
            );
            CREATE INDEX IF NOT EXISTS assets_created ON assets (created DESC);
            CREATE TABLE IF NOT EXISTS albums (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL UNIQUE
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
            """)
        // Version 1 indexes (photos only) gain the videos' duration.
        let columns = try database.query("PRAGMA table_info(assets)").compactMap { $0[1].text }
        if !columns.contains("duration") { try database.execute("ALTER TABLE assets ADD COLUMN duration REAL") }
        try database.execute("PRAGMA user_version = 2")
    }

    /// Deletes temporary files a crash left behind (`.NAME.PID.N.tmp`, see `AtomicFile`): those
    /// whose writer is no longer running, or that are over a day old. Another live process's file
    /// in flight is left alone (deleting it made that process's save fail: found by two
    /// concurrent importers).
    private static func removeLeftovers(in folder: String) {
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

    /// Makes the index agree with the files: rows for files that appeared, no rows for files
    /// that are gone. Returns how many were added and removed.
    @discardableResult
    public func synchronize() throws(LibraryError) -> (added: Int, removed: Int) {
        defer { publish() }
        let changes = try PhotoLibrary.reconcile(database, location)
        prepareInBackground(changes.changed)
        return (changes.added.count, changes.removed)
    }

    // MARK: - Thumbnails ahead of time

    /// Makes the large thumbnails of files that appeared without one (another program's files, a
    /// rebuilt index) on a background-priority task, after any earlier such work.
    private func prepareInBackground(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        thumbnailing = PhotoLibrary.thumbnailInBackground(paths, cache: ThumbnailCache(folder: location.thumbnails), after: thumbnailing)
    }

    private static func thumbnailInBackground(_ paths: [String], cache: ThumbnailCache, after earlier: Task<Int, Never>?) -> Task<Int, Never>? {
        guard !paths.isEmpty else { return earlier }
        return Task.detached(priority: .background) {
            let before = await earlier?.value ?? 0
            return before + makeThumbnails(paths, cache: cache, size: .large)
        }
    }

    /// Makes the missing or stale thumbnails of `paths`; returns how many it made.
    private static func makeThumbnails(_ paths: [String], cache: ThumbnailCache, size: ThumbnailSize) -> Int {
        var made = 0
        for path in paths {
            if Task.isCancelled { break }
            if cache.hasCurrentThumbnail(of: path, size: size) { continue }
            if (try? cache.thumbnail(of: path, size: size)) != nil { made += 1 }
        }
        return made
    }

    /// Waits for the background thumbnails started when files appeared (on open, `synchronize()`,
    /// or while observing) and returns how many were made since the library opened.
    public func waitForBackgroundThumbnails() async -> Int {
        await thumbnailing?.value ?? 0
    }

    /// Makes every asset's missing or stale thumbnail at `size` now, off the library's actor
    /// (other calls go on meanwhile), at utility priority; returns how many it made. A gallery
    /// calls it once for the size it shows; the CLI's `library thumbnails` does too.
    public nonisolated func prepareThumbnails(size: ThumbnailSize = .large) async throws(LibraryError) -> Int {
        let paths = try await assets().map(\.path)
        let cache = ThumbnailCache(folder: location.thumbnails)
        return await Task.detached(priority: .utility) { PhotoLibrary.makeThumbnails(paths, cache: cache, size: size) }.value
    }

    /// What `synchronize()` would change, without changing it.
    public func differences() throws(LibraryError) -> (missingFromIndex: [String], missingFiles: [String]) {
        let indexed = Set(try database.query("SELECT path FROM assets").compactMap { $0.first?.text })
        let files = Set(PhotoLibrary.mediaFiles(location).map(\.path))
        return (files.subtracting(indexed).sorted(), indexed.subtracting(files).sorted())
    }

    /// The names the library indexes: photos in the photos folder, videos in the videos folder.
    private static func mediaFiles(_ location: LibraryLocation) -> [(path: String, name: String, type: Asset.MediaType)] {
        let photos = FileSystem.names(in: location.photos).filter { !$0.hasPrefix(".") && isPhotoName($0) }
            .map { (location.photos + "/" + $0, $0, Asset.MediaType.photo) }
        let videos = FileSystem.names(in: location.videos).filter { !$0.hasPrefix(".") && isVideoName($0) }
            .map { (location.videos + "/" + $0, $0, Asset.MediaType.video) }
        return photos + videos
    }

    private static func reconcile(_ database: Database, _ location: LibraryLocation) throws(LibraryError) -> (added: [String], changed: [String], removed: Int) {
        let rows = try database.query("SELECT path, size, mtime FROM assets")
        var known: [String: (Int64, Double)] = [:]
        for row in rows { if let path = row[0].text { known[path] = (row[1].integer ?? 0, row[2].real ?? 0) } }
        var added: [String] = [], removed = 0
        var present = Set<String>()
        // Read and check files first (slow), then write every row in one transaction (one sync,
        // not one per file: a 10 000-photo rebuild commits once).
        var found: [(path: String, entry: MediaEntry, contentID: String, size: Int, mtime: Double)] = []
        for (path, _, type) in mediaFiles(location) {
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            present.insert(path)
            let mtime = modificationTime(info)
            if let row = known[path], row.0 == Int64(info.st_size), row.1 == mtime { continue }
            switch type {
            case .photo:
                guard let data = try? FileBytes.read(path: path), let file = try? PhotoFile(data: data, name: path) else { continue }
                found.append((path, MediaEntry(photo: file), ContentHash.identifier(of: data), data.count, mtime))  // the bytes are not kept
            case .video:
                guard let entry = try? MediaEntry(videoAt: path, name: path, keepThumbnail: false),
                      let contentID = try? ContentHash.identifier(ofFile: path) else { continue }
                found.append((path, entry, contentID, Int(info.st_size), mtime))
            }
            if known[path] == nil { added.append(path) }
        }
        let gone = known.keys.filter { !present.contains($0) }
        removed = gone.count
        guard !found.isEmpty || !gone.isEmpty else { return ([], [], 0) }
        try database.transaction { () throws(LibraryError) in
            for item in found {
                try database.query("DELETE FROM assets WHERE path = ?", [.text(item.path)])
                try insert(database, entry: item.entry, contentID: item.contentID, size: item.size, path: item.path, mtime: item.mtime)
            }
            for path in gone { try database.query("DELETE FROM assets WHERE path = ?", [.text(path)]) }
        }
        return (added, found.map(\.path), removed)
    }

    /// Inserts the row for a file (its identifier from its content; a second copy of the same
    /// content under another name gets a suffixed identifier).
    private static func insert(_ database: Database, entry: MediaEntry, contentID: String, size: Int, path: String, mtime: Double) throws(LibraryError) {
        if try !database.query("SELECT 1 FROM assets WHERE path = ?", [.text(path)]).isEmpty { return }
        let prefix = identifierPrefix(entry.mediaType)
        var id = prefix + contentID
        var suffix = 2
        while try !database.query("SELECT 1 FROM assets WHERE id = ?", [.text(id)]).isEmpty {
            id = prefix + contentID + "-\(suffix)"
            suffix += 1
        }
        let location = entry.location
        // Another process opening the library may have indexed this new file already (it is
        // complete once linked): then its row stands, and this insert does nothing.
        try database.query("""
            INSERT INTO assets (id, media_type, path, width, height, created, orientation, latitude, longitude, altitude, size, mtime, duration)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO NOTHING
            """, [.text(id), .text(entry.mediaType.rawValue), .text(path), .integer(Int64(entry.width)), .integer(Int64(entry.height)),
                  .real(entry.date ?? mtime), .integer(Int64(entry.orientation)),
                  location.map { .real($0.latitude) } ?? .null, location.map { .real($0.longitude) } ?? .null,
                  location?.altitude.map { .real($0) } ?? .null, .integer(Int64(size)), .real(mtime),
                  entry.duration.map { .real($0) } ?? .null])
    }

    /// Photos' identifiers start with "p", videos' with "v".
    private static func identifierPrefix(_ type: Asset.MediaType) -> String { type == .photo ? "p" : "v" }

    // MARK: - Adding

    /// Adds a photo from its file bytes (JPEG, PNG, HEIF or WebP, checked), saved as "Photo from
    /// DATE.ext" in the photos folder; refuses content already in the library.
    @discardableResult
    public func addPhoto(data: [UInt8], name: String = "the photo") throws(LibraryError) -> Asset {
        let ids = try performChanges { $0.createAsset(fromImageData: data, name: name) }
        guard let id = ids.first, let asset = try asset(id: id) else { throw .index("the new row is missing") }
        return asset
    }

    /// Imports (copies) the image or movie file at `path`.
    @discardableResult
    public func importFile(at path: String) throws(LibraryError) -> Asset {
        let ids = try performChanges { $0.createAsset(fromFile: path) }
        guard let id = ids.first, let asset = try asset(id: id) else { throw .index("the new row is missing") }
        return asset
    }

    /// The name of every new file, in local time: "Photo from 2026-11-29 14-03-22.123.jpg" (with
    /// milliseconds: bursts of photos stay in order) or "Video from 2026-11-29 14-03-22.mp4".
    public static func fileName(date: Double, extension ext: String, mediaType: Asset.MediaType = .photo) -> String {
        var seconds = time_t(date)
        var local = tm()
        localtime_r(&seconds, &local)
        func pad(_ value: Int32, _ width: Int = 2) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        let ms = Int32((date - Double(Int(date))) * 1000)
        let stamp = "\(pad(local.tm_year + 1900, 4))-\(pad(local.tm_mon + 1))-\(pad(local.tm_mday)) \(pad(local.tm_hour))-\(pad(local.tm_min))-\(pad(local.tm_sec))"
        return mediaType == .photo ? "Photo from \(stamp).\(pad(ms, 3)).\(ext)" : "Video from \(stamp).\(ext)"
    }

    // MARK: - Changing

    /// Marks assets as favourites (or not).
    public func setFavorite(_ favorite: Bool, ids: [String]) throws(LibraryError) {
        try database.transaction { () throws(LibraryError) in
            for id in ids {
                guard try asset(id: id) != nil else { throw LibraryError.notFound(id) }
                try database.query("UPDATE assets SET favorite = ? WHERE id = ?", [.integer(favorite ? 1 : 0), .text(id)])
            }
        }
        publish()
    }

    /// Moves assets to the freedesktop Trash (restorable); all or nothing.
    public func delete(ids: [String]) throws(LibraryError) {
        let assets = try ids.map { id throws(LibraryError) -> Asset in
            guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
            return asset
        }
        var moved: [(Asset, String)] = []
        do {
            for asset in assets { moved.append((asset, try trash.trash(asset.path))) }
            try database.transaction { () throws(LibraryError) in
                for (asset, name) in moved {
                    try database.query("DELETE FROM assets WHERE id = ?", [.text(asset.id)])
                    try database.query("INSERT OR REPLACE INTO trashed (id, trash_name, favorite) VALUES (?, ?, ?)",
                                       [.text(asset.id), .text(name), .integer(asset.isFavorite ? 1 : 0)])
                }
            }
        } catch {
            for (_, name) in moved.reversed() { _ = try? trash.restore(name) }  // put back what was moved
            throw error
        }
        publish()
    }

    /// Brings trashed assets back from the Trash (same identifiers, favourites kept).
    @discardableResult
    public func restore(ids: [String]) throws(LibraryError) -> [Asset] {
        var restored: [Asset] = []
        for id in ids {
            guard let row = try database.query("SELECT trash_name, favorite FROM trashed WHERE id = ?", [.text(id)]).first,
                  let name = row[0].text else { throw LibraryError.notFound(id) }
            let path = try trash.restore(name)
            try database.query("DELETE FROM trashed WHERE id = ?", [.text(id)])
            _ = try PhotoLibrary.reconcile(database, location)
            if row[1].integer == 1 { try database.query("UPDATE assets SET favorite = 1 WHERE path = ?", [.text(path)]) }
            if let asset = try assets(where: "path = ?", [.text(path)]).first { restored.append(asset) }
        }
        publish()
        return restored
    }

    /// The path of the freedesktop thumbnail of asset `id` at `size`, made now if missing or stale.
    public func thumbnail(for id: String, size: ThumbnailSize = .large) throws(LibraryError) -> String {
        guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
        return try ThumbnailCache(folder: location.thumbnails).thumbnail(of: asset.path, size: size)
    }

    /// Copies assets' files into `folder` unchanged, or with their location removed: EXIF GPS
    /// from JPEG, PNG, HEIF and WebP (nothing else in the file changes), the location metadata
    /// from movies (their streams copied into a new container); returns the paths written.
    public func export(ids: [String], to folder: String, stripLocation: Bool = false) throws(LibraryError) -> [String] {
        var written: [String] = []
        for id in ids {
            guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
            let target = folder + "/" + (asset.path as NSString).lastPathComponent
            do throws(MediaError) {
                if asset.mediaType == .video {
                    written.append(stripLocation ? try LocationRemoval.copyMovie(from: asset.path, to: target) : try AtomicFile.copy(from: asset.path, to: target))
                } else {
                    var data = try FileBytes.read(path: asset.path)
                    if stripLocation { data = try LocationRemoval.removingLocation(from: data) }
                    written.append(try AtomicFile.write(data, to: target))
                }
            } catch {
                if case .io = error { throw LibraryError.from(error) }
                throw .cannotExport(id: asset.id, reason: error.description)
            }
        }
        return written
    }

    // MARK: - Batches

    /// Applies a batch of changes all together or not at all, and returns the identifiers of
    /// the assets it created, in order. Every new file is written durably first; the rows, marks,
    /// album entries and Trash moves then happen together, and any failure puts everything back
    /// (new files removed, trashed files restored, the transaction rolled back).
    @discardableResult
    public func performChanges(_ build: (inout ChangeRequests) -> Void) throws(LibraryError) -> [String] {
        var batch = ChangeRequests()
        build(&batch)
        // 1. New files, checked and written (nothing is visible yet: no rows).
        var created: [(entry: MediaEntry, contentID: String, size: Int, path: String, mtime: Double)] = []
        var moves: [String] = []
        // What each creation gave, in order: a new file, or (a recording already in the videos
        // folder that an observer indexed meanwhile) an existing asset.
        var outcomes: [String?] = []
        do throws(LibraryError) {
            for request in batch.requests {
                let item: (entry: MediaEntry, contentID: String, size: Int, path: String)
                switch request {
                case let .create(bytes, label):
                    item = try writePhoto(data: bytes, name: label)
                case let .createFromFile(path, moving, _) where moving && (path as NSString).deletingLastPathComponent == location.videos:
                    if let indexed = try assets(where: "path = ?", [.text(path)]).first {
                        outcomes.append(indexed.id)
                        continue
                    }
                    item = try placeVideo(from: path, moving: true)
                    moves.append(path)
                case let .createFromFile(path, moving, videoOnly):
                    if MediaEntry.isMovie(at: path) {
                        item = try placeVideo(from: path, moving: moving)
                    } else {
                        if videoOnly { throw LibraryError.unsupportedFile(path: path, reason: "it is not an MP4, MOV, WebM or MKV movie") }
                        let data: [UInt8]
                        do { data = try FileBytes.read(path: path) } catch { throw LibraryError.reading(path, error) }
                        item = try writePhoto(data: data, name: path)
                    }
                    if moving { moves.append(path) }
                default: continue
                }
                CrashPoint.reached("file-linked")
                created.append((item.entry, item.contentID, item.size, item.path, PhotoLibrary.modificationTime(of: item.path) ?? 0))
                outcomes.append(nil)
            }
        } catch {
            for item in created where !moves.contains(item.path) { unlink(item.path) }
            throw error
        }
        // 2. Trash moves, rows, marks and albums together.
        var trashed: [(Asset, String)] = []
        do throws(LibraryError) {
            for case let .delete(ids) in batch.requests {
                for id in ids {
                    guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
                    trashed.append((asset, try trash.trash(asset.path)))
                }
            }
            try database.transaction { () throws(LibraryError) in
                for item in created {
                    try PhotoLibrary.insert(database, entry: item.entry, contentID: item.contentID, size: item.size, path: item.path, mtime: item.mtime)
                }
                for (asset, name) in trashed {
                    try database.query("DELETE FROM assets WHERE id = ?", [.text(asset.id)])
                    try database.query("INSERT OR REPLACE INTO trashed (id, trash_name, favorite) VALUES (?, ?, ?)",
                                       [.text(asset.id), .text(name), .integer(asset.isFavorite ? 1 : 0)])
                }
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
            for (_, name) in trashed.reversed() { _ = try? trash.restore(name) }
            throw error
        }
        CrashPoint.reached("row-committed")
        // The thumbnails file managers and the gallery show, from the decode that checked each file.
        for item in created {
            if let thumbnail = item.entry.thumbnail { _ = try? ThumbnailCache(folder: location.thumbnails).store(thumbnail, for: item.path, size: .large) }
        }
        for path in moves where !created.contains(where: { $0.path == path }) { unlink(path) }
        publish()
        var fresh = created.makeIterator()
        return try outcomes.map { outcome throws(LibraryError) -> String in
            if let outcome { return outcome }
            guard let item = fresh.next(), let id = try assets(where: "path = ?", [.text(item.path)]).first?.id else {
                throw LibraryError.index("a new row is missing")
            }
            return id
        }
    }

    /// Checks a photo's bytes and writes them durably into the photos folder (no row yet).
    private func writePhoto(data: [UInt8], name: String) throws(LibraryError) -> (entry: MediaEntry, contentID: String, size: Int, path: String) {
        let file = try PhotoFile(data: data, name: name, keepThumbnail: true)
        let contentID = ContentHash.identifier(of: data)
        // The same content already in the library (same hash and length, and the same bytes).
        if let existing = try asset(id: "p" + contentID), (try? FileBytes.read(path: existing.path)) == data {
            throw LibraryError.duplicate(path: name, existing: existing.path)
        }
        let target = location.photos + "/" + PhotoLibrary.fileName(date: file.exifDate ?? Date().timeIntervalSince1970, extension: file.fileExtension)
        do { return (MediaEntry(photo: file), contentID, data.count, try AtomicFile.write(data, to: target, createFolders: false)) } catch {
            throw LibraryError.from(error)
        }
    }

    /// Checks a movie and copies (or, `moving`, links) it durably into the videos folder (no row yet).
    private func placeVideo(from path: String, moving: Bool) throws(LibraryError) -> (entry: MediaEntry, contentID: String, size: Int, path: String) {
        let entry = try MediaEntry(videoAt: path, name: path, keepThumbnail: true)
        let contentID = try ContentHash.identifier(ofFile: path)
        if let existing = try asset(id: "v" + contentID), ContentHash.sameContents(existing.path, path) {
            throw LibraryError.duplicate(path: path, existing: existing.path)
        }
        let written: String
        if moving, (path as NSString).deletingLastPathComponent == location.videos {
            // A recording made straight into the videos folder (so that a crash leaves it there,
            // playable): indexed where it is.
            written = path
        } else {
            let target = location.videos + "/" + PhotoLibrary.fileName(date: entry.date ?? Date().timeIntervalSince1970, extension: entry.fileExtension, mediaType: .video)
            do {
                written = moving ? try AtomicFile.place(path, at: target) : try AtomicFile.copy(from: path, to: target, createFolders: false)
            } catch {
                throw LibraryError.from(error)
            }
        }
        var info = stat()
        return (entry, contentID, stat(written, &info) == 0 ? Int(info.st_size) : 0, written)
    }

    // MARK: - Albums

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
        guard try database.query("SELECT 1 FROM albums WHERE name = ?", [.text(trimmed)]).isEmpty else { throw .albumExists(trimmed) }
        try database.query("INSERT INTO albums (name) VALUES (?)", [.text(trimmed)])
    }

    /// Renames an album; the new name is checked as `createAlbum` checks one.
    public func renameAlbum(_ name: String, to newName: String) throws(LibraryError) {
        let id = try albumID(name)
        let trimmed = try PhotoLibrary.albumName(newName)
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
        try database.query("DELETE FROM albums WHERE id = ?", [.integer(try albumID(name))])
    }

    /// Adds assets to an album (all or nothing).
    public func add(ids: [String], toAlbum name: String) throws(LibraryError) {
        let album = try albumID(name)
        try database.transaction { () throws(LibraryError) in
            for id in ids {
                guard try asset(id: id) != nil else { throw LibraryError.notFound(id) }
                try database.query("INSERT OR IGNORE INTO album_assets (album, asset) VALUES (?, ?)", [.integer(album), .text(id)])
            }
        }
    }

    /// Removes assets from an album.
    public func remove(ids: [String], fromAlbum name: String) throws(LibraryError) {
        let album = try albumID(name)
        try database.transaction { () throws(LibraryError) in
            for id in ids { try database.query("DELETE FROM album_assets WHERE album = ? AND asset = ?", [.integer(album), .text(id)]) }
        }
    }

    /// The assets of an album, newest first.
    public func assets(inAlbum name: String) throws(LibraryError) -> [Asset] {
        try assets(where: "id IN (SELECT asset FROM album_assets WHERE album = ?) ORDER BY created DESC", [.integer(try albumID(name))])
    }

    private func albumID(_ name: String) throws(LibraryError) -> Int64 {
        guard let id = try database.query("SELECT id FROM albums WHERE name = ?", [.text(name)]).first?.first?.integer else {
            throw .albumNotFound(name)
        }
        return id
    }

    // MARK: - Observing

    /// Changes from now on: inserted, removed and changed asset identifiers, including changes
    /// made by other processes (`pinhole snap` in a terminal shows up in an open gallery) and
    /// files other programs add to or remove from the folder. Checked four times a second.
    public func changes() -> AsyncStream<LibraryChange> {
        let (stream, continuation) = AsyncStream<LibraryChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        nextObserver += 1
        let key = nextObserver
        observers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(key) } }
        if watcher == nil {
            snapshot = (try? currentSnapshot()) ?? [:]
            lastDataVersion = dataVersion()
            lastFolderTime = folderTime()
            watcher = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    await self?.checkForChanges()
                }
            }
        }
        return stream
    }

    private func removeObserver(_ key: Int) {
        observers[key] = nil
        if observers.isEmpty {
            watcher?.cancel()
            watcher = nil
        }
    }

    /// Looks for changes by other processes and programs, and publishes any.
    private func checkForChanges() {
        let folder = folderTime(), version = dataVersion()
        guard folder != lastFolderTime || version != lastDataVersion else { return }
        if folder != lastFolderTime {
            lastFolderTime = folder
            if let changes = try? PhotoLibrary.reconcile(database, location) { prepareInBackground(changes.changed) }
        }
        lastDataVersion = version
        publish()
    }

    /// Compares the index with the last snapshot and tells observers what changed.
    private func publish() {
        guard !observers.isEmpty, let now = try? currentSnapshot() else { return }
        let inserted = now.keys.filter { snapshot[$0] == nil }.sorted()
        let removed = snapshot.keys.filter { now[$0] == nil }.sorted()
        let changed = now.keys.filter { snapshot[$0] != nil && snapshot[$0] != now[$0] }.sorted()
        snapshot = now
        guard !inserted.isEmpty || !removed.isEmpty || !changed.isEmpty else { return }
        let change = LibraryChange(inserted: inserted, removed: removed, changed: changed)
        for continuation in observers.values { continuation.yield(change) }
    }

    /// Every asset with what can change about it.
    private func currentSnapshot() throws(LibraryError) -> [String: String] {
        var result: [String: String] = [:]
        for row in try database.query("SELECT id, path, favorite, mtime FROM assets") {
            if let id = row[0].text { result[id] = "\(row[1].text ?? "")|\(row[2].integer ?? 0)|\(row[3].real ?? 0)" }
        }
        for row in try database.query("SELECT asset, album FROM album_assets") {
            if let id = row[0].text, result[id] != nil { result[id]! += "|a\(row[1].integer ?? 0)" }
        }
        return result
    }

    /// SQLite's data_version: changes when another connection commits.
    private func dataVersion() -> Int64 {
        (try? database.query("PRAGMA data_version").first?.first?.integer) ?? 0
    }

    /// The folders' modification times (they change when files are added or removed), kept apart:
    /// summed into one Double, a change of a few milliseconds was lost to rounding.
    private func folderTime() -> [Double] {
        [PhotoLibrary.modificationTime(of: location.photos) ?? 0, PhotoLibrary.modificationTime(of: location.videos) ?? 0]
    }

    /// Whether a file name has a photo extension the library indexes.
    static func isPhotoName(_ name: String) -> Bool {
        ["jpg", "jpeg", "png", "heic", "heif", "avif", "webp"].contains((name as NSString).pathExtension.lowercased())
    }

    /// Whether a file name has a movie extension the library indexes.
    static func isVideoName(_ name: String) -> Bool {
        ["mp4", "m4v", "mov", "webm", "mkv"].contains((name as NSString).pathExtension.lowercased())
    }

    /// A file's modification time in seconds (nanosecond precision).
    static func modificationTime(_ info: stat) -> Double {
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    /// The modification time of `path`, or nil when it cannot be read.
    static func modificationTime(of path: String) -> Double? {
        var info = stat()
        return stat(path, &info) == 0 ? modificationTime(info) : nil
    }

    // MARK: - Reading

    /// The asset with `id`, if any.
    public func asset(id: String) throws(LibraryError) -> Asset? {
        try assets(where: "id = ?", [.text(id)]).first
    }

    /// Assets, newest first by default, optionally only one media type, favourites, or those
    /// taken in [`since`, `until`) (seconds since 1970), paged.
    public func assets(mediaType: Asset.MediaType? = nil, favoritesOnly: Bool = false, since: Double? = nil, until: Double? = nil,
                       newestFirst: Bool = true, limit: Int? = nil, offset: Int = 0) throws(LibraryError) -> [Asset] {
        var conditions: [String] = []
        var parameters: [Database.Value] = []
        if let mediaType { conditions.append("media_type = ?"); parameters.append(.text(mediaType.rawValue)) }
        if favoritesOnly { conditions.append("favorite = 1") }
        if let since { conditions.append("created >= ?"); parameters.append(.real(since)) }
        if let until { conditions.append("created < ?"); parameters.append(.real(until)) }
        let filter = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        return try assets(where: filter + " ORDER BY created \(newestFirst ? "DESC" : "ASC"), id LIMIT \(limit ?? -1) OFFSET \(offset)", parameters)
    }

    /// How many assets there are.
    public var count: Int {
        get throws(LibraryError) { Int(try database.query("SELECT COUNT(*) FROM assets").first?.first?.integer ?? 0) }
    }

    private func assets(where clause: String, _ parameters: [Database.Value]) throws(LibraryError) -> [Asset] {
        let rows = try database.query("""
            SELECT id, media_type, path, width, height, created, orientation, favorite, latitude, longitude, altitude, size, duration
            FROM assets WHERE \(clause)
            """, parameters)
        return rows.map { row in
            let location = row[8].real.flatMap { latitude in row[9].real.map { ExifLocation(latitude: latitude, longitude: $0, altitude: row[10].real) } }
            return Asset(id: row[0].text ?? "", mediaType: Asset.MediaType(rawValue: row[1].text ?? "") ?? .photo, path: row[2].text ?? "",
                         pixelWidth: Int(row[3].integer ?? 0), pixelHeight: Int(row[4].integer ?? 0), creationDate: row[5].real ?? 0,
                         orientation: ExifOrientation(rawValue: Int(row[6].integer ?? 1)) ?? .up, isFavorite: row[7].integer == 1,
                         location: location, fileSize: Int(row[11].integer ?? 0), duration: row[12].real)
        }
    }
}
