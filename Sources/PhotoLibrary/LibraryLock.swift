import Glibc

/// The one door every change to a library goes through, in this process and every other: an
/// exclusive `flock` on `INDEX.lock` beside the index. Batches, restores, deletions for good,
/// albums, favourites, the schema's migrations, the clean-up of a crash's temporary files and
/// the second half of every reconcile (the part that decides and writes) hold it, so another
/// process's watcher can never see a batch halfway (a file already in the Trash, its row not yet
/// moved) and act on it.
///
/// A function that changes the library's files or index takes a `Held` token, which only
/// `held(_:)` makes: code that skips the lock does not compile (and `ChokePointTests` checks
/// that every change in the module sits in such a function). Locking first and opening SQLite's
/// write transaction second, always in that order, cannot deadlock with another process.
final class LibraryLock {
    /// Proof that the lock is held, lent to the body of `held(_:)`: it cannot be made anywhere
    /// else, copied or kept.
    struct Held: ~Copyable {
        fileprivate init() {}
    }

    /// The lock file (`INDEX.lock`).
    let path: String
    /// The lock file, open once it was first needed (-1 before, or when it cannot be made).
    private var descriptor: Int32 = -1
    /// How many `held(_:)` calls of this object are running (the lock is taken by the first).
    private var depth = 0

    /// The lock of the index at `index`.
    init(index: String) {
        path = index + ".lock"
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Runs `body` while holding the lock, first waiting for any other process's change to
    /// end. Calls nest (an inner one runs at once). A folder where the lock file cannot be made
    /// (a read-only library) is one no one can change: `body` then runs without it.
    func held<R>(_ body: (borrowing Held) throws(LibraryError) -> R) throws(LibraryError) -> R {
        if depth == 0 { acquire() }
        depth += 1
        defer {
            depth -= 1
            if depth == 0 { release() }
        }
        let token = Held()
        return try body(token)
    }

    /// Opens the lock file when needed and waits for the lock.
    private func acquire() {
        if descriptor < 0 { descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else { return }
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
    }

    /// Lets the lock go (the file stays open for the next change).
    private func release() {
        if descriptor >= 0 { flock(descriptor, LOCK_UN) }
    }
}
