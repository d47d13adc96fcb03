import Capture
import Media

/// The camera's own controls (focus, exposure, white balance, brightness, contrast, zoom) and the
/// sizes people choose (photo size; video size and frame rate), as the camera offers them.
extension CameraModel {
    /// The controls the popover offers, in this order, when the camera has them.
    public static let offeredControls: [ControlID] = [.continuousAutoFocus, .focusPosition, .exposureMode, .exposureTime,
                                                      .autoWhiteBalance, .whiteBalanceTemperature, .brightness, .contrast, .zoom]

    /// The offered controls this camera has (writable ones only).
    public var availableControls: [DeviceControl] {
        guard let camera else { return [] }
        return Self.offeredControls.compactMap { id in camera.control(id).flatMap { $0.isReadOnly ? nil : $0 } }
    }

    /// Reads the controls' values (on the capture service) into `controlValues`.
    func refreshControlValues() async {
        guard let camera else { return }
        controlValues = await capture.values(of: availableControls.map(\.id), on: camera)
    }

    /// Sets a control (on the capture service); a value the camera refuses is said in a toast and
    /// the shown value goes back to what the camera has.
    public func setControl(_ id: ControlID, to value: Int64) {
        guard let camera else { return }
        controlValues[id] = value
        Task {
            if let failure = await capture.setControl(id, to: value, on: camera) {
                toast(CameraWords.translate("The camera refused the setting: %@", CameraWords.reason(failure)))
                await refreshControlValues()
            }
        }
    }

    /// Whether a control applies now (manual focus only without autofocus, and so on).
    public func isControlActive(_ id: ControlID) -> Bool {
        switch id {
        case .focusPosition: controlValues[.continuousAutoFocus].map { $0 == 0 } ?? true
        case .exposureTime: controlValues[.exposureMode].map { $0 == 1 } ?? true
        case .whiteBalanceTemperature: controlValues[.autoWhiteBalance].map { $0 == 0 } ?? true
        default: true
        }
    }

    // MARK: Sizes

    /// The photo sizes the camera takes, largest first.
    public var photoSizes: [CaptureDevice.Dimensions] {
        guard let camera else { return [] }
        return Array(Set(camera.formats.map(\.dimensions))).sorted(by: >)
    }

    /// The chosen photo size (nil: the largest).
    public var photoSize: CaptureDevice.Dimensions? { Self.dimensions(preferences.string(PreferenceKey.photoSize)) }

    /// Chooses the photo size (nil: the largest), remembered.
    public func setPhotoSize(_ size: CaptureDevice.Dimensions?) {
        preferences.setString(PreferenceKey.photoSize, size.map { "\($0.width)x\($0.height)" } ?? "")
    }

    /// The video modes the camera streams (size and frame rate), largest and fastest first; at
    /// most one per size and rate.
    public var videoModes: [VideoMode] {
        guard let camera else { return [] }
        var seen = Set<VideoMode>()
        var modes: [VideoMode] = []
        for format in camera.formats where format.pixelFormat != .grey {
            for interval in format.frameIntervals {
                let mode = VideoMode(size: format.dimensions, framesPerSecond: Int(interval.framesPerSecond.rounded()))
                if mode.framesPerSecond > 0, seen.insert(mode).inserted { modes.append(mode) }
            }
        }
        return modes.sorted { ($0.size, $0.framesPerSecond) > ($1.size, $1.framesPerSecond) }
    }

    /// The chosen video mode (nil: the default, the largest up to 1080p at 24 fps or more).
    public var videoMode: VideoMode? { VideoMode(preferences.string(PreferenceKey.videoSize)) }

    /// Chooses the video size and rate (nil: the default), remembered; the stream (and so the
    /// preview) changes to it at once.
    public func setVideoMode(_ mode: VideoMode?) {
        guard !isRecording else { return }
        preferences.setString(PreferenceKey.videoSize, mode?.description ?? "")
        Task { await applyVideoMode() }
    }

    /// The camera's format and frame interval for a video mode (nil when it has none).
    nonisolated static func streamFormat(_ mode: VideoMode, on camera: CaptureDevice) -> (CaptureDevice.Format, FrameInterval)? {
        camera.formats.filter { $0.dimensions == mode.size && $0.pixelFormat != .grey }
            .compactMap { format in format.frameIntervals.first { Int($0.framesPerSecond.rounded()) == mode.framesPerSecond }.map { (format, $0) } }
            .first
    }

    /// Within a configuration of `session`: the chosen video mode when `camera` streams it (its
    /// format made active, the preset following the input), else the default preset.
    nonisolated static func chooseStream(_ mode: VideoMode?, on camera: CaptureDevice, in session: CaptureSession) throws(CaptureError) {
        guard let mode, let (format, interval) = streamFormat(mode, on: camera) else {
            session.sessionPreset = .high
            return
        }
        try camera.lockForConfiguration()
        defer { camera.unlockForConfiguration() }
        try camera.setActiveFormat(format, frameInterval: interval)
        session.sessionPreset = .inputPriority
    }

    /// Makes the session stream the chosen video mode (or the default preset).
    func applyVideoMode() async {
        guard let camera else { return }
        if let failure = await capture.setVideoMode(videoMode, on: camera) { toast(CameraWords.translate("The video size could not be set: %@", CameraWords.reason(failure))) }
        prepareRecording()
    }
}

/// A video size and frame rate ("1280x720@30").
public struct VideoMode: Hashable, Sendable, CustomStringConvertible {
    /// Frame size.
    public var size: CaptureDevice.Dimensions
    /// Frames per second.
    public var framesPerSecond: Int

    /// A mode.
    public init(size: CaptureDevice.Dimensions, framesPerSecond: Int) {
        self.size = size
        self.framesPerSecond = framesPerSecond
    }

    /// Parses "WxH@FPS" (nil for anything else, the empty string included).
    public init?(_ text: String) {
        let parts = text.split(separator: "@")
        guard parts.count == 2, let size = CameraModel.dimensions(String(parts[0])), let rate = Int(parts[1]), rate > 0 else { return nil }
        self.init(size: size, framesPerSecond: rate)
    }

    public var description: String { "\(size.width)x\(size.height)@\(framesPerSecond)" }
}
