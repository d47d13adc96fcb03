import Foundation
import Glibc
import Media

/// A freedesktop.org Trash (`files/` + `info/NAME.trashinfo`): the home trash
/// (`$XDG_DATA_HOME/Trash`), or a volume's (`$topdir/.Trash/$uid` or `$topdir/.Trash-$uid`, see
/// `Trash+Volumes`), so deleted photos can be restored from the library, a file manager or
/// `gio trash --restore`.
public struct Trash: Sendable {
    /// The trash folder (…/Trash).
    public let folder: String
    /// The top folder of the volume whose trash this is (nil: the home trash). Its `.trashinfo`
    /// files say paths relative to it, as the spec asks of a volume's trash.
    let topdir: String?
    /// Tests: the errno writing a `.trashinfo` fails with (a full disk cannot be arranged).
    var simulatedInfoWriteError: Int32?

    /// A trash at `folder` (…/Trash), for the volume at `topdir` (nil: the home trash).
    init(folder: String, topdir: String? = nil) {
        self.folder = folder
        self.topdir = topdir
    }

    /// The user's home trash.
    public static var home: Trash {
        let home = LibraryLocation.environment("HOME") ?? "/root"
        let dataHome = LibraryLocation.environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return Trash(folder: dataHome + "/Trash")
    }

    /// What a `.trashinfo` file says: where the file was, and when it was trashed.
    struct Entry: Equatable {
        /// The original absolute path.
        let originalPath: String
        /// When it was trashed, in seconds since 1970 (the spec's local time, to the second).
        let deletionDate: Double
    }

    /// The trashed file `name` (in `files/`).
    func filePath(_ name: String) -> String { folder + "/files/" + name }

    /// The info file of the trashed `name`.
    func infoPath(_ name: String) -> String { folder + "/info/" + name + ".trashinfo" }

    /// Moves `path` into the trash; returns the name it has there and the identity of the file
    /// moved (which says later that what is at `files/NAME` is still that file). The info file is
    /// written first (reserving the name with O_EXCL) and synced, then the file moved, as the spec
    /// asks; an info file that cannot be written whole is removed and the failure thrown.
    func trash(_ path: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> (name: String, file: FileIdentity?) {
        do {
            try AtomicFile.makeFolders(folder + "/files")
            try AtomicFile.makeFolders(folder + "/info")
        } catch {
            throw LibraryError.from(error)
        }
        let base = (path as NSString).lastPathComponent
        var name = base
        var number = 2
        var fd: Int32 = -1
        while true {
            fd = open(infoPath(name), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { break }
            guard errno == EEXIST, number < 10_000 else { throw .cannotTrash(path: path, failure: FileFailure(errno: errno)) }
            let ext = (base as NSString).pathExtension
            let stem = (base as NSString).deletingPathExtension
            name = ext.isEmpty ? "\(stem).\(number)" : "\(stem).\(number).\(ext)"
            number += 1
        }
        let said = relative(path)
        let info = Array("[Trash Info]\nPath=\(Trash.percentEncode(said))\nDeletionDate=\(Trash.timestamp())\n".utf8)
        var failure = simulatedInfoWriteError
        var written = 0
        while failure == nil, written < info.count {
            let put = info.withUnsafeBytes { write(fd, $0.baseAddress! + written, info.count - written) }
            if put < 0, errno == EINTR { continue }
            if put <= 0 { failure = put < 0 ? errno : EIO } else { written += put }
        }
        if failure == nil, fsync(fd) != 0 { failure = errno }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = errno }
        if let failure {
            unlink(infoPath(name))
            throw .cannotTrash(path: path, failure: FileFailure(errno: failure))
        }
        guard rename(path, filePath(name)) == 0 else {
            let failure = FileFailure(errno: errno)
            unlink(infoPath(name))
            throw .cannotTrash(path: path, failure: failure)
        }
        return (name, FileIdentity(path: filePath(name)))
    }

    /// Reads the info file of the trashed `name` (`Trash.entry(info:topdir:)`).
    func entry(_ name: String) throws(LibraryError) -> Entry {
        let path = infoPath(name)
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path: path, limit: 1 << 16) } catch { throw LibraryError.reading(path, error) }
        guard let entry = Trash.entry(info: bytes, topdir: topdir) else { throw .damagedTrashEntry(path: path) }
        return entry
    }

    /// An info file's entry as the spec defines it: a `[Trash Info]` group with `Path`
    /// (percent-encoded; absolute, or in a volume's trash with top folder `topdir`, relative to
    /// it, never climbing out with `..`) and `DeletionDate` (YYYY-MM-DDThh:mm:ss, local time);
    /// nil when it names no usable path.
    static func entry(info bytes: [UInt8], topdir: String?) -> Entry? {
        var group = "", original: String?, date: Double?
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
            if line.hasPrefix("[") { group = String(line); continue }
            guard group == "[Trash Info]", let equals = line.firstIndex(of: "=") else { continue }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "Path": original = value.removingPercentEncoding
            case "DeletionDate": date = Trash.date(value)
            default: break
            }
        }
        guard let said = original, !said.isEmpty, said.hasPrefix("/") || topdir != nil && !said.split(separator: "/").contains("..") else {
            return nil
        }
        let base = topdir == "/" ? "" : topdir ?? ""
        return Entry(originalPath: said.hasPrefix("/") ? said : base + "/" + said, deletionDate: date ?? 0)
    }

    /// Puts the trashed `name` back at `original`, or beside it with a suffix when that name is
    /// taken again (linked: nothing is ever replaced); returns where it went. The info file
    /// stays until `forget(_:)`, so a failure after this can put the file back.
    func putBack(_ name: String, to original: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> String {
        do throws(MediaError) {
            let path = try AtomicFile.place(filePath(name), at: original)
            unlink(filePath(name))
            return path
        } catch {
            if case let .io(path, failure) = error { throw .cannotWrite(path: path, failure: failure) }
            throw LibraryError.from(error)
        }
    }

    /// Undoes `putBack`: the file at `path` goes back to `files/NAME`.
    func takeBack(_ path: String, as name: String, _ held: borrowing LibraryLock.Held) {
        if link(path, filePath(name)) == 0 { unlink(path) }
    }

    /// Removes the info file of a restored entry.
    func forget(_ name: String, _ held: borrowing LibraryLock.Held) {
        unlink(infoPath(name))
    }

    /// Moves the trashed `name` back to its original path (or beside it); returns where it went.
    func restore(_ name: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> String {
        let path = try putBack(name, to: try entry(name).originalPath, held)
        forget(name, held)
        return path
    }

    /// Deletes the trashed `name` for good: the file, then its info file (the reverse of
    /// trashing, so a crash never leaves a file without its info). A file already gone is fine.
    /// The caller has checked (`holds`) that the file is the one the library put there.
    func erase(_ name: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        if unlink(filePath(name)) != 0, errno != ENOENT {
            throw .cannotWrite(path: filePath(name), failure: FileFailure(errno: errno))
        }
        if unlink(infoPath(name)) != 0, errno != ENOENT {
            throw .cannotWrite(path: infoPath(name), failure: FileFailure(errno: errno))
        }
    }

    /// Whether the trashed `name` is still the file the library put there, with its info file:
    /// the same device, inode, size and modification time as when trashed (a rename keeps all
    /// four; an inode number freed and reused by a new file does not bring back the time), or
    /// (an entry trashed before they were kept) the same content. Not when another program
    /// emptied or restored it, nor when another file took its name since.
    func holds(_ name: String, trashed: FileIdentity?, fingerprint: String?) -> Bool {
        guard let file = FileIdentity(path: filePath(name)), access(infoPath(name), F_OK) == 0 else { return false }
        if let trashed { return file == trashed }
        guard let fingerprint else { return false }
        return (try? ContentHash.identifier(ofFile: filePath(name))) == fingerprint
    }

    /// Percent-encodes a path as the spec wants (RFC 2396 escaping, "/" kept).
    static func percentEncode(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "%;?#[]")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }

    /// Local time as YYYY-MM-DDThh:mm:ss.
    static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d", local.tm_year + 1900, local.tm_mon + 1, local.tm_mday,
                      local.tm_hour, local.tm_min, local.tm_sec)
    }

    /// Seconds since 1970 of a YYYY-MM-DDThh:mm:ss local time, or nil.
    static func date(_ text: String) -> Double? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap { Int32($0) }
        guard parts.count == 6 else { return nil }
        var local = tm()
        (local.tm_year, local.tm_mon, local.tm_mday) = (parts[0] - 1900, parts[1] - 1, parts[2])
        (local.tm_hour, local.tm_min, local.tm_sec) = (parts[3], parts[4], parts[5])
        local.tm_isdst = -1
        let seconds = mktime(&local)
        return seconds == -1 ? nil : Double(seconds)
    }
}
