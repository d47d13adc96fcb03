import Glibc

/// The one place where V4L2 errno values become `CaptureError`s.
enum V4L2Errno {
    /// Maps the current `errno` after `operation` on the device at `path` failed.
    static func error(_ operation: String, path: String, code: Int32 = errno) -> CaptureError {
        switch code {
        case EACCES, EPERM:
            return .accessDenied(device: path, group: owningGroup(path: path))
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

    /// The group that owns the node at `path` (what a user refused access would join): "root"
    /// for gid 0 or a group without a name, nil when the node cannot be looked at.
    static func owningGroup(path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard info.st_gid != 0, let group = getgrgid(info.st_gid), let name = group.pointee.gr_name else { return "root" }
        return String(cString: name)
    }
}
