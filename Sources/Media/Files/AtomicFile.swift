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
        let (fd, temporary) = try createTemporary(folder: folder, name: name, for: path)
        var written = 0
        while written < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw abandon(fd, temporary, path, errno) }
            written += n
        }
        return try commit(fd, temporary, to: path, folder: folder, crashPoint: crashPoint)
    }

    /// Copies the file at `source` to `path` the same way (temporary name, fsync, no-overwrite
    /// link, folder fsync), streaming it: a movie of any size never sits in memory. `source` must
    /// be a regular file (`RegularFile`: a FIFO or device is refused, never waited on).
    @discardableResult
    public static func copy(from source: String, to path: String, createFolders: Bool = true, crashPoint: String = "file-written") throws(MediaError) -> String {
        let file = try RegularFile(path: source)  // a regular file only, opened without blocking
        defer { withExtendedLifetime(file) {} }  // open until the copy is done
        let input = file.descriptor
        let (folder, name) = split(path)
        if createFolders { try makeFolders(folder) }
        let (fd, temporary) = try createTemporary(folder: folder, name: name, for: path)
        // sendfile copies inside the kernel; read and write when it cannot (some file systems).
        var chunk: [UInt8] = []
        while true {
            let n = sendfile(fd, input, nil, 1 << 24)
            if n > 0 { continue }
            if n == 0 { break }
            let code = errno
            if code == EINTR { continue }
            guard code == EXDEV || code == ENOSYS || code == EINVAL || code == EOPNOTSUPP else { throw abandon(fd, temporary, path, code) }
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: 1 << 20) }
            let got = chunk.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress!, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw abandon(fd, temporary, source, errno) }
            if got == 0 { break }
            var done = 0
            while done < got {
                let put = chunk.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, got - done) }
                if put < 0, errno == EINTR { continue }
                guard put > 0 else { throw abandon(fd, temporary, path, errno) }
                done += put
            }
        }
        return try commit(fd, temporary, to: path, folder: folder, crashPoint: crashPoint)
    }

    /// Moves the finished file `source` to `path` without copying when both are on one file
    /// system (fsync the file, link it under the first free name, fsync the folder; the caller
    /// removes `source` once it has recorded the new path); copies it otherwise.
    @discardableResult
    public static func place(_ source: String, at path: String, crashPoint: String = "file-written") throws(MediaError) -> String {
        let file = try RegularFile(path: source)
        guard withExtendedLifetime(file, { fsync(file.descriptor) }) == 0 else { throw failure(source, errno) }
        let (folder, _) = split(path)
        try makeFolders(folder)
        CrashPoint.reached(crashPoint)
        var target = path
        var number = 2
        while link(source, target) != 0 {
            let code = errno
            if code == EXDEV || code == EPERM { return try copy(from: source, to: path, createFolders: false, crashPoint: crashPoint) }
            guard code == EEXIST, number < 10_000 else { throw failure(path, code) }
            target = suffixed(path, number)
            number += 1
        }
        syncFolder(folder)
        return target
    }

    /// Creates `.NAME.pinhole-PID-N.tmp` in `folder` (O_EXCL) and takes an exclusive `flock` on it,
    /// held until the file is linked into place or abandoned: the lock is how a library tells a
    /// crash's leftover (no lock) from a file a live writer is still writing.
    private static func createTemporary(folder: String, name: String, for path: String) throws(MediaError) -> (Int32, String) {
        for attempt in 0..<100 {
            let (fd, temporary) = try lockedTemporary(folder: folder, name: name, tag: String(attempt), for: path)
            if fd >= 0 { return (fd, temporary) }
        }
        throw failure(path, EEXIST)
    }

    /// Creates the temporary file `.NAME.pinhole-PID-TAG.tmp` in `folder` (O_EXCL, 0644) and locks
    /// it (`flock`, exclusive); returns its descriptor (-1 when the name is taken) and path. The
    /// lock is checked to be on the file the name still gives (a library may have removed the
    /// file between its creation and the lock, taking it for a leftover: then -1 too).
    package static func lockedTemporary(folder: String, name: String, tag: String, for path: String) throws(MediaError) -> (Int32, String) {
        let temporary = "\(folder)/.\(name).pinhole-\(getpid())-\(tag).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if errno == EEXIST { return (-1, temporary) }
            throw failure(path, errno)
        }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw abandon(fd, temporary, path, errno) }
        }
        var opened = stat(), named = stat()
        guard fstat(fd, &opened) == 0, lstat(temporary, &named) == 0, opened.st_ino == named.st_ino, opened.st_dev == named.st_dev else {
            close(fd)
            return (-1, temporary)
        }
        return (fd, temporary)
    }

    /// Whether `name` is one of Pinhole's temporary files (`.NAME.pinhole-PID-TAG.tmp`).
    public static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return false }
        let body = name.dropFirst().dropLast(4)
        guard let dot = body.lastIndex(of: "."), dot > body.startIndex else { return false }
        let tail = body[body.index(after: dot)...]
        guard tail.hasPrefix("pinhole-") else { return false }
        let fields = tail.dropFirst(8).split(separator: "-", omittingEmptySubsequences: false)
        return fields.count == 2 && !fields[0].isEmpty && fields[0].allSatisfy { $0.isASCII && $0.isNumber }
            && !fields[1].isEmpty && fields[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }

    /// Removes the Pinhole temporary file at `path` when no writer holds it: its name is
    /// Pinhole's (`isTemporaryName`), it is a regular file, and its lock can be taken at once
    /// (a live writer holds it until done; a crashed one's went with its process). Returns
    /// whether it was removed. The lock is held while it is removed, and the name checked to
    /// give the same file.
    @discardableResult
    public static func removeAbandonedTemporary(_ path: String) -> Bool {
        guard isTemporaryName(split(path).1) else { return false }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var opened = stat(), named = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0,
              lstat(path, &named) == 0, named.st_ino == opened.st_ino, named.st_dev == opened.st_dev else { return false }
        return unlink(path) == 0
    }

    /// Removes a temporary file after a failure, then closes it (letting its lock go only once
    /// it is gone); returns the error to throw.
    private static func abandon(_ fd: Int32, _ temporary: String, _ path: String, _ code: Int32) -> MediaError {
        unlink(temporary)
        close(fd)
        return failure(path, code)
    }

    /// fsyncs and closes the temporary file, links it under `path` or the first free suffixed
    /// name (link() fails with EEXIST instead of replacing: the no-overwrite rename), removes
    /// the temporary name and fsyncs the folder.
    /// The temporary file's lock is held until its name is removed.
    private static func commit(_ fd: Int32, _ temporary: String, to path: String, folder: String, crashPoint: String) throws(MediaError) -> String {
        guard fsync(fd) == 0 else { throw abandon(fd, temporary, path, errno) }
        CrashPoint.reached(crashPoint)
        var target = path
        var number = 2
        while link(temporary, target) != 0 {
            let code = errno
            guard code == EEXIST, number < 10_000 else { throw abandon(fd, temporary, path, code) }
            target = suffixed(path, number)
            number += 1
        }
        unlink(temporary)
        close(fd)
        syncFolder(folder)
        return target
    }

    /// fsyncs a folder, so a new name in it survives a power cut.
    static func syncFolder(_ folder: String) {
        let dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            fsync(dir)
            close(dir)
        }
    }

    /// "folder/name (n).ext": the name every new file gets when "folder/name.ext" is taken.
    public static func suffixed(_ path: String, _ number: Int) -> String {
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

    /// The error for a failed file operation on `path`: errno kept as a `FileFailure` case (the
    /// one mapping every file writer in Media uses).
    static func failure(_ path: String, _ code: Int32) -> MediaError {
        .io(path: path, failure: FileFailure(errno: code))
    }
}
