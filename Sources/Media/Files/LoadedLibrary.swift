/// A C library opened with dlopen the first time it is needed, through a loader that fills a
/// table of its functions typed by the library's own headers (`pinhole_ffmpeg_load` and
/// `pinhole_heif_load` in `CMediaLoader`, `pinhole_pulse_load` in `CPulse`).
///
/// Linked at build time, such a library and its dependency tree would be mapped and relocated
/// by every process before `main`, whether it needs it or not. Kept in a `static let`, the value
/// is made, and the library opened, once, on first use.
package struct LoadedLibrary<Table: Sendable, Failure: Error & Sendable>: Sendable {
    /// The table, or why the library could not be opened.
    package let loaded: Result<Table, Failure>
    /// The library's name, for the message of a programming error.
    private let name: String

    /// Opens the library `name` through `load` (a table, or nil with the reason written into
    /// the buffer it is given); `failure` turns that reason into the module's error.
    package init(_ name: String, load: (UnsafeMutablePointer<CChar>, Int) -> UnsafePointer<Table>?, failure: (String) -> Failure) {
        self.name = name
        var reason = [CChar](repeating: 0, count: 512)
        let table = reason.withUnsafeMutableBufferPointer { load($0.baseAddress!, $0.count)?.pointee }
        loaded = table.map { .success($0) } ?? .failure(failure(reason.nulTerminatedString))
    }

    /// Throws why the library could not be opened. Every entry point that uses the library
    /// calls this before anything reads `table`.
    package func require() throws(Failure) {
        if case let .failure(error) = loaded { throw error }
    }

    /// The functions, for code that runs after `require()` succeeded (reading them earlier,
    /// when the library failed to load, is a programming error and stops the process).
    package var table: Table {
        switch loaded {
        case let .success(table): return table
        case let .failure(error): fatalError("\(name) used without require(): \(error)")
        }
    }
}
