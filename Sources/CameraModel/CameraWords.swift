import Foundation
import Capture
import Media
import PhotoLibrary

/// Turns the libraries' typed errors into what the app says: one line a person can act on, in
/// the app's words (the libraries keep the cause; the CLI has words of its own).
public enum CameraWords {
    /// The page for a camera that could not be started; `busyHolder` names the program that has
    /// a busy camera open (found by the caller off the main thread: `BusyCamera` reads /proc).
    public static func screen(for error: CaptureError, busyHolder: String? = nil) -> CameraScreen {
        switch error {
        case .noCamera, .deviceNotFound: return .noCamera
        case let .accessDenied(_, group): return .accessDenied(advice: accessAdvice(group: group))
        case let .restricted(_, reason): return .accessDenied(advice: reason)
        // Translators: on the "Camera Access Denied" page, after "You may not use the camera.", when the desktop's camera portal refused.
        case .portalAccessDenied: return .accessDenied(advice: L("Allow Camera access in Settings → Privacy, then press Retry."))
        case .deviceBusy: return .busy(program: busyHolder)
        case .deviceDisconnected: return .noCamera
        default: return .failed(reason: reason(error))
        }
    }

    /// What the status page for `screen` says (the window shows it for every screen but the preview).
    public static func page(for screen: CameraScreen) -> StatusPageWords {
        switch screen {
        case .starting:
            return StatusPageWords(icon: "camera-photo-symbolic", title: L("Starting the Camera…"))
        case .noCamera:
            return StatusPageWords(icon: "camera-disabled-symbolic", title: L("No Camera Found"),
                                   body: L("Connect a camera, or check that it is switched on and not covered by a privacy switch. Pinhole starts it as soon as it appears."),
                                   buttons: [.useTestCamera])
        case let .accessDenied(advice):
            return StatusPageWords(icon: "action-unavailable-symbolic", title: L("Camera Access Denied"),
                                   body: translate("You may not use the camera. %@", advice), buttons: [.retry])
        case let .busy(program):
            return StatusPageWords(icon: "camera-disabled-symbolic", title: L("The Camera Is in Use by Another App"),
                                   body: program.map { translate("It is used by “%@”. Close it, or stop its camera; Pinhole tries again by itself.", $0) }
                                       ?? L("Close the other app, or stop its camera; Pinhole tries again by itself."),
                                   buttons: [.retry])
        case let .failed(reason):
            return StatusPageWords(icon: "dialog-warning-symbolic", title: L("The Camera Stopped Working"), body: reason, buttons: [.retry])
        case .released:
            return StatusPageWords(icon: "camera-photo-symbolic", title: L("Camera Paused"), body: L("The camera is off while Pinhole is in the background."))
        case .preview:
            return StatusPageWords(icon: "camera-disabled-symbolic", title: "")
        }
    }

    /// The words over the dimmed preview while the camera in use is unplugged (`CameraModel.isDisconnected`).
    public static var disconnected: String { L("Camera disconnected — plug it back in") }

    /// What to do when the camera's device node is closed to the user: join the group that owns it.
    static func accessAdvice(group: String?) -> String {
        switch group {
        case "root"?: translate("Only root can open it; ask your administrator to install udev rules that give the 'video' group access.")
        case let group?: translate("It belongs to the group '%@': join it with `sudo usermod -aG %@ $USER`, then log out and back in.", group, group)
        case nil: translate("Check the permissions of the device node.")
        }
    }

    /// One line for a camera, recording or sound failure.
    public static func reason(_ error: CaptureError) -> String {
        switch error {
        case let .streamFailed(device, reason): return translate("%@ stopped sending pictures (%@).", device, reason)
        case let .timeout(device, seconds): return translate("%@ sent no picture for %@ seconds.", device, String(Int(seconds)))
        // Translators: after "The photo could not be taken:", when the camera had stopped (a camera error, most often) before the photo could be taken.
        case .notRunning: return L("the camera had stopped. Take it again once the preview is back.")
        case let .recordingFailed(_, .file(failure, kept: true)):
            return translate("The video could not be written: %@. It was kept up to its last complete second.", words(failure))
        case let .recordingFailed(_, .file(failure, kept: false)): return translate("The video could not be written: %@.", words(failure))
        case let .recordingFailed(_, cause): return translate("The video could not be written: %@.", "\(cause)")
        case let .media(.io(_, failure)): return words(failure)
        default: return "\(error)"
        }
    }

    /// One line for a library failure (saving, or opening the library).
    public static func reason(_ error: LibraryError) -> String {
        switch error {
        case let .cannotWrite(_, failure): return words(failure)
        case let .accessDenied(path, failure): return translate("%@ cannot be used (%@). Check the folder's permissions.", path, words(failure))
        case let .albumExists(name): return translate("an album called “%@” already exists", name)
        case let .albumNotFound(name): return translate("there is no album called “%@”", name)
        case .invalidAlbumName: return L("an album's name must be one line of text, not empty")
        case let .unsupportedFile(path, reason): return translate("%@ cannot be read as a photo or video: %@", fileName(path), words(reason))
        case let .cannotRead(path, failure): return translate("%@ cannot be read: %@", fileName(path), readingWords(failure))
        case let .duplicate(path, _): return translate("%@ is already in the library", fileName(path))
        case .notFound: return L("the photo or video is no longer in the library")
        case let .cannotTrash(path, failure): return translate("%@ could not be moved to the Trash: %@", fileName(path), words(failure))
        case let .damagedTrashEntry(path): return translate("the Trash entry %@ does not say where its file came from", fileName(path))
        // SQLite's and the exporter's own explanations have no translation: they are kept, in brackets.
        case let .index(detail): return translate("the library's index failed (%@)", detail)
        case let .cannotExport(_, detail): return translate("the copy could not be made (%@)", detail)
        }
    }

    /// The last part of a path: what a person recognises in a message.
    static func fileName(_ path: String) -> String { String(path.split(separator: "/").last ?? Substring(path)) }

    /// Why a file could not be written, in the app's words.
    public static func words(_ failure: FileFailure) -> String {
        switch failure {
        case .diskFull: return L("the disk is full; free some space")
        case .quotaExceeded: return L("your disk quota is used up; free some space")
        case .permissionDenied: return L("permission denied")
        case .readOnly: return L("the disk is read-only")
        case .notFound: return L("the folder does not exist")
        case .notAFolder: return L("a part of the folder's path is a file")
        case .exists: return L("a file of that name exists")
        case .notRegularFile: return L("it is not a regular file")
        case .tooLarge: return L("the file is too large")
        // The C library's words for the error, in the user's language where it has them.
        case let .system(errno): return String(cString: strerror(errno))
        }
    }

    /// The translation of `format` with its %@ placeholders filled in order.
    public static func translate(_ format: String, _ arguments: String...) -> String {
        // Split once, so a %@ inside a filled-in value (a device or file name) stays as it is.
        let pieces = Localization.text(format).components(separatedBy: "%@")
        var result = pieces[0]
        for (index, piece) in pieces.dropFirst().enumerated() {
            result += (index < arguments.count ? arguments[index] : "%@") + piece
        }
        return result
    }
}
