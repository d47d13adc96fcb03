import Glibc

/// Finishing MP4s that a recorder left fragmented (a crash, a kill, a power cut, a remux that
/// found no room), as a normal stop would have: remuxed to a regular MP4 under a temporary name,
/// synced, renamed over the original.
///
/// A live recorder's file must never be touched. `MovieWriter` holds an exclusive `flock` on its
/// file from before it writes the first byte until the regular MP4 has replaced it; a process
/// that dies loses its locks with it. So a file with content whose lock can be taken has no
/// recorder any more. The check after taking the lock that the path still names the locked file
/// covers a recorder that replaced it while this process waited to look.
public enum MovieRecovery {
    /// What `finishIfAbandoned(path:)` found.
    public enum Outcome: Sendable, Equatable {
        /// The file was a fragmented MP4 without a recorder, and is now a regular MP4.
        case finished
        /// Nothing to do: not an MP4, or a regular one already (or replaced while looking).
        case notFragmented
        /// A recorder holds the file's lock: it is still being written, and was left alone.
        case inUse
    }

    /// Finishes the MP4 at `path` if a recorder left it fragmented and no longer holds it.
    /// Blocking (it may copy the whole movie): call it off any UI thread. Throws when the
    /// file cannot be opened or the remux fails (the file is then left as it was).
    public static func finishIfAbandoned(path: String) throws(MediaError) -> Outcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return .inUse }
            throw .io(path: path, failure: FileFailure(errno: errno))
        }
        var locked = stat(), named = stat()
        guard fstat(fd, &locked) == 0, stat(path, &named) == 0,
              locked.st_ino == named.st_ino, locked.st_dev == named.st_dev else { return .notFragmented }
        guard isFragmentedMP4(fd) else { return .notFragmented }
        try MovieRemuxer.makeRegularMP4(path)
        return .finished
    }

    /// Whether the file open at `fd` is an ISO media file (MP4/MOV) written in fragments with at
    /// least one fragment to keep: a top-level `moof`. (A `moov` announcing fragments with none
    /// after it holds no frame: nothing to finish.) Reads box headers only.
    static func isFragmentedMP4(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let end = Int64(info.st_size)
        var offset: Int64 = 0
        var first = true
        // A bound on boxes looked at, so a damaged file cannot keep this busy.
        for _ in 0..<100_000 {
            guard let box = boxHeader(fd, at: offset, end: end) else { return false }
            if first {
                guard box.type == "ftyp" else { return false }
                first = false
            }
            if box.type == "moof" { return true }
            offset += box.size
            if offset >= end { return false }
        }
        return false
    }

    /// The box at `offset`: its four-character type, whole size and header size; nil when it
    /// does not fit before `end`.
    private static func boxHeader(_ fd: Int32, at offset: Int64, end: Int64) -> (type: String, size: Int64, headerSize: Int64)? {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard offset + 8 <= end, pread(fd, &bytes, 16, off_t(offset)) >= 8 else { return nil }
        func bigEndian(_ range: Range<Int>) -> Int64 { range.reduce(0) { $0 << 8 | Int64(bytes[$1]) } }
        let type = String(decoding: bytes[4..<8], as: UTF8.self)
        var size = bigEndian(0..<4), headerSize: Int64 = 8
        if size == 1 {
            guard offset + 16 <= end else { return nil }
            size = bigEndian(8..<16)
            headerSize = 16
        } else if size == 0 {
            size = end - offset
        }
        guard size >= headerSize, offset + size <= end || type == "mdat" || type == "moof" else { return nil }
        return (type, max(size, headerSize), headerSize)
    }
}
