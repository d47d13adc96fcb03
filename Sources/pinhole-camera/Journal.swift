import Glibc

/// Writes "pinhole-camera: TEXT" as one line on standard error, which a desktop session sends to
/// the journal: what the app told the person (a toast, a page saying why the camera cannot be
/// used), for whoever helps them later. One `write`, so lines from threads never interleave.
func journal(_ text: String) {
    let line = "pinhole-camera: \(text)\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
}
