import Foundation
import Glibc
import Media

/// Making the index agree with the files in the folders.
extension PhotoLibrary {
    /// Makes the index agree with the files: rows for files that appeared, no rows for files
    /// that are gone. Returns how many were added and removed.
    @discardableResult
    public func synchronize() throws(LibraryError) -> (added: Int, removed: Int) {
        defer { publish() }
        let changes = try PhotoLibrary.reconcile(database, location, finishingMovies: true)
        prepareInBackground(changes.changed)
        return (changes.added.count, changes.removed)
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

    /// What the library would index the file at `path` as, by its folder and name (nil: nothing,
    /// as a hidden temporary file or another folder's file).
    static func mediaType(ofPath path: String, in location: LibraryLocation) -> Asset.MediaType? {
        let folder = (path as NSString).deletingLastPathComponent, name = (path as NSString).lastPathComponent
        guard !name.hasPrefix(".") else { return nil }
        if folder == location.photos && isPhotoName(name) { return .photo }
        if folder == location.videos && isVideoName(name) { return .video }
        return nil
    }

    /// Makes the index agree with the files (only those at `paths`, when given): rows for files
    /// that appeared or changed, none for files that are gone. With `finishingMovies` (opening
    /// the library, `synchronize()`), MP4s a crashed recorder left fragmented are first finished
    /// as a normal stop does (`MovieRecovery`: never one a live recorder holds), and an indexed
    /// one keeps its identifier, favourite and albums.
    static func reconcile(_ database: Database, _ location: LibraryLocation, only paths: Set<String>? = nil,
                          finishingMovies: Bool = false) throws(LibraryError) -> (added: [String], changed: [String], removed: Int) {
        var known: [String: (Int64, Double)] = [:]
        let candidates: [(path: String, type: Asset.MediaType)]
        if let paths {
            for path in paths {
                for row in try database.query("SELECT path, size, mtime FROM assets WHERE path = ?", [.text(path)]) {
                    if let path = row[0].text { known[path] = (row[1].integer ?? 0, row[2].real ?? 0) }
                }
            }
            candidates = paths.sorted().compactMap { path in mediaType(ofPath: path, in: location).map { (path, $0) } }
        } else {
            for row in try database.query("SELECT path, size, mtime FROM assets") {
                if let path = row[0].text { known[path] = (row[1].integer ?? 0, row[2].real ?? 0) }
            }
            candidates = mediaFiles(location).map { ($0.path, $0.type) }
        }
        var added: [String] = [], removed = 0
        var present = Set<String>()
        // Read and check files first (slow), then write every row in one transaction (one sync,
        // not one per file: a 10 000-photo rebuild commits once).
        var found: [(path: String, entry: MediaEntry, contentID: String, size: Int, mtime: Double)] = []
        var finished = Set<String>()
        for (path, type) in candidates {
            if finishingMovies, type == .video, ["mp4", "m4v", "mov"].contains((path as NSString).pathExtension.lowercased()),
               (try? MovieRecovery.finishIfAbandoned(path: path)) == .finished {
                finished.insert(path)
            }
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
                if finished.contains(item.path), known[item.path] != nil {
                    // The same recording, finished: the row (identifier, favourite, albums) stays.
                    try database.query("UPDATE assets SET size = ?, mtime = ?, duration = ? WHERE path = ?",
                                       [.integer(Int64(item.size)), .real(item.mtime), item.entry.duration.map { .real($0) } ?? .null, .text(item.path)])
                    continue
                }
                try database.query("DELETE FROM assets WHERE path = ?", [.text(item.path)])
                try insert(database, entry: item.entry, contentID: item.contentID, size: item.size, path: item.path, mtime: item.mtime)
            }
            for path in gone { try database.query("DELETE FROM assets WHERE path = ?", [.text(path)]) }
        }
        return (added, found.map(\.path), removed)
    }

    /// Inserts the row for a file (its identifier from its content; a second copy of the same
    /// content under another name gets a suffixed identifier).
    static func insert(_ database: Database, entry: MediaEntry, contentID: String, size: Int, path: String, mtime: Double) throws(LibraryError) {
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
            INSERT INTO assets (id, media_type, path, width, height, created, orientation, latitude, longitude, altitude, size, mtime, duration, has_location)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO NOTHING
            """, [.text(id), .text(entry.mediaType.rawValue), .text(path), .integer(Int64(entry.width)), .integer(Int64(entry.height)),
                  .real(entry.date ?? mtime), .integer(Int64(entry.orientation)),
                  location.map { .real($0.latitude) } ?? .null, location.map { .real($0.longitude) } ?? .null,
                  location?.altitude.map { .real($0) } ?? .null, .integer(Int64(size)), .real(mtime),
                  entry.duration.map { .real($0) } ?? .null, .integer(entry.hasLocation ? 1 : 0)])
    }

    /// Photos' identifiers start with "p", videos' with "v".
    static func identifierPrefix(_ type: Asset.MediaType) -> String { type == .photo ? "p" : "v" }

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
}
