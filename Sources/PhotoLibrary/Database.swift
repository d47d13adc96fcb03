import CSQLite

/// A thin, typed wrapper over one SQLite connection (the library's index). Not thread-safe in
/// itself: the library uses it from its actor only.
final class Database {
    private let handle: OpaquePointer
    /// The file's path.
    let path: String
    /// The primary SQLite result code of the last failure (SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_BUSY…).
    private(set) var lastErrorCode: Int32 = SQLITE_OK

    /// Whether the last failure means the file itself is damaged (not busy, locked or out of space).
    var lastErrorMeansDamage: Bool { lastErrorCode == SQLITE_CORRUPT || lastErrorCode == SQLITE_NOTADB }

    /// Opens (or creates) the database at `path` with a busy timeout; `configure()` then puts it
    /// in WAL mode, so several processes (the app, `pinhole`) can share it.
    init(path: String) throws(LibraryError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw .index("cannot open \(path): \(message)")
        }
        self.handle = handle
        self.path = path
        sqlite3_busy_timeout(handle, 10_000)
    }

    /// WAL journal, full sync, foreign keys (reads the file: fails on a damaged one).
    func configure() throws(LibraryError) {
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { sqlite3_close(handle) }

    /// The last error message (and its code, remembered for `lastErrorMeansDamage`).
    private var message: String {
        lastErrorCode = sqlite3_errcode(handle) & 0xFF
        return String(cString: sqlite3_errmsg(handle))
    }

    /// Runs SQL without results (one or several statements).
    func execute(_ sql: String) throws(LibraryError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &error)
        guard status == SQLITE_OK else {
            lastErrorCode = status & 0xFF
            let text = error.map { String(cString: $0) } ?? message
            sqlite3_free(error)
            throw .index(text)
        }
    }

    /// A value to bind or read.
    enum Value: Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case null
    }

    /// Runs one statement with `parameters` and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [Value] = []) throws(LibraryError) -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw .index(message) }
        defer { sqlite3_finalize(statement) }
        for (index, value) in parameters.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case let .integer(number): sqlite3_bind_int64(statement, position, number)
            case let .real(number): sqlite3_bind_double(statement, position, number)
            case let .text(text): sqlite3_bind_text(statement, position, text, -1, pinhole_sqlite_transient())
            case .null: sqlite3_bind_null(statement, position)
            }
        }
        var rows: [[Value]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw .index(message) }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE: takes the write lock up front, so
    /// two processes wait for each other instead of failing halfway); rolls back on error. Only
    /// inside the library's lock (`held`): the lock first, SQLite's second, in every process.
    func transaction<R>(_ held: borrowing LibraryLock.Held, _ body: () throws(LibraryError) -> R) throws(LibraryError) -> R {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

extension Database.Value {
    /// The integer, if this is one.
    var integer: Int64? { if case let .integer(value) = self { value } else { nil } }
    /// The number, integer or real.
    var real: Double? {
        switch self {
        case let .real(value): value
        case let .integer(value): Double(value)
        default: nil
        }
    }
    /// The text, if this is text.
    var text: String? { if case let .text(value) = self { value } else { nil } }
}
