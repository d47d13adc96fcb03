import Capture
import Foundation
import Media

/// `pinhole`: Pinhole's command-line tool.
let usage = """
Usage: pinhole COMMAND [options]

Commands:
  devices    list cameras, their formats and controls
  snap       take a photo and print where it was saved
  library    list, import, export, delete, restore photos in the library

Run `pinhole COMMAND --help` for a command's options.

\(ExitCode.help)
"""

let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.first ?? "--help"
let rest = Array(arguments.dropFirst())

/// Prints the error's one line and exits with its code.
func fail(_ error: CLIError) -> Never {
    if case .reported = error {} else { FileHandle.standardError.write(Data("pinhole: \(error.message)\n".utf8)) }
    exit(error.exitCode)
}

do throws(CLIError) {
    switch command {
    case "devices": try DevicesCommand.run(rest)
    case "snap": try await SnapCommand.run(rest)
    case "library": try await LibraryCommand.run(rest)
    case "-h", "--help", "help": print(usage)
    case "--version": print("pinhole \(PinholeVersion.string)")
    default: throw .usage("unknown command '\(command)'")
    }
} catch {
    fail(error)
}
exit(ExitCode.success)
