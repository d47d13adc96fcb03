import Foundation
import Capture
import PhotoLibrary

/// Turns the libraries' typed errors into what the app says: one line a person can act on, in
/// the app's words (the libraries keep the cause; the CLI has words of its own).
public enum CameraWords {
    /// The page for a camera that could not be started.
    public static func screen(for error: CaptureError, device: CaptureDevice?) -> CameraScreen {
        switch error {
        case .noCamera, .deviceNotFound: return .noCamera
        case let .accessDenied(_, hint): return .accessDenied(advice: hint)
        case let .restricted(_, reason): return .accessDenied(advice: reason)
        case .deviceBusy: return .busy(program: device.flatMap { BusyCamera.holder(of: $0) })
        case .deviceDisconnected: return .noCamera
        default: return .failed(reason: reason(error))
        }
    }

    /// One line for a camera, recording or sound failure.
    public static func reason(_ error: CaptureError) -> String {
        switch error {
        case let .streamFailed(device, reason): return translate("%@ stopped sending pictures (%@).", device, reason)
        case let .timeout(device, seconds): return translate("%@ sent no picture for %@ seconds.", device, String(Int(seconds)))
        case let .recordingFailed(_, reason): return translate("The video could not be written: %@.", reason)
        default: return "\(error)"
        }
    }

    /// One line for a library failure (saving, or opening the library).
    public static func reason(_ error: LibraryError) -> String { "\(error)" }

    /// The translation of `format` with its %@ placeholders filled in order.
    public static func translate(_ format: String, _ arguments: String...) -> String {
        var result = Localization.text(format)
        for argument in arguments {
            guard let range = result.range(of: "%@") else { break }
            result.replaceSubrange(range, with: argument)
        }
        return result
    }
}
