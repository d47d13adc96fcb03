import Foundation
import Glibc
import Media

/// Where a file is and what state it is in: its device and inode (which a rename keeps), its
/// size and modification time (which a write changes).
struct FileIdentity: Equatable {
    /// The file system's device.
    let device: Int64
    /// The inode on that device.
    let inode: Int64
    /// Size in bytes.
    let size: Int64
    /// Modification time in seconds (nanosecond precision).
    let mtime: Double

    /// The identity of the regular file at `path` (not following a symbolic link), or nil.
    init?(path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(info)
    }

    /// An identity read back from the index (nil when any part is missing).
    init?(device: Int64?, inode: Int64?, size: Int64?, mtime: Double?) {
        guard let device, let inode, let size, let mtime else { return nil }
        (self.device, self.inode, self.size, self.mtime) = (device, inode, size, mtime)
    }

    /// The identity `info` describes.
    init(_ info: stat) {
        device = Int64(bitPattern: UInt64(info.st_dev))
        inode = Int64(bitPattern: UInt64(info.st_ino))
        size = Int64(info.st_size)
        mtime = PhotoLibrary.modificationTime(info)
    }
}

/// What the index holds about a file, for matching it (`PhotoLibrary.row(for:_:fingerprint:type:in:)`).
struct IndexedFile {
    /// The asset's identifier.
    let id: String
    /// Where its file was when last seen.
    let path: String
    /// Photo or video.
    let mediaType: Asset.MediaType
    /// The file's size when last read.
    let size: Int64
    /// The file's modification time when last read.
    let mtime: Double
    /// Its device when last seen (nil in rows from before version 5 not seen since).
    let device: Int64?
    /// Its inode when last seen (nil as `device` is).
    let inode: Int64?
    /// The content's fingerprint when last read (`ContentHash`).
    let fingerprint: String?

    /// The columns `init(_:)` reads, in order.
    static let columns = "id, path, media_type, size, mtime, device, inode, fingerprint"

    /// The row of `columns`' values.
    init(_ row: [Database.Value]) {
        id = row[0].text ?? ""
        path = row[1].text ?? ""
        mediaType = Asset.MediaType(rawValue: row[2].text ?? "") ?? .photo
        size = row[3].integer ?? -1
        mtime = row[4].real ?? -1
        device = row[5].integer
        inode = row[6].integer
        fingerprint = row[7].text
    }

    /// Whether `file` is the very file this row describes, unchanged since it was read (a row
    /// without device and inode: by size and time alone).
    func describes(_ file: FileIdentity) -> Bool {
        size == file.size && mtime == file.mtime && (device == nil || device == file.device && inode == file.inode)
    }
}

/// The identity rule: how a file on disk is matched to its row.
extension PhotoLibrary {
    /// The row the file at `path` is, if any — the one rule every reconcile follows:
    /// 1. the row at its path: a file changed in place (edited, rewritten, replaced by a rename,
    ///    as image editors and exiftool do) is the same item;
    /// 2. a row whose file is gone from its path and that names this very file, unchanged (same
    ///    device, inode, size and time): renamed or moved within the library;
    /// 3. a row whose file is gone and whose content fingerprint and kind this file has: moved by
    ///    a copy, or put back from a backup.
    /// Never by the fingerprint alone: a second copy beside a file still there is a new item.
    static func row(for path: String, _ file: FileIdentity, fingerprint: String?, type: Asset.MediaType,
                    in database: Database) throws(LibraryError) -> IndexedFile? {
        if let same = try rows(database, where: "path = ?", [.text(path)]).first { return same }
        let candidates = try rows(database, where: "media_type = ? AND ((device = ? AND inode = ?) OR fingerprint = ?)",
                                  [.text(type.rawValue), .integer(file.device), .integer(file.inode), fingerprint.map { .text($0) } ?? .null])
        let gone = candidates.filter { isGone($0.path) }
        if let moved = gone.first(where: { $0.device == file.device && $0.inode == file.inode && $0.describes(file) }) { return moved }
        guard let fingerprint else { return nil }
        return gone.first { $0.fingerprint == fingerprint }
    }

    /// Whether nothing is at `path` any more (not even a broken link).
    static func isGone(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) != 0 && errno == ENOENT
    }

    /// Rows of the index matching `clause`.
    static func rows(_ database: Database, where clause: String, _ parameters: [Database.Value]) throws(LibraryError) -> [IndexedFile] {
        try database.query("SELECT \(IndexedFile.columns) FROM assets WHERE \(clause)", parameters).map(IndexedFile.init)
    }

    /// Brings the row `id` up to date with its file, now at `path`: what the file says (size,
    /// pixels, orientation, location, length), where it is, its fingerprint. Its identifier,
    /// capture date, favourite mark and albums stay.
    static func update(_ id: String, path: String, entry: MediaEntry?, fingerprint: String?, file: FileIdentity,
                       in database: Database, _ held: borrowing LibraryLock.Held) throws(LibraryError) {
        try database.query("UPDATE assets SET path = ?, size = ?, mtime = ?, device = ?, inode = ?, fingerprint = COALESCE(?, fingerprint) WHERE id = ?",
                           [.text(path), .integer(file.size), .real(file.mtime), .integer(file.device), .integer(file.inode),
                            fingerprint.map { .text($0) } ?? .null, .text(id)])
        guard let entry else { return }
        let location = entry.location
        try database.query("""
            UPDATE assets SET width = ?, height = ?, orientation = ?, latitude = ?, longitude = ?, altitude = ?, duration = ?, has_location = ?
            WHERE id = ?
            """, [.integer(Int64(entry.width)), .integer(Int64(entry.height)), .integer(Int64(entry.orientation)),
                  location.map { .real($0.latitude) } ?? .null, location.map { .real($0.longitude) } ?? .null,
                  location?.altitude.map { .real($0) } ?? .null, entry.duration.map { .real($0) } ?? .null,
                  .integer(entry.hasLocation ? 1 : 0), .text(id)])
    }
}
