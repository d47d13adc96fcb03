import Foundation
import Glibc
import Media

/// Adding photos and videos: checked, written durably, named by their date.
extension PhotoLibrary {
    /// Adds a photo from its file bytes (JPEG, PNG, HEIF or WebP, checked), saved as "Photo from
    /// DATE.ext" in the photos folder; refuses content already in the library.
    @discardableResult
    public func addPhoto(data: [UInt8], name: String = "the photo") throws(LibraryError) -> Asset {
        let ids = try performChanges { $0.createAsset(fromImageData: data, name: name) }
        guard let id = ids.first, let asset = try asset(id: id) else { throw .index("the new row is missing") }
        return asset
    }

    /// Imports (copies) the image or movie file at `path`.
    @discardableResult
    public func importFile(at path: String) throws(LibraryError) -> Asset {
        let ids = try performChanges { $0.createAsset(fromFile: path) }
        guard let id = ids.first, let asset = try asset(id: id) else { throw .index("the new row is missing") }
        return asset
    }

    /// Whether a file's name says it is a photo or a movie the library takes (by its extension,
    /// as file managers decide): what an import of a whole folder picks. The file is still
    /// checked by its content when imported.
    public static func isMediaName(_ name: String) -> Bool {
        !name.hasPrefix(".") && (isPhotoName(name) || isVideoName(name))
    }

    /// The name of every new file, in local time, with milliseconds (bursts of photos stay in
    /// order, and two recordings started within one second get two names):
    /// "Photo from 2026-11-29 14-03-22.123.jpg", "Video from 2026-11-29 14-03-22.123.mp4".
    /// A date no photo or video can have (read from a hostile file: see `saneDate`) names the
    /// file by the current time instead.
    public static func fileName(date: Double, extension ext: String, mediaType: Asset.MediaType = .photo) -> String {
        let date = saneDate(date) ?? Date().timeIntervalSince1970
        let whole = date.rounded(.down)
        var seconds = time_t(whole)
        var local = tm()
        localtime_r(&seconds, &local)
        func pad(_ value: Int, _ width: Int = 2) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        let ms = min(999, Int((date - whole) * 1000))
        let stamp = "\(pad(Int(local.tm_year) + 1900, 4))-\(pad(Int(local.tm_mon) + 1))-\(pad(Int(local.tm_mday))) "
            + "\(pad(Int(local.tm_hour)))-\(pad(Int(local.tm_min)))-\(pad(Int(local.tm_sec)))"
        return "\(mediaType == .photo ? "Photo" : "Video") from \(stamp).\(pad(ms, 3)).\(ext)"
    }

    /// `date` (seconds since 1970) when a photo or video can have been taken then: from 1970 to
    /// the end of year 9999 (four-digit years). Nil for anything else, NaN and infinities
    /// included: dates read from files are untrusted, and such a one is no date.
    public static func saneDate(_ date: Double?) -> Double? {
        guard let date, date.isFinite, date >= 0, date < 253_402_300_800 else { return nil }
        return date
    }

    /// The path for a new recording in `folder`, named by `date` (`fileName`), or the first
    /// free "… (2).ext", "… (3).ext" beside it when that name is taken (the rule every new file
    /// follows). The recorder still creates it exclusively: a caller that loses a race for the
    /// name to another process asks again.
    public static func newVideoPath(in folder: String, date: Double, extension ext: String) -> String {
        let first = folder + "/" + fileName(date: date, extension: ext, mediaType: .video)
        var path = first, number = 2
        var info = stat()
        while lstat(path, &info) == 0, number < 10_000 {
            path = AtomicFile.suffixed(first, number)
            number += 1
        }
        return path
    }

    /// Checks a photo's bytes and writes them durably into the photos folder (no row yet).
    func writePhoto(data: [UInt8], name: String, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> (entry: MediaEntry, contentID: String, size: Int, path: String) {
        let file = try PhotoFile(data: data, name: name, keepThumbnail: true)
        let contentID = ContentHash.identifier(of: data)
        // The same content already in the library (same hash and length, and the same bytes).
        if let existing = try asset(id: "p" + contentID), (try? FileBytes.read(path: existing.path)) == data {
            throw LibraryError.duplicate(path: name, existing: existing.path)
        }
        let target = location.photos + "/" + PhotoLibrary.fileName(date: file.exifDate ?? Date().timeIntervalSince1970, extension: file.fileExtension)
        do { return (MediaEntry(photo: file), contentID, data.count, try AtomicFile.write(data, to: target, createFolders: false)) } catch {
            throw LibraryError.from(error)
        }
    }

    /// Checks a movie and copies (or, `moving`, links) it durably into the videos folder (no row yet).
    func placeVideo(from path: String, moving: Bool, _ held: borrowing LibraryLock.Held) throws(LibraryError) -> (entry: MediaEntry, contentID: String, size: Int, path: String) {
        let entry = try MediaEntry(videoAt: path, name: path, keepThumbnail: true)
        let contentID = try ContentHash.identifier(ofFile: path)
        if let existing = try asset(id: "v" + contentID), ContentHash.sameContents(existing.path, path) {
            throw LibraryError.duplicate(path: path, existing: existing.path)
        }
        let written: String
        if moving, (path as NSString).deletingLastPathComponent == location.videos {
            // A recording made straight into the videos folder (so that a crash leaves it there,
            // playable): indexed where it is.
            written = path
        } else {
            let target = location.videos + "/" + PhotoLibrary.fileName(date: entry.date ?? Date().timeIntervalSince1970, extension: entry.fileExtension, mediaType: .video)
            do {
                written = moving ? try AtomicFile.place(path, at: target) : try AtomicFile.copy(from: path, to: target, createFolders: false)
            } catch {
                throw LibraryError.from(error)
            }
        }
        var info = stat()
        return (entry, contentID, stat(written, &info) == 0 ? Int(info.st_size) : 0, written)
    }
}
