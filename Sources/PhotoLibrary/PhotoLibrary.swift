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
///
/// Each job lives in an extension of its own file: `+Index` (opening, schema, crash clean-up),
/// `+Reconcile` (files ↔ index), `+Adding`, `+Batches` (`performChanges`, favourites), `+Trash`,
/// `+Albums`, `+Export`, `+Thumbnails`, `+Changes` (the change stream) and `+Queries`.
public actor PhotoLibrary {
    /// Where the library lives.
    public nonisolated let location: LibraryLocation
    // The extensions' state (internal so that their files can reach it).
    let database: Database
    /// The cross-process lock every change holds (`LibraryLock`).
    let lock: LibraryLock
    var trash: Trash
    var observers: [Int: AsyncStream<LibraryChange>.Continuation] = [:]
    var nextObserver = 0
    var snapshot: [String: String] = [:]
    var watcher: Task<Void, Never>?
    var folderWatcher: LibraryWatcher?
    var simulatedWatchFailure: ChangeTracking.Failure?
    var lastDataVersion: Int64 = -1
    var lastFolderTime: [Double] = []
    var thumbnailing: Task<Int, Never>?
    var skipped: [SkippedFile] = []

    /// The files in the folders that the last look at all of them (opening, `synchronize()`)
    /// could not take as they are: refused (not indexed) or left as they are (a movie whose
    /// structure cannot be walked), each with why. Programs should say so: the library opens
    /// without them, and people may want to find them.
    public var skippedFiles: [SkippedFile] { skipped }

    /// How changes made outside this library are followed while someone observes `changes()`
    /// (nil when no one does): `.live` through inotify, or `.polling` with the reason inotify
    /// could not be set up. The stream says so too when it is not `.live`.
    public internal(set) var changeTracking: ChangeTracking?

    /// Opens the library at `location` (the user's by default), creating folders and index, and
    /// (unless `synchronize` is false, as `verify` needs) bringing the index up to date with the
    /// files, which can take long: every file checked, new ones hashed, movies a crash left
    /// fragmented finished. All of it runs on a worker thread, never the caller's.
    public init(location: LibraryLocation = .user, synchronize: Bool = true) async throws(LibraryError) {
        let opened = try await BlockingWork.run { () throws(LibraryError) -> Opened in
            try PhotoLibrary.opening(location, synchronize: synchronize)
        }
        self.location = location
        trash = Trash(folder: location.trash)
        database = opened.database
        lock = opened.lock
        thumbnailing = opened.thumbnailing
        skipped = opened.skipped
    }

    /// What opening a library made: the index, and the thumbnails being made for the files the
    /// reconcile found new or changed.
    struct Opened {
        /// The open index.
        let database: Database
        /// The library's lock (its file beside the index).
        let lock: LibraryLock
        /// The background thumbnailing started, if there was anything to make.
        let thumbnailing: Task<Int, Never>?
        /// The files the reconcile refused or left as they are.
        var skipped: [SkippedFile] = []
    }

    /// Makes the folders, checks access, opens (or rebuilds) the index, removes a crash's
    /// leftovers and, when `synchronize` is true, reconciles the index with the files. Blocks.
    static func opening(_ location: LibraryLocation, synchronize: Bool) throws(LibraryError) -> Opened {
        for folder in [location.photos, location.videos, (location.index as NSString).deletingLastPathComponent] {
            do throws(MediaError) { try AtomicFile.makeFolders(folder) } catch {
                guard case let .io(_, failure) = error else { throw .accessDenied(path: folder, failure: .permissionDenied) }
                throw failure.isOutOfSpace ? .cannotWrite(path: folder, failure: failure) : .accessDenied(path: folder, failure: failure)
            }
        }
        for folder in [location.photos, location.videos] where access(folder, R_OK | W_OK | X_OK) != 0 {
            throw .accessDenied(path: folder, failure: FileFailure(errno: errno))
        }
        let lock = LibraryLock(index: location.index)
        let database = try lock.held { held throws(LibraryError) in
            let database = try PhotoLibrary.openIndex(at: location.index, held)
            PhotoLibrary.removeLeftovers(in: location.photos, held)
            PhotoLibrary.removeLeftovers(in: location.videos, held)
            return database
        }
        guard synchronize else { return Opened(database: database, lock: lock, thumbnailing: nil) }
        let changes = try PhotoLibrary.reconcile(database, location, lock, finishingMovies: true)
        try PhotoLibrary.fillInLocationFlags(database, lock)
        return Opened(database: database, lock: lock,
                      thumbnailing: PhotoLibrary.thumbnailInBackground(changes.changed, cache: ThumbnailCache(folder: location.thumbnails), after: nil),
                      skipped: changes.skipped)
    }

    deinit {
        thumbnailing?.cancel()
        watcher?.cancel()
        folderWatcher?.stop()
    }
}
