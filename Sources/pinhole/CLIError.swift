import Capture
import Media
import PhotoLibrary

/// A failure of a `pinhole` command, with its documented exit code. The libraries' errors say
/// what happened; the words here add what to do at the command line. Exit codes are decided from
/// the errors' cases, never from their text.
enum CLIError: Error {
    /// Bad arguments (exit 2).
    case usage(String)
    /// A camera failure (exit code by kind; a movie that cannot be written: 6).
    case capture(CaptureError)
    /// An image failure (exit 1, or 6 when a file cannot be written).
    case media(MediaError)
    /// A file could not be written (exit 6).
    case cannotWrite(path: String, failure: FileFailure)
    /// A photo library failure.
    case library(LibraryError)
    /// `record --audio SOURCE` with nothing to record SOURCE from (exit 1). The library's words
    /// for a missing sound server say the movie is recorded without sound, which is what happens
    /// without --audio; with it, nothing is recorded.
    case audioUnavailable(source: String, CaptureError)
    /// Failures already printed line by line; exit with this code.
    case reported(Int32)

    /// The exit code, as documented in `pinhole --help` and the README.
    var exitCode: Int32 {
        switch self {
        case .usage: return ExitCode.usage
        case let .capture(error):
            switch error {
            case .noCamera, .deviceNotFound: return ExitCode.noCamera
            case .accessDenied, .restricted, .portalAccessDenied: return ExitCode.accessDenied
            case .deviceBusy, .deviceDisconnected: return ExitCode.busyOrUnplugged
            case .media(.io), .recordingFailed(_, .file): return ExitCode.cannotWrite
            default: return ExitCode.failure
            }
        case .media(.io): return ExitCode.cannotWrite
        case .media: return ExitCode.failure
        case .cannotWrite: return ExitCode.cannotWrite
        case let .library(error):
            switch error {
            case .accessDenied: return ExitCode.accessDenied
            case .cannotWrite, .cannotTrash: return ExitCode.cannotWrite
            case .notFound, .albumNotFound: return ExitCode.notFound
            default: return ExitCode.failure
            }
        case let .audioUnavailable(_, error): return CLIError.capture(error).exitCode
        case let .reported(code): return code
        }
    }

    /// The one-line message: what happened, and what to do about it here.
    var message: String {
        switch self {
        case let .usage(text): return L("%@. See `pinhole --help`.", text)
        case let .capture(error): return CLIError.line(for: error)
        case let .media(.io(path, failure)): return CLIError.cannotSave(path, failure)
        case let .media(error): return error.description
        case let .cannotWrite(path, failure): return CLIError.cannotSave(path, failure)
        case let .library(error): return CLIError.line(for: error)
        case let .audioUnavailable(source, error):
            switch error {
            case .noSoundServer, .soundServerNotResponding:
                return L("--audio %@ needs a sound server (PulseAudio or PipeWire), and none answered. Start one, or leave out --audio to record without sound.", source)
            default: return CLIError.line(for: error)
            }
        case .reported: return ""
        }
    }

    /// A camera, recording or sound failure, with the command-line advice.
    static func line(for error: CaptureError) -> String {
        switch error {
        case .noCamera:
            return L("No camera found. Connect a camera, or use Pinhole's test camera (--device test).")
        case .deviceNotFound:
            return error.description + " " + L("List cameras with `pinhole devices`.")
        case .accessDenied(_, "root"?):
            return error.description + " " + L("Ask your administrator to install udev rules that give the 'video' group access.")
        case let .accessDenied(_, group?):
            return error.description + " " + L("Join that group with `sudo usermod -aG %@ $USER`, then log out and back in.", group)
        case .accessDenied(_, nil):
            return error.description + " " + L("Check the permissions of the device node.")
        case .portalAccessDenied:
            // Translators: after "Camera access was refused through the desktop's camera portal."
            return error.description + " " + L("Allow Camera access in Settings → Privacy, then try again.")
        case .soundServerNotResponding:
            return error.description + " " + L("Restart it (systemctl --user restart pipewire-pulse, or pulseaudio -k).")
        case let .recordingFailed(path, .file(failure, kept)):
            return kept ? CLIError.cannotSave(path, failure, kept: L("the recording was kept up to its last complete second")) : CLIError.cannotSave(path, failure)
        case let .media(.io(path, failure)):
            return CLIError.cannotSave(path, failure)
        case .recordingFailed(_, .encoderStalled):
            return error.description + " " + L("Close other busy programs, or try a smaller --size.")
        default:
            return error.description
        }
    }

    /// A library failure, with the command-line advice.
    static func line(for error: LibraryError) -> String {
        switch error {
        case let .accessDenied(_, failure):
            return error.description + (failure == .permissionDenied || failure == .readOnly ? " " + L("Check the folder's permissions.") : "")
        case .index:
            return error.description + " " + L("Run `pinhole library verify --repair` to rebuild it.")
        case .notFound:
            return error.description + " " + L("List them with `pinhole library list`.")
        case .albumNotFound:
            return error.description + " " + L("List them with `pinhole library albums`.")
        case .albumExists:
            return error.description + " " + L("Choose another name.")
        case let .cannotWrite(path, failure):
            return CLIError.cannotSave(path, failure, option: nil)
        default:
            return error.description
        }
    }

    /// The line for a file given to `library import` that was not imported (one full stop at
    /// the end, also when the reason, a decoder's sentence, has its own).
    static func importLine(for error: LibraryError) -> String {
        switch error {
        case let .unsupportedFile(path, reason):
            let said = reason.description
            return L("%@ cannot be imported: %@.", path, said.hasSuffix(".") ? String(said.dropLast()) : said)
        case let .cannotRead(path, failure): return L("%@ cannot be imported: %@.", path, words(failure))
        default: return line(for: error)
        }
    }

    /// The line for a file in the library's folders that the library did not take as it is.
    static func skippedLine(for file: SkippedFile) -> String {
        let said = switch file.problem {
        case let .unsupportedFile(_, reason): reason.description
        case let .cannotRead(_, failure): words(failure)
        default: file.problem.description
        }
        let why = said.hasSuffix(".") ? String(said.dropLast()) : said
        return switch file.treatment {
        case .notIndexed: L("%@ is not in the library: %@. Move it out of the folder, or replace it with a good copy.", file.path, why)
        case .leftAsItIs: L("%@ was left as it is: %@. It stays in the library; move it out of the folder if it does not play.", file.path, why)
        }
    }

    /// "Cannot save PATH: the disk is full. Free some space, or choose another folder with -o."
    static func cannotSave(_ path: String, _ failure: FileFailure, kept: String? = nil, option: String? = "-o") -> String {
        let what = kept.map { L("Cannot save %@: %@; %@.", path, words(failure), $0) } ?? L("Cannot save %@: %@.", path, words(failure))
        let advice: String? = switch failure {
        case .diskFull, .quotaExceeded: option.map { L("Free some space, or choose another folder with %@.", $0) } ?? L("Free some space.")
        case .permissionDenied, .readOnly: option.map { L("Choose a folder you can write with %@.", $0) } ?? L("Check the folder's permissions.")
        case .notFound, .notAFolder: option.map { L("Choose an existing folder with %@.", $0) }
        case .exists: L("Pinhole never replaces files: choose another name.")
        default: option.map { L("Choose another folder with %@.", $0) }
        }
        return advice.map { what + " " + $0 } ?? what
    }

    /// Why a file could not be read or written, in the user's language (Media's words in English).
    static func words(_ failure: FileFailure) -> String {
        switch failure {
        case .diskFull: L("the disk is full")
        case .quotaExceeded: L("the disk quota is used up")
        case .permissionDenied: L("permission denied")
        case .readOnly: L("the file system is read-only")
        case .notFound: L("the file or folder does not exist")
        case .notAFolder: L("a part of the path is not a folder")
        case .exists: L("a file of that name exists")
        case .notRegularFile: L("it is not a regular file")
        case let .tooLarge(size, limit): L("the file is %@ bytes, over the limit of %@", String(size), String(limit))
        // strerror's words, in the user's language where the C library has them.
        case .system: failure.description
        }
    }
}

/// The exit codes of every `pinhole` command.
enum ExitCode {
    /// Success.
    static let success: Int32 = 0
    /// A camera or image failure not listed below.
    static let failure: Int32 = 1
    /// Bad command-line arguments.
    static let usage: Int32 = 2
    /// No camera (or no camera with the ID given).
    static let noCamera: Int32 = 3
    /// Camera access denied.
    static let accessDenied: Int32 = 4
    /// The camera is in use by another program, or was unplugged.
    static let busyOrUnplugged: Int32 = 5
    /// The photo could not be written.
    static let cannotWrite: Int32 = 6
    /// No library item with the ID given.
    static let notFound: Int32 = 7

    /// The table printed by `--help`.
    static var help: String {
        L("Exit codes: 0 ok, 1 camera or image failure, 2 bad arguments, 3 no camera,\n            4 access denied, 5 camera busy or unplugged, 6 cannot write the file,\n            7 no library item with that ID.")
    }
}
