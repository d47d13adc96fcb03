internal import CMediaLoader

/// libheif, opened the first time Media needs it (a HEIF encoded, decoded or measured).
///
/// As with `FFmpegLibrary`: linking it would map libheif and its codecs (x265, libde265, aom,
/// dav1d, …) into every process at start; `CMediaLoader` opens it with dlopen on first use and
/// Media calls it through `libheif`, a table of function pointers typed by libheif's header.
enum HEIFLibrary {
    /// The table, or why libheif could not be opened (tried once, on first use).
    static let loaded: Result<pinhole_heif, MediaError> = {
        var reason = [CChar](repeating: 0, count: 512)
        guard let table = pinhole_heif_load(&reason, reason.count)?.pointee else {
            return .failure(.unsupported("HEIF: libheif could not be loaded (\(reason.nulTerminatedString))"))
        }
        return .success(table)
    }()

    /// Opens libheif if it is not open yet; throws when it cannot be. Every entry point of
    /// `HEIFCodec` calls this before anything reads `libheif`.
    static func require() throws(MediaError) {
        if case let .failure(error) = loaded { throw error }
    }
}

/// libheif's functions, for code that runs after `HEIFLibrary.require()` succeeded (reading it
/// earlier, when libheif failed to load, is a programming error and stops the process).
let libheif: pinhole_heif = {
    switch HEIFLibrary.loaded {
    case let .success(table): return table
    case let .failure(error): fatalError("libheif used without HEIFLibrary.require(): \(error)")
    }
}()
