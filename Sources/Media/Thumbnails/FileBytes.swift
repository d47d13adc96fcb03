import Glibc

/// Whole-file reads with errors as `MediaError.io`, bounded so a huge file cannot exhaust memory.
public enum FileBytes {
    /// The largest file `read(path:)` accepts by default: 1 GiB.
    public static let defaultLimit = 1 << 30

    /// Reads the whole file at `path`; with `truncating`, a larger file gives its first `limit` bytes
    /// (to sniff its kind) instead of an error.
    public static func read(path: String, limit: Int = defaultLimit, truncating: Bool = false) throws(MediaError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .io(path: path, failure: .notRegularFile) }
        let size = truncating ? min(Int(info.st_size), limit) : Int(info.st_size)
        guard size <= limit else { throw .io(path: path, failure: .tooLarge(size: size, limit: limit)) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, size - done) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
            if n == 0 { break }  // the file shrank while we read it
            done += n
        }
        return done == size ? bytes : Array(bytes.prefix(done))
    }
}
