import Glibc
import Media

/// Opening the driver for a camera, and the stream a preset picks on it.
extension CaptureSession {
    /// Opens the driver for `device`. A V4L2 camera that came back under another node number
    /// (replugged while its old node was still held) is found again by its unique ID. The controls
    /// come from the description, which read them already: opening does not enumerate them again.
    static func makeBackend(for device: CaptureDevice) throws(CaptureError) -> CameraBackend {
        switch device.source {
        case let .v4l2(path):
            if access(path, F_OK) != 0, let moved = DeviceScanner.scan(includeVirtual: false).first(where: { $0.uniqueID == device.uniqueID }),
               let movedPath = moved.path {
                return try V4L2Backend(path: movedPath, name: device.localizedName, controls: moved.v4l2Controls)
            }
            return try V4L2Backend(path: path, name: device.localizedName, controls: device.v4l2Controls)
        case let .pipewire(node, v4l2Path, _):
            return try PipeWireBackend(nodeName: node, name: device.localizedName, v4l2Path: v4l2Path, controls: device.v4l2Controls)
        case .virtual:
            return try VirtualCameraBackend(id: device.uniqueID, name: device.localizedName)
        }
    }

    /// The stream configuration `preset` picks on `device`.
    static func streamConfiguration(for device: CaptureDevice, preset: Preset) throws(CaptureError) -> StreamConfiguration {
        if preset == .inputPriority, let format = device.activeFormat {
            return StreamConfiguration(pixelFormat: format.pixelFormat, width: format.dimensions.width, height: format.dimensions.height,
                                       frameInterval: device.activeFrameInterval ?? format.frameIntervals.first ?? FrameInterval(framesPerSecond: 30))
        }
        let formats = device.formats
        guard !formats.isEmpty else {
            if let path = device.path, access(path, R_OK | W_OK) != 0 {
                throw .accessDenied(device: path, group: V4L2Errno.owningGroup(path: path))
            }
            throw .unsupported("\(device.localizedName) offers no format Pinhole can read")
        }
        let candidates: [CaptureDevice.Format]
        switch preset {
        case .photo, .inputPriority:
            let fast = formats.filter { $0.maxFrameRate >= 15 }
            let pool = fast.isEmpty ? formats : fast
            let largest = pool.map(\.dimensions).max()!
            candidates = pool.filter { $0.dimensions == largest }
        case .high, .medium, .low:
            let limit = preset == .high ? 1920 * 1080 : (preset == .medium ? 640 * 480 : 320 * 240)
            let fitting = formats.filter { $0.dimensions.area <= limit }
            let pool = fitting.isEmpty ? [formats.min { $0.dimensions < $1.dimensions }!] : fitting
            let largest = pool.map(\.dimensions).max()!
            candidates = pool.filter { $0.dimensions == largest }
        case .vga640x480, .hd1280x720, .hd1920x1080, .hd4K3840x2160:
            let size: CaptureDevice.Dimensions = switch preset {
            case .vga640x480: .init(width: 640, height: 480)
            case .hd1280x720: .init(width: 1280, height: 720)
            case .hd1920x1080: .init(width: 1920, height: 1080)
            default: .init(width: 3840, height: 2160)
            }
            candidates = formats.filter { $0.dimensions == size }
            guard !candidates.isEmpty else { throw .unsupported("preset \(preset.rawValue) (\(size)) on \(device.localizedName)") }
        }
        // The highest frame rate; among equals, raw formats (no decode) before MJPEG.
        let rank: (PixelFormat) -> Int = { format in
            switch format {
            case .nv12, .i420: 0
            case .yuyv, .uyvy: 1
            case .mjpeg: 3
            default: 2
            }
        }
        let best = candidates.min { a, b in
            a.maxFrameRate != b.maxFrameRate ? a.maxFrameRate > b.maxFrameRate : rank(a.pixelFormat) < rank(b.pixelFormat)
        }!
        return StreamConfiguration(pixelFormat: best.pixelFormat, width: best.dimensions.width, height: best.dimensions.height,
                                   frameInterval: best.frameIntervals.first ?? FrameInterval(framesPerSecond: 30))
    }
}
