/// EXIF in JPEG files: finding, inserting, reading and stripping the EXIF APP1 segment.
///
/// Pure Swift over the file's bytes: the header's marker segments are walked with every length
/// bounds-checked (see the errors below), and only EXIF APP1 segments are touched; every other
/// byte (JFIF APP0, XMP, ICC profile, tables, image data) is copied unchanged. Pixels are never
/// decoded or rotated.
///
/// Errors: `.corruptData(format: "JPEG", …)` for data without SOI, a bad marker, or a segment
/// length running past the end; `.corruptData(format: "EXIF", …)` for a damaged EXIF block;
/// `.invalidMetadata` for an EXIF block too large for an APP1 segment.
public enum JPEGExif {
    /// The payload of the first EXIF APP1 segment ("Exif\0\0" + TIFF), or nil when there is none.
    public static func exifPayload(in jpeg: [UInt8]) throws(MediaError) -> [UInt8]? {
        try JPEGSegment.header(of: jpeg).first { $0.isExif(in: jpeg) }.map { Array(jpeg[$0.payload]) }
    }

    /// The metadata of the first EXIF APP1 segment, or nil when the JPEG has none.
    public static func metadata(in jpeg: [UInt8]) throws(MediaError) -> ExifMetadata? {
        guard let payload = try exifPayload(in: jpeg) else { return nil }
        return try ExifMetadata(exifPayload: payload)
    }

    /// `jpeg` with `payload` as its EXIF APP1 segment, placed right after SOI; any EXIF APP1
    /// segments it had are removed and everything else is kept byte for byte.
    /// Throws `.invalidMetadata` when `payload` does not start with "Exif\0\0" or is over
    /// `ExifPayload.maximumSize` bytes.
    public static func inserting(exifPayload payload: [UInt8], into jpeg: [UInt8]) throws(MediaError) -> [UInt8] {
        guard payload.starts(with: ExifPayload.header) else {
            throw .invalidMetadata("an APP1 EXIF payload must start with \"Exif\\0\\0\"")
        }
        try ExifPayload.checkSize(payload.count)
        let segments = try JPEGSegment.header(of: jpeg)
        let length = payload.count + 2
        var out: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]
        out.reserveCapacity(jpeg.count + length + 2)
        out += payload
        var copied = 2
        for segment in segments where segment.isExif(in: jpeg) {
            out += jpeg[copied..<segment.start]
            copied = segment.end
        }
        out += jpeg[copied...]
        return out
    }

    /// `jpeg` with `metadata` encoded (in `byteOrder`) as its EXIF APP1 segment; see
    /// `inserting(exifPayload:into:)`.
    public static func inserting(_ metadata: ExifMetadata, into jpeg: [UInt8], byteOrder: TIFFByteOrder = .bigEndian) throws(MediaError) -> [UInt8] {
        try inserting(exifPayload: metadata.encoded(byteOrder: byteOrder), into: jpeg)
    }

    /// `jpeg` with the location removed from its EXIF: each EXIF APP1 segment is rewritten by
    /// `ExifPayload.removingLocation(from:)`, which keeps its length, so all bytes outside the
    /// GPS data and its pointer are unchanged. A JPEG without EXIF or GPS comes back as it was.
    ///
    /// Only EXIF is touched: location in XMP or in a maker note is not removed.
    public static func removingLocation(from jpeg: [UInt8]) throws(MediaError) -> [UInt8] {
        var out = jpeg
        for segment in try JPEGSegment.header(of: jpeg) where segment.isExif(in: jpeg) {
            let stripped = try ExifPayload.removingLocation(from: Array(jpeg[segment.payload]))
            out.replaceSubrange(segment.payload, with: stripped)
        }
        return out
    }
}
