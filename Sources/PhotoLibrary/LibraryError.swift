import Media

/// What can go wrong with the photo library; each case prints one line saying what to do.
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The library's folders cannot be created, read or written.
    case accessDenied(path: String, reason: String)
    /// The index database failed.
    case index(String)
    /// A file given to import is not a supported image (or is damaged).
    case unsupportedFile(path: String, reason: String)
    /// The file is already in the library (same content).
    case duplicate(path: String, existing: String)
    /// No asset has this identifier.
    case notFound(String)
    /// Writing a file failed (disk full, permissions…).
    case cannotWrite(path: String, reason: String)
    /// An asset cannot be exported as asked.
    case cannotExport(id: String, reason: String)

    /// A one-line explanation for people.
    public var description: String {
        let text = sentence
        return text.hasSuffix("..") ? String(text.dropLast()) : text
    }

    /// The explanation, before a doubled full stop (a reason that ends with one) is removed.
    private var sentence: String {
        switch self {
        case let .accessDenied(path, reason): "The photo library at \(path) cannot be used: \(reason). Check the folder's permissions."
        case let .index(reason): "The library index failed: \(reason). Run `pinhole library verify --repair` to rebuild it."
        case let .unsupportedFile(path, reason): "\(path) cannot be imported: \(reason)."
        case let .duplicate(path, existing): "\(path) is already in the library as \(existing)."
        case let .notFound(id): "No photo or video '\(id)' in the library. List them with `pinhole library list`."
        case let .cannotWrite(path, reason): "Cannot save \(path): \(reason). Free some space or choose another folder."
        case let .cannotExport(id, reason): "Cannot export \(id): \(reason)."
        }
    }

    /// Turns a file error from `Media` into a library error.
    static func from(_ error: MediaError) -> LibraryError {
        if case let .io(path, reason) = error { return .cannotWrite(path: path, reason: reason) }
        return .unsupportedFile(path: "the data", reason: error.description)
    }
}
