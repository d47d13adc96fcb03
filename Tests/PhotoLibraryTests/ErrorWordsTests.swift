import Media
import PhotoLibrary
import Testing

/// Every failure of the file kinds callers see.
let everyFileFailure: [FileFailure] = [
    .diskFull, .quotaExceeded, .permissionDenied, .readOnly, .notFound, .notAFolder, .exists, .notRegularFile,
    .tooLarge(size: 2_000_000_000, limit: 1 << 30), .system(errno: 5),
]

/// One line saying what happened: no advice in a program's words (a command, a flag).
func checkLibraryWords(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!text.isEmpty && !text.contains("\n"), "\(text)", sourceLocation: sourceLocation)
    #expect(!text.contains("pinhole ") && !text.contains("--"), "a command-line hint in a library's message: \(text)", sourceLocation: sourceLocation)
}

@Suite("Library and media errors describe what happened, without command-line advice")
struct ErrorWordsTests {
    @Test("every LibraryError and MediaError case, with every file failure")
    func noCommandLineAdvice() {
        var library: [LibraryError] = [
            .index("database disk image is malformed"), .unsupportedFile(path: "/tmp/junk.png", reason: .notAnImage),
            .duplicate(path: "/tmp/a.jpg", existing: "/home/u/Pictures/Camera/a.jpg"), .notFound("abc123"), .albumNotFound("Trips"),
            .albumExists("Trips"), .invalidAlbumName("two\nlines"), .invalidAlbumName(""), .damagedTrashEntry(path: "/home/u/.local/share/Trash/info/a.jpg.trashinfo"),
            .cannotExport(id: "abc123", reason: "the movie has no video stream"),
        ]
        for failure in everyFileFailure {
            library += [.accessDenied(path: "/home/u/Pictures/Camera", failure: failure), .cannotRead(path: "/tmp/a.jpg", failure: failure),
                        .cannotWrite(path: "/home/u/Pictures/Camera/a.jpg", failure: failure), .cannotTrash(path: "/home/u/Pictures/Camera/a.jpg", failure: failure)]
        }
        for error in library { checkLibraryWords(error.description) }
        var media: [MediaError] = [
            .invalidDimensions(width: 0, height: 4, reason: "the image declares an empty size"), .strideTooSmall(plane: 0, bytesPerRow: 2, minimum: 4),
            .bufferTooShort(needed: 8, actual: 4), .mismatch("sizes"), .unsupported("rotating NV12"), .corruptData(format: "JPEG", reason: "truncated"),
            .imageTooLarge(width: 100_000, height: 100_000, maximumPixels: 1 << 28), .encoderFailed(format: "movie", reason: "no libx264"),
            .invalidMetadata("bad IFD"), .poolExhausted(capacity: 8),
        ]
        media += everyFileFailure.map { .io(path: "/tmp/x.mp4", failure: $0) }
        for error in media { checkLibraryWords(error.description) }
    }
}
