import Glibc

/// The one way Pinhole opens a file that a user or another program chose for reading: a file
/// given to import, a file found in the library's folders, an asset to share, export or show.
/// Only a regular file is opened, and opening never blocks: a FIFO named `x.jpg` would block
/// `open()` until a writer came (forever), and a device node may do anything when opened.
///
/// The path is looked at first (`stat`, following links unless told not to): anything but a
/// regular file is refused without being opened. It is then opened with `O_NONBLOCK` (so a FIFO
/// put there meanwhile cannot block either) and `O_CLOEXEC`, checked again on the descriptor
/// (`fstat`: what was opened is what is read), and `O_NONBLOCK` is cleared for plain reads.
/// Errors keep their cause: `MediaError.io` with the errno as a `FileFailure` case,
/// `.notRegularFile`, or `.tooLarge` over the size limit asked for.
///
/// The descriptor is closed when the value goes away, which can be right after its last use: a
/// caller that goes on using `descriptor` (or `descriptorPath`) keeps the value alive for as long
/// (`withExtendedLifetime`).
public final class RegularFile {
    /// The open descriptor (read-only, close-on-exec, blocking reads).
    public let descriptor: Int32
    /// The path it was opened by, for errors.
    public let path: String
    /// Its size in bytes when opened.
    public let size: Int
    /// Its modification time when opened, in seconds since 1970 (nanosecond precision).
    public let modificationTime: Double

    /// Opens the regular file at `path` for reading. With `followLinks` false, a symbolic link is
    /// refused as not a regular file (`O_NOFOLLOW`). A file over `limit` bytes (when given) is
    /// refused as `.tooLarge`.
    public init(path: String, followLinks: Bool = true, limit: Int? = nil) throws(MediaError) {
        var named = stat()
        let looked = followLinks ? stat(path, &named) : lstat(path, &named)
        guard looked == 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
        guard named.st_mode & S_IFMT == S_IFREG else { throw .io(path: path, failure: .notRegularFile) }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            let code = errno
            throw .io(path: path, failure: code == ELOOP && !followLinks ? .notRegularFile : FileFailure(errno: code))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .io(path: path, failure: FileFailure(errno: code))
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .io(path: path, failure: .notRegularFile)
        }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
            let code = errno
            close(fd)
            throw .io(path: path, failure: FileFailure(errno: code))
        }
        let size = Int(info.st_size)
        if let limit, size > limit {
            close(fd)
            throw .io(path: path, failure: .tooLarge(size: size, limit: limit))
        }
        descriptor = fd
        self.path = path
        self.size = size
        modificationTime = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }

    deinit { close(descriptor) }

    /// Reads up to `count` bytes from `offset` (fewer at the end of the file, or when it shrank).
    public func read(upTo count: Int, at offset: Int = 0) throws(MediaError) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        let fd = descriptor
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset + done)) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
            if n == 0 { break }
            done += n
        }
        return done == count ? bytes : Array(bytes.prefix(done))
    }

    /// Reads the whole file (its size when opened; less if it shrank meanwhile).
    public func readAll() throws(MediaError) -> [UInt8] {
        try read(upTo: size)
    }

    /// A path naming this open file, for libraries that open files by name themselves (FFmpeg's
    /// `avformat_open_input`): opening it opens this very file, not whatever the original path
    /// names by then, so their `open()` cannot meet a FIFO.
    public var descriptorPath: String { "/proc/self/fd/\(descriptor)" }

    /// A close-on-exec duplicate of the descriptor, owned by the caller (to hand to another
    /// process, as a portal call does); -1 with errno set on failure.
    public func duplicateDescriptor() -> Int32 {
        fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
    }
}
