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
    /// Blocking (it may copy the whole movie): call it off any UI thread. Only a regular file is
    /// opened (`RegularFile`, links not followed: a recorder's file is never a link, and a FIFO
    /// never blocks this). Throws when the file cannot be opened, its boxes cannot be walked
    /// (`.corruptData`: a size that runs past the end of the file or cannot be added up), or the
    /// remux fails; the file is then left as it was.
    public static func finishIfAbandoned(path: String) throws(MediaError) -> Outcome {
        let file: RegularFile
        do { file = try RegularFile(path: path, followLinks: false) } catch {
            if case .io(_, .notRegularFile) = error { return .notFragmented }
            throw error
        }
        defer { withExtendedLifetime(file) {} }  // open (and locked) until done
        let fd = file.descriptor
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            if errno == EWOULDBLOCK { return .inUse }
            throw .io(path: path, failure: FileFailure(errno: errno))
        }
        var locked = stat(), named = stat()
        guard fstat(fd, &locked) == 0, lstat(path, &named) == 0,
              locked.st_ino == named.st_ino, locked.st_dev == named.st_dev else { return .notFragmented }
        guard try isFragmentedMP4(fd, path: path) else { return .notFragmented }
        try MovieRemuxer.makeRegularMP4(path)
        return .finished
    }

    /// Whether the file open at `fd` is an ISO media file (MP4/MOV) written in fragments with at
    /// least one fragment to keep: a top-level `moof`. (A `moov` announcing fragments with none
    /// after it holds no frame: nothing to finish.) Reads box headers only, through
    /// `UntrustedBytes`: a box whose size runs past the end of the file (other than a recorder's
    /// last `mdat` or `moof`, cut short by a crash) or cannot be added up throws `.corruptData`.
    static func isFragmentedMP4(_ fd: Int32, path: String) throws(MediaError) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
        let file = UntrustedBytes(descriptor: fd, size: Int(info.st_size), path: path, format: "MP4")
        // Not an ISO media file at all (no `ftyp` box first): nothing of a recorder's to finish.
        guard file.matches(Array("ftyp".utf8), at: 4) else { return false }
        var offset = 0
        // A bound on boxes looked at, so a damaged file cannot keep this busy.
        for _ in 0..<100_000 {
            // The end, or a few stray bytes after the last box (some writers pad): no more boxes.
            guard file.contains(offset, length: 8) else { return false }
            let box = try boxHeader(file, at: offset)
            if box.type == "moof" { return true }
            guard let end = box.end else { return false }  // the last box, running to the end of the file
            offset = end
        }
        return false
    }

    /// The box at `offset`: its four-character type and where it ends (nil for the last box of a
    /// crashed recording, an `mdat` or `moof` whose size reaches past the end of the file, or a
    /// size of 0, "to the end"). Throws when its header does not fit, its size is smaller than its
    /// header, or a box of another type runs past the end of the file.
    private static func boxHeader(_ file: UntrustedBytes, at offset: Int) throws(MediaError) -> (type: String, end: Int?) {
        let type = try file.fourCC(at: offset + 4)
        let declared = try file.u32(at: offset, .bigEndian)
        let size: UInt64, headerSize: UInt64
        switch declared {
        case 0: return (type, nil)
        case 1:
            size = try file.u64(at: offset + 8, .bigEndian)
            headerSize = 16
        default:
            size = UInt64(declared)
            headerSize = 8
        }
        guard size >= headerSize else {
            throw file.corrupt("the '\(type)' box at byte \(offset) declares \(size) bytes, less than its \(headerSize)-byte header")
        }
        guard let length = Int(exactly: size), file.contains(offset, length: length) else {
            if type == "mdat" || type == "moof" { return (type, nil) }
            throw file.corrupt("the '\(type)' box at byte \(offset) declares \(size) bytes, past the end of the \(file.count)-byte file")
        }
        return (type, try file.sum(offset, length))
    }
}
