/// Walks the chunk lists of PNG and RIFF (WebP) files from their headers alone, for the readers
/// and writers of metadata chunks (tEXt, eXIf, EXIF), so each does not parse lengths again.
enum Chunks {
    /// The PNG signature.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Calls `body` with each chunk's type and data range (its CRC follows the data), in order,
    /// until `body` returns false or the chunks end; IEND is the last one given. Returns false
    /// when `png` is not a PNG or a chunk runs past the end of the data (a truncated file).
    @discardableResult
    static func png(_ png: [UInt8], _ body: (_ type: String, _ data: Range<Int>) -> Bool) -> Bool {
        guard png.count > 8, Array(png.prefix(8)) == pngSignature else { return false }
        var offset = 8
        while offset + 12 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            let start = offset + 8
            guard start + length + 4 <= png.count else { return false }
            let type = String(decoding: png[(offset + 4)..<start], as: UTF8.self)
            guard body(type, start..<(start + length)), type != "IEND" else { return true }
            offset = start + length + 4
        }
        return true
    }

    /// Calls `body` with each chunk of a RIFF/WEBP file (type, data range), until it returns false;
    /// returns false when `data` is not a WebP or a chunk runs past the end.
    @discardableResult
    static func webp(_ data: [UInt8], _ body: (_ type: String, _ data: Range<Int>) -> Bool) -> Bool {
        guard data.count >= 12, Array(data.prefix(4)) == Array("RIFF".utf8), Array(data[8..<12]) == Array("WEBP".utf8) else { return false }
        var offset = 12
        while offset + 8 <= data.count {
            let length = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            let start = offset + 8
            guard start + length <= data.count else { return false }
            guard body(String(decoding: data[offset..<(offset + 4)], as: UTF8.self), start..<(start + length)) else { return true }
            offset = start + length + (length & 1)
        }
        return true
    }
}
