import Foundation
import Glibc
import Media

/// Making the index agree with the files in the folders.
extension PhotoLibrary {
    /// Makes the index agree with the files: rows for files that appeared, no rows for files
    /// that are gone. Returns how many were added and removed; `skippedFiles` then says which
    /// files were refused or left as they are.
    @discardableResult
    public func synchronize() throws(LibraryError) -> (added: Int, removed: Int) {
        defer { publish() }
        let changes = try PhotoLibrary.reconcile(database, location, lock, finishingMovies: true)
        skipped = changes.skipped
        prepareInBackground(changes.changed)
        return (changes.added.count, changes.removed)
    }

    /// What `synchronize()` would change, without changing it. The rows and the files are read
    /// holding the library's lock, so a change another process is making (a file placed or
    /// trashed with its row) is seen whole or not at all: without it, 16 of 325 verifies made
    /// beside four writing processes reported such a change halfway as a disagreement.
    public func differences() throws(LibraryError) -> (missingFromIndex: [String], missingFiles: [String]) {
        try lock.held { _ throws(LibraryError) in
            let indexed = Set(try database.query("SELECT path FROM assets").compactMap { $0.first?.text })
            let files = Set(PhotoLibrary.mediaFiles(location).map(\.path))
            return (files.subtracting(indexed).sorted(), indexed.subtracting(files).sorted())
        }
    }

    /// The names the library indexes: photos in the photos folder, videos in the videos folder.
    static func mediaFiles(_ location: LibraryLocation) -> [(path: String, name: String, type: Asset.MediaType)] {
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
    /// that appeared, changed or moved, none for files that are gone, each file matched to its
    /// row by the identity rule (`row(for:_:fingerprint:type:in:)`), so an edited or renamed file
    /// keeps its identifier, favourite and albums. With `finishingMovies` (opening the library,
    /// `synchronize()`), MP4s a crashed recorder left fragmented are first finished as a normal
    /// stop does (`MovieRecovery`: never one a live recorder holds). A file that is refused is
    /// remembered with its size and time (`+Verdicts`), so it is not read and decoded again until
    /// it changes; refused files and movies left as they are come back in `skipped`.
    ///
    /// Files are read and checked first, without the lock (slow); then, holding the lock, each is
    /// looked at again and the rows decided and written in one transaction, so a batch another
    /// process is in the middle of is never seen halfway. A file that changed meanwhile is read
    /// again (up to three times).
    static func reconcile(_ database: Database, _ location: LibraryLocation, _ lock: LibraryLock, only paths: Set<String>? = nil,
                          finishingMovies: Bool = false) throws(LibraryError) -> Reconciled {
        var result = Reconciled()
        var scope = paths
        for round in 0..<3 {
            let planned = try plan(database, location, lock, only: scope, finishingMovies: finishingMovies && round == 0)
            let applied = try lock.held { held throws(LibraryError) in try apply(planned, database, only: scope, held) }
            result.added += applied.added
            result.changed += applied.changed
            result.removed += applied.removed
            result.skipped += planned.skipped
            guard !applied.retry.isEmpty else { break }
            scope = applied.retry
        }
        return result
    }

    /// What a reconcile did.
    struct Reconciled {
        /// Files newly indexed.
        var added: [String] = []
        /// Files indexed anew (new, changed or moved).
        var changed: [String] = []
        /// How many rows lost their file.
        var removed = 0
        /// Files refused or left as they are.
        var skipped: [SkippedFile] = []
    }

    /// The first half's result: what to do about each file read, and the verdicts to keep.
    struct Planned {
        /// The files whose rows are to be written.
        var plans: [Plan] = []
        /// Files refused or left as they are.
        var skipped: [SkippedFile] = []
        /// Files refused for their content, to be remembered with their size and time.
        var refused: [(file: FileIdentity, path: String, problem: LibraryError)] = []
        /// Paths whose remembered verdicts no longer hold (indexed now, or gone).
        var stale: [String] = []
    }

    /// What to do about one file, decided from what it was when read.
    struct Plan {
        /// The file.
        let path: String
        /// Photo or video (by its folder and name).
        let type: Asset.MediaType
        /// What it was when read.
        let file: FileIdentity
        /// What it holds (nil: not read, its row matched without reading it).
        let entry: MediaEntry?
        /// Its content's fingerprint (nil when not read).
        let fingerprint: String?
    }

    /// The first half of a reconcile, without the lock: every candidate file looked at, and
    /// those whose row does not describe them read and checked. Files that fail the check are
    /// left out (an unreadable or damaged file is not an asset) and said in `skipped`; one
    /// refused before, unchanged since, is not read again.
    private static func plan(_ database: Database, _ location: LibraryLocation, _ lock: LibraryLock, only paths: Set<String>?,
                             finishingMovies: Bool) throws(LibraryError) -> Planned {
        let candidates: [(path: String, type: Asset.MediaType)]
        if let paths {
            candidates = paths.sorted().compactMap { path in mediaType(ofPath: path, in: location).map { (path, $0) } }
        } else {
            candidates = mediaFiles(location).map { ($0.path, $0.type) }
        }
        let verdicts = try PhotoLibrary.verdicts(database)
        var planned = Planned(), present = Set<String>()
        for (path, type) in candidates {
            if finishingMovies, type == .video, ["mp4", "m4v", "mov"].contains((path as NSString).pathExtension.lowercased()),
               let problem = try? lock.held({ held throws(LibraryError) in finishMovie(at: path, held) }) {
                // Left as it is, and said: its boxes cannot be walked (or it cannot be read).
                planned.skipped.append(SkippedFile(path: path, treatment: .leftAsItIs, problem: problem))
            }
            guard let file = FileIdentity(path: path) else { continue }
            present.insert(path)
            let known = try rows(database, where: "path = ?", [.text(path)]).first
            if let known, known.describes(file), known.device != nil { continue }
            if let verdict = verdicts[path], verdict.size == file.size, verdict.mtime == file.mtime {
                planned.skipped.append(SkippedFile(path: path, treatment: .notIndexed, problem: verdict.problem))
                continue
            }
            if known == nil, let moved = try rows(database, where: "device = ? AND inode = ?", [.integer(file.device), .integer(file.inode)])
                .first(where: { $0.describes(file) && isGone($0.path) }), moved.mediaType == type {
                planned.plans.append(Plan(path: path, type: type, file: file, entry: nil, fingerprint: nil))  // renamed: nothing to read
                continue
            }
            if let known, known.describes(file) {
                planned.plans.append(Plan(path: path, type: type, file: file, entry: nil, fingerprint: nil))  // a row from before version 5
                continue
            }
            do throws(LibraryError) {
                switch type {
                case .photo:
                    let (data, photo) = try PhotoFile.read(path: path)  // the bytes are not kept
                    planned.plans.append(Plan(path: path, type: type, file: file, entry: MediaEntry(photo: photo), fingerprint: ContentHash.identifier(of: data)))
                case .video:
                    let entry = try MediaEntry(videoAt: path, name: path, keepThumbnail: false)
                    planned.plans.append(Plan(path: path, type: type, file: file, entry: entry, fingerprint: try ContentHash.identifier(ofFile: path)))
                }
                if verdicts[path] != nil { planned.stale.append(path) }
            } catch {
                planned.skipped.append(SkippedFile(path: path, treatment: .notIndexed, problem: error))
                planned.refused.append((file, path, error))
            }
        }
        // Verdicts on files no longer in the folders go (those in scope, or all of them).
        planned.stale += (paths.map { Array($0) } ?? Array(verdicts.keys)).filter { verdicts[$0] != nil && !present.contains($0) }
        return planned
    }

    /// Finishes the movie at `path` if a crashed recorder left it fragmented (its row, matched by
    /// its path, stays); returns why it was left as it is, if its boxes cannot be walked.
    private static func finishMovie(at path: String, _ held: borrowing LibraryLock.Held) -> LibraryError? {
        do throws(MediaError) {
            _ = try MovieRecovery.finishIfAbandoned(path: path)
            return nil
        } catch {
            return .reading(path, error)
        }
    }

    /// The second half of a reconcile, holding the lock: each planned file looked at again (one
    /// that changed since it was read is left for another round), matched to its row and its row
    /// written; then the rows in scope whose files are gone removed. One transaction.
    private static func apply(_ planned: Planned, _ database: Database, only paths: Set<String>?, _ held: borrowing LibraryLock.Held)
        throws(LibraryError) -> (added: [String], changed: [String], removed: Int, retry: Set<String>) {
        var added: [String] = [], changed: [String] = [], retry = Set<String>(), removed = 0
        try database.transaction(held) { () throws(LibraryError) in
            for item in planned.refused where FileIdentity(path: item.path) == item.file {
                try remember(database, path: item.path, size: item.file.size, mtime: item.file.mtime, problem: item.problem, held)
            }
            try forgetVerdicts(database, paths: planned.stale, held)
            // Files matched without reading them (renamed: the same inode) claim their rows first;
            // only then may a copy's bytes match a row whose file is gone, so a copy beside a
            // renamed original never takes its item, whatever order the folder lists them in.
            for plan in planned.plans.sorted(by: { ($0.entry == nil ? 0 : 1, $0.path) < ($1.entry == nil ? 0 : 1, $1.path) }) {
                guard FileIdentity(path: plan.path) == plan.file else {
                    retry.insert(plan.path)
                    continue
                }
                let row = try row(for: plan.path, plan.file, fingerprint: plan.fingerprint, type: plan.type, in: database)
                if let row {
                    if row.path == plan.path, row.describes(plan.file), row.device == plan.file.device, row.inode == plan.file.inode { continue }
                    if plan.entry == nil, !(row.path == plan.path ? row.describes(plan.file) : row.inode == plan.file.inode) {
                        retry.insert(plan.path)  // read it: it is not the file its row describes
                        continue
                    }
                    try update(row.id, path: plan.path, entry: plan.entry, fingerprint: plan.fingerprint, file: plan.file, in: database, held)
                    if row.path != plan.path || !row.describes(plan.file) { changed.append(plan.path) }
                } else if let entry = plan.entry, let fingerprint = plan.fingerprint {
                    try insert(database, entry: entry, contentID: fingerprint, size: Int(plan.file.size), path: plan.path, mtime: plan.file.mtime, held)
                    added.append(plan.path)
                    changed.append(plan.path)
                } else {
                    retry.insert(plan.path)
                }
            }
            var scope: [IndexedFile] = []
            if let paths {
                for path in paths.sorted() { scope += try rows(database, where: "path = ?", [.text(path)]) }
            } else {
                scope = try rows(database, where: "1", [])
            }
            for row in scope where isGone(row.path) {
                try database.query("DELETE FROM assets WHERE id = ?", [.text(row.id)])
                removed += 1
            }
        }
        return (added, changed, removed, retry)
    }

    /// Inserts the row for a file (its identifier from its content; a second copy of the same
    /// content under another name gets a suffixed identifier).
    static func insert(_ database: Database, entry: MediaEntry, contentID: String, size: Int, path: String, mtime: Double,
                       _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        if try !database.query("SELECT 1 FROM assets WHERE path = ?", [.text(path)]).isEmpty { return }
        let prefix = identifierPrefix(entry.mediaType)
        var id = prefix + contentID
        var suffix = 2
        while try !database.query("SELECT 1 FROM assets WHERE id = ?", [.text(id)]).isEmpty {
            id = prefix + contentID + "-\(suffix)"
            suffix += 1
        }
        let location = entry.location
        let file = FileIdentity(path: path)
        // Another process opening the library may have indexed this new file already (it is
        // complete once linked): then its row stands, and this insert does nothing.
        try database.query("""
            INSERT INTO assets (id, media_type, path, width, height, created, orientation, latitude, longitude, altitude, size, mtime, duration,
                                fingerprint, device, inode, has_location)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO NOTHING
            """, [.text(id), .text(entry.mediaType.rawValue), .text(path), .integer(Int64(entry.width)), .integer(Int64(entry.height)),
                  .real(entry.date ?? mtime), .integer(Int64(entry.orientation)),
                  location.map { .real($0.latitude) } ?? .null, location.map { .real($0.longitude) } ?? .null,
                  location?.altitude.map { .real($0) } ?? .null, .integer(Int64(size)), .real(mtime),
                  entry.duration.map { .real($0) } ?? .null, .text(contentID),
                  file.map { .integer($0.device) } ?? .null, file.map { .integer($0.inode) } ?? .null, .integer(entry.hasLocation ? 1 : 0)])
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
