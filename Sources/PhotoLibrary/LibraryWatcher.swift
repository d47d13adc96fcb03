import Foundation
import Glibc
import Media

/// What the watcher saw in one look, for the library to act on.
struct WatchEvents: Sendable, Equatable {
    /// Files in the photos or videos folder to look at again: written and closed, moved in, a
    /// finished file linked in, removed or moved out. Only names the library indexes (not
    /// hidden: the library's own temporary files start with a dot).
    var paths: Set<String> = []
    /// The index's files were written: another process may have committed.
    var index = false
    /// Events were lost (the kernel's queue overflowed) or a folder's watch ended (the folder was
    /// removed or moved): look at everything.
    var rescan = false
    /// A watched folder went away: its watch has ended and must be made again.
    var lostFolder = false

    var isEmpty: Bool { paths.isEmpty && !index && !rescan && !lostFolder }
}

/// Watches the library's photos and videos folders and its index's folder with inotify, on a
/// thread of its own, and hands what it sees to `events` (one batch per wake-up, in order).
///
/// Files are reported when they are complete: when closed after writing (IN_CLOSE_WRITE) or
/// moved in (IN_MOVED_TO), never when created (a copy in progress is half-written). A file
/// linked in (IN_CREATE with more than one link: another Pinhole process's `AtomicFile`, or
/// `ln`) is complete, but its writer commits its row itself, so it is reported a second later,
/// only to catch a writer that died in between. Writes to the index (IN_MODIFY of the database
/// or its WAL) are reported at once and again shortly after the last one: the write event may
/// come before the commit is visible (the WAL is synced, then the shared index updated).
final class LibraryWatcher: Sendable {
    /// The batches, in the order seen; finishes when the watcher stops.
    let events: AsyncStream<WatchEvents>
    private let continuation: AsyncStream<WatchEvents>.Continuation
    private let inotify: Int32
    /// The pipe that wakes the thread to stop: read end, write end.
    private let wake: [Int32]
    private let folders: [Int32: Folder]

    /// What one watch is for (one folder may be several: an index beside the photos).
    private struct Folder: Sendable {
        var path: String
        var photos = false
        var videos = false
        /// The names of the index's files that say "written" (the database and its WAL).
        var indexNames: Set<String> = []
    }

    /// When to look at the index again after its last write, in seconds.
    private static let indexFollowUps: [Double] = [0.01, 0.03, 0.1, 0.3, 1, 2]
    /// How long a linked-in file waits for its writer's row, in seconds.
    private static let linkGrace = 1.0

    /// Sets up inotify on `location`'s folders and starts the thread; fails (and starts nothing)
    /// when inotify cannot be set up.
    static func start(_ location: LibraryLocation) -> Result<LibraryWatcher, ChangeTracking.Failure> {
        let inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else {
            return .failure(errno == EMFILE || errno == ENFILE ? .tooManyInstances : .system(errno: errno))
        }
        // A pipe whose write end `stop()` writes to wakes the thread.
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else {
            let code = errno
            close(inotify)
            return .failure(code == EMFILE || code == ENFILE ? .tooManyInstances : .system(errno: code))
        }
        for fd in wake {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let files = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        let (indexFolder, indexName) = (location.index as NSString).deletingLastPathComponent == ""
            ? (".", location.index) : ((location.index as NSString).deletingLastPathComponent, (location.index as NSString).lastPathComponent)
        var folders: [Int32: Folder] = [:]
        for (path, mask) in [(location.photos, files), (location.videos, files), (indexFolder, UInt32(IN_MODIFY | IN_ONLYDIR))] {
            // IN_MASK_ADD: a folder watched twice (the index beside the photos) keeps both masks.
            let watch = inotify_add_watch(inotify, path, mask | UInt32(IN_MASK_ADD))
            guard watch >= 0 else {
                let code = errno
                for fd in [inotify] + wake { close(fd) }
                return .failure(code == ENOSPC ? .tooManyWatches : .folder(path: path, failure: FileFailure(errno: code)))
            }
            var folder = folders[watch] ?? Folder(path: path)
            if path == location.photos { folder.photos = true }
            if path == location.videos { folder.videos = true }
            if path == indexFolder && mask & UInt32(IN_MODIFY) != 0 { folder.indexNames = [indexName, indexName + "-wal"] }
            folders[watch] = folder
        }
        return .success(LibraryWatcher(inotify: inotify, wake: wake, folders: folders))
    }

    private init(inotify: Int32, wake: [Int32], folders: [Int32: Folder]) {
        self.inotify = inotify
        self.wake = wake
        self.folders = folders
        (events, continuation) = AsyncStream<WatchEvents>.makeStream(bufferingPolicy: .unbounded)
        let thread = Thread { [self] in run() }
        thread.name = "pinhole-library-watch"
        thread.start()
    }

    /// Stops the thread (which finishes `events`). Safe to call more than once.
    func stop() {
        var one: UInt8 = 1
        _ = write(wake[1], &one, 1)
    }

    // The thread holds the watcher: the descriptors outlive it.
    deinit {
        for fd in [inotify] + wake { close(fd) }
    }

    private func run() {
        defer { continuation.finish() }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var indexChecks: [Double] = []  // monotonic times to look at the index again
        var linked: [String: Double] = [:]  // linked-in files and when to report them
        while true {
            let now = Self.now()
            let next = (indexChecks + Array(linked.values)).min()
            let timeout = next.map { Int32(max(0, min(60_000, ($0 - now) * 1000).rounded(.up))) } ?? -1
            var descriptors = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, timeout)
            if ready < 0 && errno != EINTR { return }
            if descriptors[1].revents != 0 { return }
            var batch = WatchEvents()
            if descriptors[0].revents & Int16(POLLIN) != 0 {
                read(into: &batch, linked: &linked, buffer: &buffer)
            }
            if descriptors[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return }
            let after = Self.now()
            if batch.index {
                indexChecks = Self.indexFollowUps.map { after + $0 }
            } else if let first = indexChecks.first, first <= after {
                batch.index = true
                indexChecks.removeAll { $0 <= after }
            }
            for (path, due) in linked where due <= after {
                batch.paths.insert(path)
                linked[path] = nil
            }
            if !batch.isEmpty { continuation.yield(batch) }
        }
    }

    /// Reads every queued event into `batch`.
    private func read(into batch: inout WatchEvents, linked: inout [String: Double], buffer: inout [UInt8]) {
        let header = MemoryLayout<inotify_event>.size
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(inotify, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                while offset + header <= count {
                    let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let start = offset + header
                    let name = String(decoding: raw[start..<min(count, start + length)].prefix { $0 != 0 }, as: UTF8.self)
                    offset = start + length
                    handle(watch: watch, mask: mask, name: name, batch: &batch, linked: &linked)
                }
            }
        }
    }

    /// Notes one event.
    private func handle(watch: Int32, mask: UInt32, name: String, batch: inout WatchEvents, linked: inout [String: Double]) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            batch.rescan = true
            batch.index = true
            return
        }
        guard let folder = folders[watch] else { return }
        if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
            batch.rescan = true
            batch.lostFolder = true
            return
        }
        if folder.indexNames.contains(name) && mask & UInt32(IN_MODIFY) != 0 { batch.index = true }
        guard mask & UInt32(IN_ISDIR) == 0, !name.hasPrefix("."),
              folder.photos && PhotoLibrary.isPhotoName(name) || folder.videos && PhotoLibrary.isVideoName(name) else { return }
        let path = folder.path + "/" + name
        if mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM) != 0 {
            batch.paths.insert(path)
            linked[path] = nil
        } else if mask & UInt32(IN_CREATE) != 0 {
            // Created: being written (wait for IN_CLOSE_WRITE), or a finished file linked in.
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink > 1 {
                linked[path] = Self.now() + Self.linkGrace
            }
        }
    }

    /// CLOCK_MONOTONIC in seconds.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
