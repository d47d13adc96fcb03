import Foundation
import Glibc
import Media

/// The freedesktop.org Trash (`$XDG_DATA_HOME/Trash`, `files/` + `info/NAME.trashinfo`), so
/// deleted photos can be restored from the library, a file manager or `gio trash --restore`.
public struct Trash: Sendable {
    /// The trash folder (…/Trash).
    public let folder: String

    /// The user's home trash.
    public static var home: Trash {
        let home = LibraryLocation.environment("HOME") ?? "/root"
        let dataHome = LibraryLocation.environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return Trash(folder: dataHome + "/Trash")
    }

    /// Moves `path` into the trash; returns the name it has there. The info file is written
    /// first (reserving the name with O_EXCL), then the file moved, as the spec asks.
    func trash(_ path: String) throws(LibraryError) -> String {
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
            fd = open(folder + "/info/" + name + ".trashinfo", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 { break }
            guard errno == EEXIST, number < 10_000 else { throw .cannotTrash(path: path, failure: FileFailure(errno: errno)) }
            let ext = (base as NSString).pathExtension
            let stem = (base as NSString).deletingPathExtension
            name = ext.isEmpty ? "\(stem).\(number)" : "\(stem).\(number).\(ext)"
            number += 1
        }
        let info = "[Trash Info]\nPath=\(Trash.percentEncode(path))\nDeletionDate=\(Trash.timestamp())\n"
        _ = info.withCString { write(fd, $0, strlen($0)) }
        fsync(fd)
        close(fd)
        guard rename(path, folder + "/files/" + name) == 0 else {
            let failure = FileFailure(errno: errno)
            unlink(folder + "/info/" + name + ".trashinfo")
            throw .cannotTrash(path: path, failure: failure)
        }
        return name
    }

    /// Moves the trashed `name` back to its original path (or beside it with a suffix when that
    /// name is taken again); returns where it went.
    func restore(_ name: String) throws(LibraryError) -> String {
        let infoPath = folder + "/info/" + name + ".trashinfo"
        guard let bytes = try? FileBytes.read(path: infoPath, limit: 1 << 16) else { throw .notFound(name) }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Path=") }),
              let original = String(line.dropFirst(5)).removingPercentEncoding else { throw .damagedTrashEntry(path: infoPath) }
        var target = original
        var number = 2
        while access(target, F_OK) == 0 {
            let ext = (original as NSString).pathExtension
            let stem = (original as NSString).deletingPathExtension
            target = ext.isEmpty ? "\(stem) (\(number))" : "\(stem) (\(number)).\(ext)"
            number += 1
        }
        guard rename(folder + "/files/" + name, target) == 0 else {
            throw .cannotWrite(path: target, failure: FileFailure(errno: errno))
        }
        unlink(infoPath)
        return target
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
}
