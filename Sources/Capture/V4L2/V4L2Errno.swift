import Glibc

/// The one place where V4L2 errno values become `CaptureError`s.
enum V4L2Errno {
    /// Maps the current `errno` after `operation` on the device at `path` failed.
    static func error(_ operation: String, path: String, code: Int32 = errno) -> CaptureError {
        switch code {
        case EACCES, EPERM:
            return .accessDenied(device: path, hint: accessHint(path: path))
        case EBUSY:
            return .deviceBusy(device: path)
        case ENODEV, ENXIO:
            return .deviceDisconnected(device: path)
        case ENOENT:
            return .deviceNotFound(path)
        case EINVAL, ENOTTY:
            return .unsupported("\(operation) on \(path)")
        case EIO, EPIPE:
            return .streamFailed(device: path, reason: "\(operation): input/output error")
        default:
            return .system(operation: "\(operation) on \(path)", code: code, message: String(cString: strerror(code)))
        }
    }

    /// What to do about EACCES on `path`: join the group that owns the node.
    static func accessHint(path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "Check the permissions of the device node." }
        guard info.st_gid != 0, let group = getgrgid(info.st_gid), let name = group.pointee.gr_name else {
            return "Only root can open it; ask your administrator to install udev rules that give the 'video' group access."
        }
        return accessHint(group: String(cString: name))
    }

    /// What to do about a node owned by `group`: join it.
    static func accessHint(group: String) -> String {
        "It belongs to the group '\(group)': join it with `sudo usermod -aG \(group) $USER`, then log out and back in."
    }
}
