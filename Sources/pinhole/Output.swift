import Foundation

/// Writes one line to standard output at once (unbuffered, also into pipes and files), so
/// scripts and a killed batch see every path as soon as it is saved.
func output(_ line: String) {
    FileHandle.standardOutput.write(Data((readable(line) + "\n").utf8))
}

/// Writes one message to standard error as one line, "pinhole: " first: what the user reads
/// when something went wrong, or a file in the library was not taken as it is.
func report(_ message: String) {
    FileHandle.standardError.write(Data(("pinhole: " + oneLine(readable(message)) + "\n").utf8))
}

/// `text` as one line a terminal shows as it is. Messages quote what came from outside: file
/// names and arguments as typed (a newline, an escape sequence, a right-to-left override), bytes
/// read from a file (a chunk or box type with a NUL in it). Control characters are written as
/// `\n`, `\t`, `\r` or `\xHH` (`\u{HHHH}` above U+00FF), and so are the invisible marks that
/// reorder the text around them (U+202A–U+202E, U+2066–U+2069), so a message is one line and
/// reads the same on every terminal.
func oneLine(_ text: String) -> String {
    var line = ""
    line.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\n": line += "\\n"
        case "\t": line += "\\t"
        case "\r": line += "\\r"
        case _ where scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value):
            line += scalar.value <= 0xFF ? String(format: "\\x%02X", scalar.value) : String(format: "\\u{%04X}", scalar.value)
        default: line.unicodeScalars.append(scalar)
        }
    }
    return line
}
