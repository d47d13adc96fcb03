import Capture

/// What fills the camera window: the live preview, or a full-window status page.
public enum CameraScreen: Equatable, Sendable {
    /// Opening the camera.
    case starting
    /// The live preview (possibly dimmed while the camera is unplugged: see `CameraModel.isDisconnected`).
    case preview
    /// No usable camera is connected.
    case noCamera
    /// The camera exists but this user may not open it, or the camera portal refused; `advice`
    /// names the group and the command, or where to allow camera access.
    case accessDenied(advice: String)
    /// Another program holds the camera (named when it could be found).
    case busy(program: String?)
    /// The camera failed; `reason` is one line.
    case failed(reason: String)
    /// The camera was let go while the window is hidden or the camera page is not shown.
    case released

    /// Whether this is the "Camera Access Denied" page.
    var isAccessDenied: Bool { if case .accessDenied = self { true } else { false } }
}

/// What a full-window status page says (`CameraWords.page(for:)`): the window shows these words.
public struct StatusPageWords: Equatable, Sendable {
    /// The symbolic icon's name.
    public var icon: String
    /// The title, in the user's language.
    public var title: String
    /// The words under the title: what happened and what to do.
    public var body: String
    /// The page's buttons, in order.
    public var buttons: [StatusPageButton]

    /// A page with `icon`, `title`, `body` and `buttons`.
    public init(icon: String, title: String, body: String = "", buttons: [StatusPageButton] = []) {
        self.icon = icon
        self.title = title
        self.body = body
        self.buttons = buttons
    }
}

/// A button of a status page: what it does (the window runs the matching action).
public enum StatusPageButton: Sendable, Equatable {
    /// "Use Test Camera": offers the test cameras and starts one (`CameraModel.useTestCameras`).
    case useTestCamera
    /// "Retry": tries the camera again (`CameraModel.retry`).
    case retry

    /// The button's label, in the user's language.
    public var label: String {
        switch self {
        case .useTestCamera: L("Use Test Camera")
        case .retry: L("Retry")
        }
    }
}

/// Photo or video.
public enum CaptureMode: String, Sendable, CaseIterable {
    /// The shutter takes photos.
    case photo
    /// The shutter starts and stops recordings.
    case video
}

/// The flash setting of the camera page.
public enum FlashSetting: String, Sendable, CaseIterable {
    /// Never.
    case off
    /// Always: the LED when the camera has one, else the screen.
    case on
    /// When the scene is dark.
    case auto

    /// The capture library's flash mode.
    public var mode: PhotoSettings.FlashMode {
        switch self {
        case .off: .off
        case .on: .on
        case .auto: .auto
        }
    }
}

/// The live filters (Media's `ImageFilter`), shown in the preview and applied to saved photos.
public enum LiveFilter: String, Sendable, CaseIterable {
    /// No filter.
    case none
    /// Grey.
    case mono
    /// High-contrast grey.
    case noir
    /// Brown tones.
    case sepia
    /// Negative.
    case invert
}
