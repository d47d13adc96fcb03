import Capture
import Foundation
import Media

/// `pinhole`: Pinhole's command-line tool.

// Words for people in the user's language (gettext); first, before anything is printed.
Translation.install()

let usage = [L("Usage: pinhole COMMAND [options]"), L("Commands:") + "\n" + Help.rows([
    .init("devices", L("list cameras, their formats and controls")),
    .init("snap", L("take a photo and print where it was saved")),
    .init("record", L("record a movie (with sound) and print where it was saved")),
    .init("library", L("list, import, export, delete, restore photos in the library")),
], width: 11), L("Run `pinhole COMMAND --help` for a command's options."), ExitCode.help].joined(separator: "\n\n")

/// The arguments as given. A file name that is not valid UTF-8 (Latin-1 names from an old system
/// or a camera card) cannot be a Swift String without changing it; such an argument that names a
/// readable file is opened once and passed on as /proc/self/fd/N, which reads the same file, so it
/// can still be imported. `displayNames` maps those back to the name with U+FFFD for messages.
let (arguments, displayNames): ([String], [String: String]) = {
    var texts: [String] = [], names: [String: String] = [:]
    for index in 1..<Int(CommandLine.argc) {
        guard let raw = CommandLine.unsafeArgv[index] else { continue }
        if let text = String(validatingCString: raw) { texts.append(text); continue }
        let repaired = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
        // O_PATH opens without reading (a FIFO would block a read open); /proc/self/fd/N then
        // reopens the same file or folder for what the command does with it.
        let fd = open(raw, 0o10_000_000 /* O_PATH, hidden from Swift without _GNU_SOURCE */ | O_CLOEXEC)
        guard fd >= 0 else {
            // Not an existing file (a name to create, a typo): it cannot be kept as given.
            // Not `report`: it reads `displayNames`, which this is still making.
            FileHandle.standardError.write(Data(("pinhole: " + oneLine(L("argument '%@' is not valid UTF-8 and names no existing file; use a UTF-8 name. See `pinhole --help`.", repaired)) + "\n").utf8))
            exit(ExitCode.usage)
        }
        texts.append("/proc/self/fd/\(fd)")
        names["/proc/self/fd/\(fd)"] = repaired
    }
    return (texts, names)
}()
let command = arguments.first ?? "--help"
let rest = Array(arguments.dropFirst())

/// `text` with /proc/self/fd/N paths of non-UTF-8 arguments shown as their names.
func readable(_ text: String) -> String {
    displayNames.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
}

/// Prints the error's one line (`report`) and exits with its code.
func fail(_ error: CLIError) -> Never {
    if case .reported = error {} else { report(error.message) }
    exit(error.exitCode)
}

do throws(CLIError) {
    switch command {
    case "devices": try DevicesCommand.run(rest)
    case "snap": try await SnapCommand.run(rest)
    case "record": try await RecordCommand.run(rest)
    case "library": try await LibraryCommand.run(rest)
    case "-h", "--help", "help": print(usage)
    case "--version": print("pinhole \(PinholeVersion.string)")
    default: throw .usage(L("unknown command '%@'", command))
    }
} catch {
    fail(error)
}
exit(ExitCode.success)
