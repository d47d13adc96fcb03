import Media

/// Why a recording could not start or did not finish: the cause kept as a case, so callers decide
/// from it (a CLI's exit code, an app's message), not from words.
public enum RecordingFailure: Sendable, Equatable, CustomStringConvertible {
    /// The movie file could not be created or written (a full disk, a folder the user may not
    /// write, a file of that name, …). `kept`: a file exists and holds the recording up to its
    /// last complete fragment (about a second); false when no file was made.
    case file(FileFailure, kept: Bool)
    /// Encoding failed (an encoder missing from FFmpeg, or failing).
    case encoding(MediaError)
    /// This output is already recording.
    case alreadyRecording
    /// No frame arrived from the camera (within `seconds` when the start waited for one): the
    /// session is not running, or the camera sends nothing.
    case noFrame(seconds: Double?)
    /// The recording was stopped before its first frame.
    case endedBeforeStart
    /// The camera sent frames but the encoder took none of them within `seconds`: the machine is
    /// too slow or too busy to start encoding at this size.
    case encoderStalled(seconds: Double)

    /// What happened, in a few words.
    public var description: String {
        switch self {
        case let .file(failure, kept): kept ? "\(failure); the recording was kept up to its last complete second" : "\(failure)"
        case let .encoding(error): error.description
        case .alreadyRecording: "this output is already recording"
        case let .noFrame(seconds?): "no frame arrived within \(Int(seconds.rounded())) s"
        case .noFrame(nil): "no frame arrived from the camera"
        case .endedBeforeStart: "the recording ended before it began"
        case let .encoderStalled(seconds): "the camera sent frames but the encoder took none within \(Int(seconds.rounded())) s"
        }
    }
}
