import Media

/// Everything that can go wrong while finding, opening and streaming cameras and microphones.
/// Each case prints one line for people saying what happened (with what the system needs, such
/// as the group to join); what to do in a program is the program's to say: the CLI and the app
/// add their own words (no command-line flags here).
public enum CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No camera is connected (and the caller did not accept the virtual test camera).
    case noCamera
    /// No camera has this ID or path.
    case deviceNotFound(String)
    /// The system refuses access to the camera. `group` owns its device node ("root" when only
    /// root may open it; nil when the node could not be looked at): what a user would join.
    case accessDenied(device: String, group: String?)
    /// Policy forbids using the camera (for example a sandbox without the camera portal).
    case restricted(device: String, reason: String)
    /// The desktop's camera portal refused access to the cameras (the user said no, now or
    /// before: the answer is kept in the portal's permission store).
    case portalAccessDenied
    /// Another program is using the camera.
    case deviceBusy(device: String)
    /// The camera was unplugged (or its driver went away).
    case deviceDisconnected(device: String)
    /// The camera cannot do what was asked (format, size, frame rate, control value).
    case unsupported(String)
    /// A setting was changed without `lockForConfiguration()`: a programming error.
    case notLockedForConfiguration(device: String)
    /// Another task or thread held the camera's configuration lock for longer than a lock waits.
    case configurationLocked(device: String)
    /// The session's inputs and outputs do not fit together.
    case invalidConfiguration(String)
    /// Something that needs frames (a photo, a stream switch) was asked of a session that is not
    /// running: never started, stopped, or stopped by a runtime error meanwhile.
    case notRunning
    /// Streaming failed in the driver or the hardware.
    case streamFailed(device: String, reason: String)
    /// The camera sent nothing in time.
    case timeout(device: String, seconds: Double)
    /// Another system call failed.
    case system(operation: String, code: Int32, message: String)
    /// Image processing failed.
    case media(MediaError)
    /// A recording could not be started or went wrong; `cause` says why (and whether a file was kept).
    case recordingFailed(path: String, cause: RecordingFailure)
    /// A recording reached a limit set on its output and was finished (the file is complete).
    case recordingLimitReached(path: String, limit: String)
    /// No sound server answers (neither PulseAudio nor PipeWire's PulseAudio service).
    case noSoundServer
    /// The sound server took the connection but did not answer within `seconds`.
    case soundServerNotResponding(seconds: Double)
    /// The sound server offers no microphone (nothing, or only monitors of outputs).
    case noMicrophone
    /// No microphone has this name; `available` lists the names there are.
    case microphoneNotFound(name: String, available: [String])
    /// The sound server refused to let this process record from `microphone` (or to list them).
    case microphoneAccessDenied(microphone: String)
    /// Recording from the microphone failed (or the sound server went away while recording).
    case audioFailed(microphone: String, reason: String)

    /// A one-line explanation for people.
    public var description: String {
        switch self {
        case .noCamera:
            return "No camera found."
        case let .deviceNotFound(id):
            return "No camera '\(id)'."
        case let .accessDenied(device, group?) where group == "root":
            return "Camera access denied for \(device): only root may open it."
        case let .accessDenied(device, group?):
            return "Camera access denied for \(device): it is open to the group '\(group)' only."
        case let .accessDenied(device, nil):
            return "Camera access denied for \(device)."
        case let .restricted(device, reason):
            return "Using \(device) is not allowed here: \(reason)."
        case .portalAccessDenied:
            return "Camera access was refused through the desktop's camera portal."
        case let .deviceBusy(device):
            return "\(device) is in use by another program. Close the other camera app and try again."
        case let .deviceDisconnected(device):
            return "\(device) was disconnected. Plug the camera back in and try again."
        case let .unsupported(what):
            return "Not supported by this camera: \(what)."
        case let .notLockedForConfiguration(device):
            return "Programming error: \(device) was configured without lockForConfiguration()."
        case let .configurationLocked(device):
            return "The settings of \(device) are locked by another part of the program."
        case let .invalidConfiguration(what):
            return "Invalid capture configuration: \(what)."
        case .notRunning:
            return "The camera is not running."
        case let .streamFailed(device, reason):
            return "\(device) stopped streaming: \(reason). Unplug and replug the camera, then try again."
        case let .timeout(device, seconds):
            return "\(device) sent no picture for \(Int(seconds.rounded())) s. Check that the lens is not covered by a privacy switch, or replug the camera."
        case let .system(operation, code, message):
            return "\(operation) failed: \(message) (errno \(code))."
        case let .media(error):
            return error.description
        case let .recordingFailed(path, cause):
            return "Recording to \(path) failed: \(cause)."
        case let .recordingLimitReached(path, limit):
            return "The recording stopped at its \(limit); \(path) is complete."
        case .noSoundServer:
            return "No sound server is running (PulseAudio or PipeWire); recording without sound."
        case let .soundServerNotResponding(seconds):
            return "The sound server did not answer within \(CaptureError.seconds(seconds)) s; recording without sound."
        case .noMicrophone:
            return "No microphone found; recording without sound. Connect a microphone, or check that it is not disabled in the sound settings."
        case let .microphoneNotFound(name, available) where available.isEmpty:
            return "No microphone '\(name)'. Connect it, or leave the choice empty for the default microphone."
        case let .microphoneNotFound(name, available):
            return "No microphone '\(name)' (there are \(available.joined(separator: ", "))). Choose one of those, or leave the choice empty for the default microphone."
        case let .microphoneAccessDenied(microphone):
            return "The sound server refused access to \(microphone). Allow Pinhole to use the microphone in the privacy settings and try again."
        case let .audioFailed(microphone, reason):
            return "Recording sound from \(microphone) failed: \(reason)."
        }
    }

    /// "2", or "0.5": a duration in seconds without a useless ".0".
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String((value * 10).rounded() / 10)
    }
}
