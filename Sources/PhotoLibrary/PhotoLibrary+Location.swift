import Glibc
import Media

/// Whether a file says where it was taken: the index's `has_location`, and so `Asset.hasLocation`,
/// which Save As's "Remove location" and the properties panel go by. Decided only by Media's
/// `LocationRemoval` (the walk that removal itself makes), so what is offered and what is removed
/// cannot disagree.
extension PhotoLibrary {
    /// Whether the photo file `data` holds a location. Metadata too damaged to walk counts as
    /// holding one: it cannot be shown not to, and removal then says what is wrong.
    static func hasLocation(photo data: [UInt8]) -> Bool {
        do throws(MediaError) { return try LocationRemoval.containsLocation(in: data) } catch { return true }
    }

    /// Whether the movie at `path` holds a location (damaged metadata counts, as for photos).
    static func hasLocation(movieAt path: String) -> Bool {
        do throws(MediaError) { return try LocationRemoval.movieContainsLocation(path: path) } catch {
            if case .io = error { return false }
            return true
        }
    }

    /// Reads the files of rows whose `has_location` is not known yet (indexed before the index
    /// recorded it: version 4 and older) and records it, so every asset answers.
    static func fillInLocationFlags(_ database: Database, _ lock: LibraryLock) throws(LibraryError) {
        let rows = try database.query("SELECT path, media_type FROM assets WHERE has_location IS NULL")
        guard !rows.isEmpty else { return }
        var flags: [(path: String, flag: Bool)] = []
        for row in rows {
            guard let path = row[0].text else { continue }
            if row[1].text == Asset.MediaType.video.rawValue {
                flags.append((path, hasLocation(movieAt: path)))
            } else if let data = try? FileBytes.read(path: path) {
                flags.append((path, hasLocation(photo: data)))
            }
        }
        try lock.held { held throws(LibraryError) in try writeLocationFlags(flags, database, held) }
    }

    /// Writes the flags `fillInLocationFlags` read (rows another process filled meanwhile stay).
    private static func writeLocationFlags(_ flags: [(path: String, flag: Bool)], _ database: Database,
                                           _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.transaction(held) { () throws(LibraryError) in
            for item in flags {
                try database.query("UPDATE assets SET has_location = ? WHERE path = ? AND has_location IS NULL",
                                   [.integer(item.flag ? 1 : 0), .text(item.path)])
            }
        }
    }
}
