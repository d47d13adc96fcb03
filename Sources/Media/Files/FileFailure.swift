import Glibc

/// Why a file could not be read or written, kept as a case callers can match (a full disk, a
/// folder the user may not write, …) rather than as words: errno is turned into a case once,
/// here, and into words only by `description`.
public enum FileFailure: Sendable, Hashable, CustomStringConvertible {
    /// No space left on the file system (ENOSPC).
    case diskFull
    /// The user's disk quota is used up (EDQUOT).
    case quotaExceeded
    /// The user may not read or write there (EACCES, EPERM).
    case permissionDenied
    /// The file system is mounted read-only (EROFS).
    case readOnly
    /// The file, or a folder on its path, does not exist (ENOENT).
    case notFound
    /// A part of the path is a file, not a folder (ENOTDIR).
    case notAFolder
    /// A file of that name exists (EEXIST).
    case exists
    /// The path names a folder, device or pipe where a regular file was expected.
    case notRegularFile
    /// The file is larger than the reader accepts.
    case tooLarge(size: Int, limit: Int)
    /// Any other system error, by its number.
    case system(errno: Int32)

    /// The case for a system error number.
    public init(errno code: Int32) {
        self = switch code {
        case ENOSPC: .diskFull
        case EDQUOT: .quotaExceeded
        case EACCES, EPERM: .permissionDenied
        case EROFS: .readOnly
        case ENOENT: .notFound
        case ENOTDIR: .notAFolder
        case EEXIST: .exists
        case EISDIR: .notRegularFile
        default: .system(errno: code)
        }
    }

    /// Whether there is no room left (the disk or the quota is full).
    public var isOutOfSpace: Bool { self == .diskFull || self == .quotaExceeded }

    /// What happened, in a few words ("the disk is full").
    public var description: String {
        switch self {
        case .diskFull: "the disk is full"
        case .quotaExceeded: "the disk quota is used up"
        case .permissionDenied: "permission denied"
        case .readOnly: "the file system is read-only"
        case .notFound: "the file or folder does not exist"
        case .notAFolder: "a part of the path is not a folder"
        case .exists: "a file of that name exists"
        case .notRegularFile: "it is not a regular file"
        case let .tooLarge(size, limit): "the file is \(size) bytes, over the limit of \(limit)"
        case let .system(code): "\(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
