/// Removes where a photo was taken from its file, for sharing: the GPS part of the EXIF block,
/// wherever the container keeps it. Every other byte of the file stays as it was (the block keeps
/// its length: see `ExifPayload.removingLocation`), so the picture is never re-encoded.
///
/// Only EXIF is touched: location written into XMP or a maker note is not removed.
public enum LocationRemoval {
    /// A copy of the JPEG, PNG, HEIF or WebP file `data` without EXIF location. A file without
    /// location comes back unchanged; another kind of file throws `.unsupported`.
    public static func removingLocation(from data: [UInt8]) throws(MediaError) -> [UInt8] {
        switch ImageKind(sniffing: data) {
        case .jpeg: return try JPEGExif.removingLocation(from: data)
        case .png: return try png(data)
        case .heif: return try heif(data)
        case .webp: return try webp(data)
        case nil: throw .unsupported("removing the location from this kind of file (JPEG, PNG, HEIF and WebP are supported)")
        }
    }

    /// Copies the movie at `source` to `path` (the first free "name (n).ext" beside it when taken)
    /// without the metadata that says where it was recorded (MP4's ©xyz, QuickTime's ISO 6709
    /// key); the streams are copied, not re-encoded. Returns the path written.
    public static func copyMovie(from source: String, to path: String) throws(MediaError) -> String {
        try MovieRemuxer.copyWithoutLocation(from: source, to: path)
    }

    /// PNG keeps EXIF in an eXIf chunk (a bare TIFF block): strip it and recompute the chunk's CRC.
    static func png(_ data: [UInt8]) throws(MediaError) -> [UInt8] {
        var out = data
        var failure: MediaError?
        let whole = Chunks.png(data) { type, range in
            guard type == "eXIf" else { return true }
            do throws(MediaError) {
                let stripped = try ExifPayload.removingLocation(from: Array(data[range]))
                out.replaceSubrange(range, with: stripped)
                let crc = CRC32.checksum(Array(type.utf8) + stripped)
                out.replaceSubrange(range.upperBound..<(range.upperBound + 4), with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        guard whole else { throw .corruptData(format: "PNG", reason: "a chunk runs past the end of the file") }
        return out
    }

    /// HEIF stores the EXIF item's bytes verbatim (in `mdat` or `idat`, found through `iloc`):
    /// the TIFF block libheif reads is found in the file and replaced in place by its stripped
    /// twin of the same length, so no box offset changes.
    static func heif(_ data: [UInt8]) throws(MediaError) -> [UInt8] {
        guard let block = try HEIFCodec.exifTIFFBlock(data), try ExifPayload.containsLocation(block) else { return data }
        let stripped = try ExifPayload.removingLocation(from: block)
        guard let start = find(block, in: data) else {
            throw .unsupported("removing the location from this HEIF file (its EXIF item is not stored in one piece)")
        }
        var out = data
        out.replaceSubrange(start..<(start + block.count), with: stripped)
        return out
    }

    /// WebP keeps EXIF in an "EXIF" RIFF chunk (a TIFF block, sometimes with the "Exif\0\0" header).
    static func webp(_ data: [UInt8]) throws(MediaError) -> [UInt8] {
        var out = data
        var failure: MediaError?
        let whole = Chunks.webp(data) { type, range in
            guard type == "EXIF" else { return true }
            do throws(MediaError) {
                out.replaceSubrange(range, with: try ExifPayload.removingLocation(from: Array(data[range])))
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        guard whole else { throw .corruptData(format: "WebP", reason: "a chunk runs past the end of the file") }
        return out
    }

    /// The first index where `needle` occurs in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count >= 8, needle.count <= haystack.count else { return nil }
        let first = needle[0]
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
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
