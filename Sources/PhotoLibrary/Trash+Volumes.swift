import Foundation
import Glibc
import Media

/// Which trash a file goes to: the home trash when the file is on its file system, otherwise
/// the trash of the file's own volume, as the freedesktop.org Trash spec says (a file is never
/// copied across file systems to be trashed: `rename` cannot, and a copy is not a move).
extension Trash {
    /// The trash for the file at `path`: `home` when both are on one file system; else, on the
    /// file's volume (its top folder, `$topdir`), `$topdir/.Trash/$uid` when an administrator made
    /// `$topdir/.Trash` (a folder, not a symbolic link, with the sticky bit), or else
    /// `$topdir/.Trash-$uid`; either is made when missing (mode 0700) and must be a folder of this
    /// user's, not a link.
    static func forFile(at path: String, home: Trash) throws(LibraryError) -> Trash {
        var file = stat()
        guard lstat(path, &file) == 0 else { throw .cannotTrash(path: path, failure: FileFailure(errno: errno)) }
        if nearestDevice(of: home.folder) == file.st_dev { return home }
        let topdir = topFolder(of: path, device: file.st_dev)
        let base = topdir == "/" ? "" : topdir
        var chosen: Trash?
        var shared = stat()
        if lstat(base + "/.Trash", &shared) == 0, shared.st_mode & S_IFMT == S_IFDIR, shared.st_mode & mode_t(S_ISVTX) != 0,
           (try? privateFolder(base + "/.Trash/\(getuid())", for: path)) != nil {
            chosen = Trash(folder: base + "/.Trash/\(getuid())", topdir: topdir)
        }
        if chosen == nil {
            try privateFolder(base + "/.Trash-\(getuid())", for: path)
            chosen = Trash(folder: base + "/.Trash-\(getuid())", topdir: topdir)
        }
        guard var trash = chosen else { throw .cannotTrash(path: path, failure: .notFound) }
        trash.simulatedInfoWriteError = home.simulatedInfoWriteError
        return trash
    }

    /// The trash at `folder` as `forFile(at:home:)` chose it (nil: `home`), its top folder found
    /// again from its place (`$topdir/.Trash/$uid` or `$topdir/.Trash-$uid`).
    static func at(_ folder: String?, home: Trash) -> Trash {
        guard let folder, folder != home.folder else { return home }
        let parent = (folder as NSString).deletingLastPathComponent
        let topdir = (parent as NSString).lastPathComponent == ".Trash" ? (parent as NSString).deletingLastPathComponent : parent
        return Trash(folder: folder, topdir: topdir.isEmpty ? "/" : topdir)
    }

    /// `path` as a volume's `.trashinfo` says it: relative to the top folder.
    func relative(_ path: String) -> String {
        guard let topdir else { return path }
        return String(path.dropFirst(topdir == "/" ? 1 : topdir.count + 1))
    }

    /// Makes `folder` (0700) when missing, and checks that it is a folder of this user's and
    /// not a symbolic link (another user's or a link could send the file anywhere).
    private static func privateFolder(_ folder: String, for path: String) throws(LibraryError) {
        if mkdir(folder, 0o700) != 0, errno != EEXIST { throw .cannotTrash(path: path, failure: FileFailure(errno: errno)) }
        var info = stat()
        guard lstat(folder, &info) == 0 else { throw .cannotTrash(path: path, failure: FileFailure(errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else { throw .cannotTrash(path: path, failure: .permissionDenied) }
    }

    /// The device of `folder`, or of its nearest folder that exists (the home trash may not yet).
    private static func nearestDevice(of folder: String) -> dev_t? {
        var current = folder
        var info = stat()
        while stat(current, &info) != 0 {
            guard current != "/", !current.isEmpty else { return nil }
            current = (current as NSString).deletingLastPathComponent
        }
        return info.st_dev
    }

    /// The top folder of the file system holding `path` (on `device`): its highest folder on it.
    private static func topFolder(of path: String, device: dev_t) -> String {
        var current = (path as NSString).deletingLastPathComponent
        var info = stat()
        while current != "/" {
            let parent = (current as NSString).deletingLastPathComponent
            guard stat(parent, &info) == 0, info.st_dev == device else { break }
            current = parent
        }
        return current
    }
}
