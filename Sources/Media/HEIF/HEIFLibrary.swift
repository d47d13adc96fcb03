internal import CMediaLoader

/// libheif, opened the first time Media needs it (a HEIF encoded, decoded or measured): mapped
/// at start it would bring its codecs (x265, libde265, aom, dav1d, …) into every process.
enum HEIFLibrary {
    /// The table, or why libheif could not be opened (tried once, on first use).
    static let library = LoadedLibrary<pinhole_heif, MediaError>("libheif", load: pinhole_heif_load) {
        .unsupported("HEIF: libheif could not be loaded (\($0))")
    }

    /// Opens libheif if it is not open yet; throws when it cannot be. Every entry point of
    /// `HEIFCodec` calls this before anything reads `libheif`.
    static func require() throws(MediaError) { try library.require() }
}

/// libheif's functions, for code that runs after `HEIFLibrary.require()` succeeded.
let libheif = HEIFLibrary.library.table
