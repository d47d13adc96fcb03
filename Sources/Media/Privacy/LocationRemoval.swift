/// Removes where a photo or movie was taken from its file, for sharing, and says whether a file
/// says where it was taken: both through one walk per format, which lists the edits removal makes
/// (`LocationEdit`), so "has a location" is exactly "removing it would change the file". What
/// counts as a location is `LocationMetadata`'s to decide, in every kind of metadata: EXIF's GPS
/// IFD, XMP's location properties, IPTC's place datasets, a movie's location keys and boxes.
///
/// Nothing is re-encoded: EXIF keeps its length (the GPS bytes are zeroed, see
/// `ExifPayload.removingLocation`), XMP keeps its length (the properties become spaces, see
/// `XMPLocation`), so offsets in HEIF, MP4 and EXIF stay valid; IPTC and PNG's text chunks
/// shrink where their format allows it. The picture's bytes and all other metadata stay as they
/// were. Damaged metadata throws `.corruptData`, so a location is never left behind unseen.
public enum LocationRemoval {
    /// True when the JPEG, PNG, HEIF or WebP file `data` says where it was taken, in any
    /// metadata. Throws as `removingLocation(from:)` does.
    public static func containsLocation(in data: [UInt8]) throws(MediaError) -> Bool {
        try !edits(in: data).isEmpty
    }

    /// A copy of the JPEG, PNG, HEIF or WebP file `data` without any location. A file without
    /// location comes back unchanged; another kind of file throws `.unsupported`, damaged
    /// metadata `.corruptData`.
    public static func removingLocation(from data: [UInt8]) throws(MediaError) -> [UInt8] {
        let edits = try edits(in: data)
        guard !edits.isEmpty else { return data }
        let clean = LocationEdit.apply(edits, to: data)
        // Belt and braces: what comes out must read as having no location.
        guard try LocationRemoval.edits(in: clean).isEmpty else {
            throw .corruptData(format: "metadata", reason: "the location could not be removed from every place it is kept")
        }
        return clean
    }

    /// True when the movie at `path` says where it was recorded (MP4 and MOV boxes and keys,
    /// their XMP, Matroska tags). Reads only its metadata.
    public static func movieContainsLocation(path: String) throws(MediaError) -> Bool {
        try MovieLocation.containsLocation(path: path)
    }

    /// Copies the movie at `source` to `path` (the first free "name (n).ext" beside it when taken)
    /// without any location: MP4 and MOV are copied byte for byte and their location boxes and
    /// keys made free space and their XMP cleaned in the copy; Matroska and WebM are copied into
    /// a new container without their location tags. Streams are never re-encoded. Returns the
    /// path written.
    public static func copyMovie(from source: String, to path: String) throws(MediaError) -> String {
        try MovieLocation.copyWithoutLocation(from: source, to: path)
    }

    /// The edits that remove the location from an image file.
    static func edits(in data: [UInt8]) throws(MediaError) -> [LocationEdit] {
        switch ImageKind(sniffing: data) {
        case .jpeg: try JPEGLocation.edits(in: data)
        case .png: try PNGLocation.edits(in: data)
        case .heif: try HEIFLocation.edits(in: data)
        case .webp: try webp(data)
        case nil: throw .unsupported("removing the location from this kind of file (JPEG, PNG, HEIF and WebP are supported)")
        }
    }

    /// WebP keeps EXIF in an "EXIF" chunk (a TIFF block, sometimes with the "Exif\0\0" header) and
    /// XMP in an "XMP " chunk; both are edited to the same length.
    static func webp(_ data: [UInt8]) throws(MediaError) -> [LocationEdit] {
        var edits: [LocationEdit] = []
        var failure: MediaError?
        let whole = Chunks.webp(data) { type, range in
            do throws(MediaError) {
                let chunk = Array(data[range])
                if type == "EXIF", try ExifPayload.containsLocation(chunk) {
                    edits.append(LocationEdit(range: range, replacement: try ExifPayload.removingLocation(from: chunk)))
                } else if type == "XMP ", let clean = XMPLocation.removingLocation(from: chunk) {
                    edits.append(LocationEdit(range: range, replacement: clean))
                }
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        guard whole else { throw .corruptData(format: "WebP", reason: "a chunk runs past the end of the file") }
        return edits
    }
}

/// CRC-32 (ISO 3309, as PNG uses).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC of `bytes`.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
