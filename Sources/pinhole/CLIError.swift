import Capture
import Media
import PhotoLibrary

/// A failure of a `pinhole` command, with its documented exit code.
enum CLIError: Error {
    /// Bad arguments (exit 2).
    case usage(String)
    /// A camera failure (exit code by kind).
    case capture(CaptureError)
    /// An image failure (exit 1, or 6 when a file cannot be written).
    case media(MediaError)
    /// A file could not be written (exit 6).
    case cannotWrite(path: String, reason: String)
    /// A photo library failure.
    case library(LibraryError)
    /// Failures already printed line by line; exit with this code.
    case reported(Int32)

    /// The exit code, as documented in `pinhole --help` and the README.
    var exitCode: Int32 {
        switch self {
        case .usage: return ExitCode.usage
        case let .capture(error):
            switch error {
            case .noCamera, .deviceNotFound: return ExitCode.noCamera
            case .accessDenied, .restricted: return ExitCode.accessDenied
            case .deviceBusy, .deviceDisconnected: return ExitCode.busyOrUnplugged
            case .media(.io): return ExitCode.cannotWrite
            default: return ExitCode.failure
            }
        case .media(.io): return ExitCode.cannotWrite
        case .media: return ExitCode.failure
        case .cannotWrite: return ExitCode.cannotWrite
        case let .library(error):
            switch error {
            case .accessDenied: return ExitCode.accessDenied
            case .cannotWrite: return ExitCode.cannotWrite
            case .notFound: return ExitCode.notFound
            default: return ExitCode.failure
            }
        case let .reported(code): return code
        }
    }

    /// The one-line message.
    var message: String {
        switch self {
        case let .usage(text): return "\(text). See `pinhole --help`."
        case let .capture(error): return error.description
        case let .media(error): return error.description
        case let .cannotWrite(path, reason): return "Cannot save \(path): \(reason). Choose another folder with -o or free some space."
        case let .library(error): return error.description
        case .reported: return ""
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
    static let help = """
    Exit codes: 0 ok, 1 camera or image failure, 2 bad arguments, 3 no camera,
                4 access denied, 5 camera busy or unplugged, 6 cannot write the file,
                7 no library item with that ID.
    """
}
