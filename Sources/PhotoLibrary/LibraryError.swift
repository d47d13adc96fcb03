import Media

/// What can go wrong with the photo library. Each case prints one line saying what happened;
/// what to do is for the program to say (the CLI and the app add their own words). File
/// failures keep their cause as a `FileFailure` case.
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The library's folders cannot be created, read or written.
    case accessDenied(path: String, failure: FileFailure)
    /// The index database failed.
    case index(String)
    /// A file given to import is not a supported photo or video (or is damaged); `reason` says
    /// which, as a case (`UnsupportedReason`), so callers put it into their own words.
    case unsupportedFile(path: String, reason: UnsupportedReason)
    /// A file given to the library could not be read.
    case cannotRead(path: String, failure: FileFailure)
    /// The file is already in the library (same content).
    case duplicate(path: String, existing: String)
    /// No asset has this identifier.
    case notFound(String)
    /// No album has this name.
    case albumNotFound(String)
    /// An album of this name exists already.
    case albumExists(String)
    /// An album's name must be one line of text, not empty.
    case invalidAlbumName(String)
    /// Writing a file failed (a full disk, permissions, …).
    case cannotWrite(path: String, failure: FileFailure)
    /// A file could not be moved to the Trash.
    case cannotTrash(path: String, failure: FileFailure)
    /// A Trash entry (its .trashinfo file) does not say where its file came from.
    case damagedTrashEntry(path: String)
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
        case let .accessDenied(path, failure): "The photo library at \(path) cannot be used: \(failure)."
        case let .index(reason): "The library index failed: \(reason)."
        case let .unsupportedFile(path, reason): "\(path) cannot be read as a photo or video: \(reason)."
        case let .cannotRead(path, failure): "Cannot read \(path): \(failure)."
        case let .duplicate(path, existing): "\(path) is already in the library as \(existing)."
        case let .notFound(id): "No photo or video '\(id)' in the library."
        case let .albumNotFound(name): "No album '\(name)' in the library."
        case let .albumExists(name): "An album named '\(name)' exists already."
        case .invalidAlbumName: "An album's name must be one line of text, not empty."
        case let .cannotWrite(path, failure): "Cannot save \(path): \(failure)."
        case let .cannotTrash(path, failure): "\(path) could not be moved to the Trash: \(failure)."
        case let .damagedTrashEntry(path): "The Trash entry \(path) does not say where its file came from."
        case let .cannotExport(id, reason): "Cannot export \(id): \(reason)."
        }
    }

    /// Turns a file error from `Media` into a library error (a write: Media's readers are
    /// called through `reading(_:_:)`).
    static func from(_ error: MediaError) -> LibraryError {
        if case let .io(path, failure) = error { return .cannotWrite(path: path, failure: failure) }
        return .unsupportedFile(path: "the data", reason: .damaged(error))
    }

    /// The error for a file that could not be read (or read as what it claims to be).
    static func reading(_ path: String, _ error: MediaError) -> LibraryError {
        if case let .io(_, failure) = error { return .cannotRead(path: path, failure: failure) }
        return .unsupportedFile(path: path, reason: .damaged(error))
    }
}

/// Why the library did not take a file as a photo or video. Its description is the library's
/// one line in English; the app and the CLI match the cases for their own words.
public enum UnsupportedReason: Sendable, Equatable, CustomStringConvertible {
    /// The file has no bytes.
    case empty
    /// The file is neither a JPEG, PNG, HEIF or WebP image nor a movie.
    case notAnImage
    /// The file is not an MP4, MOV, WebM or MKV movie (only a video was wanted).
    case notAMovie
    /// The file starts as one of the formats but Media could not read it: damaged, truncated,
    /// too large to decode, or of a kind Media does not handle (the error says which).
    case damaged(MediaError)

    /// The reason in the library's words.
    public var description: String {
        switch self {
        case .empty: "the file is empty"
        case .notAnImage: "it is not a JPEG, PNG, HEIF or WebP image"
        case .notAMovie: "it is not an MP4, MOV, WebM or MKV movie"
        case let .damaged(error): error.description
        }
    }
}
