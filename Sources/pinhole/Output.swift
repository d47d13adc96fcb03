import Foundation

/// Writes one line to standard output at once (unbuffered, also into pipes and files), so
/// scripts and a killed batch see every path as soon as it is saved.
func output(_ line: String) {
    FileHandle.standardOutput.write(Data((readable(line) + "\n").utf8))
}
