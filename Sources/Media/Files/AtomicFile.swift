import Glibc

/// Writes files so that a crash at any moment leaves either no file or a complete one:
/// a temporary name in the target folder (created with O_EXCL), write, fsync, rename without
/// replacing anything, fsync the folder. An existing file is never overwritten: a suffix
/// " (2)", " (3)", … is added instead.
public enum AtomicFile {
    /// Writes `bytes` to `path` (or to the first free "name (n).ext" beside it) and returns the
    /// path written. Creates missing parent folders when `createFolders` is true. `crashPoint`
    /// names the moment between the durable temporary file and the link, for `CrashPoint` tests.
    @discardableResult
    public static func write(_ bytes: [UInt8], to path: String, createFolders: Bool = true, crashPoint: String = "file-written") throws(MediaError) -> String {
        try bytes.withBytes { raw throws(MediaError) in try write(raw, to: path, createFolders: createFolders, crashPoint: crashPoint) }
    }

    /// Writes raw bytes (see the array form).
    @discardableResult
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String, createFolders: Bool = true, crashPoint: String = "file-written") throws(MediaError) -> String {
        let (folder, name) = split(path)
        if createFolders { try makeFolders(folder) }
        var temporary = ""
        var fd: Int32 = -1
        for attempt in 0..<100 {
            temporary = "\(folder)/.\(name).\(getpid()).\(attempt).tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure(path, errno) }
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                close(fd)
                unlink(temporary)
                throw failure(path, code)
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            unlink(temporary)
            throw failure(path, code)
        }
        close(fd)
        CrashPoint.reached(crashPoint)
        // link() fails with EEXIST instead of replacing: the no-overwrite rename.
        var target = path
        var number = 2
        while link(temporary, target) != 0 {
            let code = errno
            guard code == EEXIST, number < 10_000 else {
                unlink(temporary)
                throw failure(path, code)
            }
            target = suffixed(path, number)
            number += 1
        }
        unlink(temporary)
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
        return target
    }

    /// "folder/name (n).ext".
    static func suffixed(_ path: String, _ number: Int) -> String {
        let (folder, name) = split(path)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(folder)/\(name[..<dot]) (\(number))\(name[dot...])"
        }
        return "\(folder)/\(name) (\(number))"
    }

    /// Splits a path into its folder ("." when none) and file name.
    static func split(_ path: String) -> (String, String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }

    /// Creates `folder` and its parents (0755).
    public static func makeFolders(_ folder: String) throws(MediaError) {
        var current = folder.hasPrefix("/") ? "" : "."
        for part in folder.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST { throw failure(current, errno) }
        }
    }

    private static func failure(_ path: String, _ code: Int32) -> MediaError {
        let reason: String = switch code {
        case ENOSPC: "the disk is full"
        case EDQUOT: "the disk quota is used up"
        case EACCES, EPERM: "permission denied"
        case EROFS: "the file system is read-only"
        case ENOENT: "the folder does not exist"
        case ENOTDIR: "a part of the path is not a folder"
        default: String(cString: strerror(code))
        }
        return .io(path: path, reason: reason)
    }
}
