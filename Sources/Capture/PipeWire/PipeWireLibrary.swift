import CPipeWire
import Glibc
import Media

/// libpipewire, opened the first time Capture looks for PipeWire cameras (and only when a PipeWire
/// daemon's socket is there to talk to): mapped at start, it would be relocated by every process,
/// a photo from a V4L2 node or `--version` included.
enum PipeWireLibrary {
    /// The library's description, or why it could not be opened (tried once, on first use).
    static let library = LoadedLibrary<pinhole_pw_library, CaptureError>("libpipewire", load: pinhole_pw_load) {
        .system(operation: "loading libpipewire", code: ELIBACC, message: $0)
    }

    /// Opens libpipewire if it is not open yet; throws when it cannot be. Every entry point of the
    /// PipeWire code calls this before anything calls the shim.
    static func require() throws(CaptureError) { try library.require() }
}

/// The one place where PipeWire's negative errno values become `CaptureError`s.
enum PipeWireErrno {
    /// Maps `code` (a negative errno from the shim) with PipeWire's `message` after `operation` on `camera`.
    static func error(_ operation: String, camera: String, code: Int32, message: String) -> CaptureError {
        switch -code {
        case EACCES, EPERM:
            return .restricted(device: camera, reason: "PipeWire refused access (\(message))")
        case EBUSY:
            return .deviceBusy(device: camera)
        case ENODEV, ENXIO, ENOENT:
            return .deviceDisconnected(device: camera)
        case EINVAL:
            return .unsupported("\(operation) on \(camera): \(message)")
        case ETIMEDOUT:
            return .timeout(device: camera, seconds: PipeWireCameras.streamTimeout)
        case EIO, EPIPE:
            return .streamFailed(device: camera, reason: "PipeWire: \(message)")
        default:
            return .system(operation: "\(operation) on \(camera)", code: -code, message: message)
        }
    }
}
