import Media

/// Remembering which files in the folders the library could not take, by their size and
/// modification time, so that a file that does not decode is read and decoded once, not at every
/// opening of the library: the `refused` table of the index. A file changed since (another size
/// or time) is looked at again; a file gone loses its verdict.
extension PhotoLibrary {
    /// A remembered refusal: the file as it was looked at, and why it was refused.
    struct Verdict {
        /// The size it had, in bytes.
        let size: Int64
        /// Its modification time then, in seconds since 1970.
        let mtime: Double
        /// Why it was refused.
        let problem: LibraryError
    }

    /// Makes the `refused` table if the index has none (indexes before it had none).
    static func createVerdictTable(_ database: Database, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS refused (
                path TEXT PRIMARY KEY,
                size INTEGER NOT NULL,
                mtime REAL NOT NULL,
                kind TEXT NOT NULL,
                format TEXT NOT NULL DEFAULT '',
                reason TEXT NOT NULL DEFAULT ''
            );
            """)
    }

    /// Every remembered refusal, by path.
    static func verdicts(_ database: Database) throws(LibraryError) -> [String: Verdict] {
        var found: [String: Verdict] = [:]
        for row in try database.query("SELECT path, size, mtime, kind, format, reason FROM refused") {
            guard let path = row[0].text, let kind = row[3].text else { continue }
            let reason: UnsupportedReason = switch kind {
            case "empty": .empty
            case "notAnImage": .notAnImage
            case "notAMovie": .notAMovie
            default: .damaged(.corruptData(format: row[4].text ?? "", reason: row[5].text ?? ""))
            }
            found[path] = Verdict(size: row[1].integer ?? -1, mtime: row[2].real ?? -1, problem: .unsupportedFile(path: path, reason: reason))
        }
        return found
    }

    /// Remembers that the file at `path`, of `size` bytes modified at `mtime`, was refused for
    /// `problem`. Only a verdict on the file's content is kept: a file that could not be read
    /// (permissions, an I/O error) is tried again next time.
    static func remember(_ database: Database, path: String, size: Int64, mtime: Double, problem: LibraryError,
                         _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        guard case let .unsupportedFile(_, reason) = problem else { return }
        let (kind, format, text): (String, String, String) = switch reason {
        case .empty: ("empty", "", "")
        case .notAnImage: ("notAnImage", "", "")
        case .notAMovie: ("notAMovie", "", "")
        case let .damaged(.corruptData(format, why)): ("damaged", format, why)
        case let .damaged(error): ("damaged", "file", String(error.description.dropLast(error.description.hasSuffix(".") ? 1 : 0)))
        }
        try database.query("INSERT OR REPLACE INTO refused (path, size, mtime, kind, format, reason) VALUES (?, ?, ?, ?, ?, ?)",
                           [.text(path), .integer(size), .real(mtime), .text(kind), .text(format), .text(text)])
    }

    /// Forgets the verdicts on `paths` (indexed after all, or gone).
    static func forgetVerdicts(_ database: Database, paths: some Sequence<String>, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        for path in paths { try database.query("DELETE FROM refused WHERE path = ?", [.text(path)]) }
    }
}
