import Foundation
import Media
import PhotoLibrary

/// What one import did, file by file, and the lines the app says about it (toasts).
public struct ImportReport: Sendable, Equatable {
    /// One file the library refused, and why.
    public struct Refusal: Sendable, Equatable {
        /// The file's name (its last path component), as the person chose it.
        public let name: String
        /// Why, in the app's words.
        public let reason: String
    }

    /// How many files became new items.
    public var imported = 0
    /// The names of files whose content the library has already (not added again).
    public var duplicates: [String] = []
    /// The files refused (damaged, not a photo or video, unreadable).
    public var refused: [Refusal] = []
    /// The names of folders given that hold no photo or video.
    public var emptyFolders: [String] = []
    /// Why the import stopped before its end (the library could not be written), if it did.
    public var stopped: String?
    /// Whether it was cancelled (the files not reached yet were left as they were).
    public var cancelled = false

    /// How many files of one kind (duplicates, refusals) are named one by one: more than this
    /// are counted in one line, so a folder of damaged files does not queue a toast each.
    static let namedLimit = 3

    /// The lines to show, most important first: what was imported (or cancelled), why it
    /// stopped, then the duplicates and the refusals.
    public var messages: [String] {
        var lines: [String] = []
        if cancelled {
            lines.append(CameraWords.translate("Import cancelled: %@ imported", String(imported)))
        } else if imported > 0 {
            lines.append(CameraWords.translate("%@ imported", String(imported)))
        } else {
            lines.append(L("Nothing was imported"))
        }
        if let stopped { lines.append(CameraWords.translate("The import stopped: %@", stopped)) }
        if duplicates.count <= ImportReport.namedLimit {
            lines += duplicates.map { CameraWords.translate("%@ is already in the library", $0) }
        } else {
            lines.append(CameraWords.translate("%@ files are already in the library", String(duplicates.count)))
        }
        if refused.count <= ImportReport.namedLimit {
            lines += refused.map { CameraWords.translate("%@ could not be imported: %@", $0.name, $0.reason) }
        } else {
            // The first few by name, then one line for the rest (at least two, so "files" fits).
            let named = refused.prefix(ImportReport.namedLimit - 1)
            lines += named.map { CameraWords.translate("%@ could not be imported: %@", $0.name, $0.reason) }
            lines.append(CameraWords.translate("%@ more files could not be imported", String(refused.count - named.count)))
        }
        lines += emptyFolders.prefix(ImportReport.namedLimit).map { CameraWords.translate("%@ holds no photos or videos", $0) }
        return lines
    }
}

extension CameraWords {
    /// Why the library refused a file given to import, in the app's words: its typed reason,
    /// case by case (the library's own English description is never shown).
    public static func importReason(_ error: LibraryError) -> String {
        switch error {
        case let .unsupportedFile(_, reason): return words(reason)
        case let .cannotRead(_, failure): return readingWords(failure)
        case let .cannotWrite(_, failure): return words(failure)
        default: return reason(error)
        }
    }

    /// Why a file is not a photo or video the library takes, in the app's words.
    public static func words(_ reason: UnsupportedReason) -> String {
        switch reason {
        case .empty: return L("the file is empty")
        case .notAnImage: return L("it is not a photo or video")
        case .notAMovie: return L("it is not a video")
        case let .damaged(error): return damageWords(error)
        }
    }

    /// What Media found wrong with a file that starts as a photo or video, in the app's words.
    static func damageWords(_ error: MediaError) -> String {
        switch error {
        case .corruptData, .bufferTooShort, .invalidMetadata: return L("the file is damaged or incomplete")
        case let .imageTooLarge(width, height, _): return translate("the picture is too large to open (%@ × %@ pixels)", String(width), String(height))
        case .invalidDimensions: return L("the picture's size in the file is impossible")
        case .unsupported: return L("its kind of picture or video cannot be read")
        case let .io(_, failure): return readingWords(failure)
        case .strideTooSmall, .mismatch, .encoderFailed, .poolExhausted: return L("it could not be read as a photo or video")
        }
    }

    /// Why a file could not be read, in the app's words.
    public static func readingWords(_ failure: FileFailure) -> String {
        switch failure {
        case .permissionDenied: return L("permission denied")
        case .notFound, .notAFolder: return L("the file does not exist")
        case .notRegularFile: return L("it is not a regular file")
        case .tooLarge: return L("the file is too large")
        default: return words(failure)
        }
    }
}
