/// Walks the chunk lists of PNG and RIFF (WebP) files from their headers alone, for the readers
/// and writers of metadata chunks (tEXt, eXIf, EXIF), so each does not parse lengths again.
/// Lengths are read and added through `UntrustedBytes`: a chunk that claims more bytes than
/// remain (up to 4 GiB) ends the walk as a truncated file.
enum Chunks {
    /// The PNG signature.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Calls `body` with each chunk's type and data range (its CRC follows the data), in order,
    /// until `body` returns false or the chunks end; IEND is the last one given. Returns false
    /// when `png` is not a PNG or a chunk runs past the end of the data (a truncated file).
    @discardableResult
    static func png(_ png: [UInt8], _ body: (_ type: String, _ data: Range<Int>) -> Bool) -> Bool {
        guard png.count > 8, Array(png.prefix(8)) == pngSignature else { return false }
        let reader = UntrustedBytes(png, format: "PNG")
        var offset = 8
        do throws(MediaError) {
            while reader.contains(offset, length: 12) {
                let data = try reader.range(at: offset + 8, length: try reader.u32(at: offset, .bigEndian))
                let crc = try reader.range(at: data.upperBound, length: 4)
                let type = try reader.fourCC(at: offset + 4)
                guard body(type, data), type != "IEND" else { return true }
                offset = crc.upperBound
            }
        } catch {
            return false
        }
        return true
    }

    /// Calls `body` with each chunk of a RIFF/WEBP file (type, data range), until it returns false;
    /// returns false when `data` is not a WebP or a chunk runs past the end.
    @discardableResult
    static func webp(_ data: [UInt8], _ body: (_ type: String, _ data: Range<Int>) -> Bool) -> Bool {
        guard data.count >= 12, Array(data.prefix(4)) == Array("RIFF".utf8), Array(data[8..<12]) == Array("WEBP".utf8) else { return false }
        let reader = UntrustedBytes(data, format: "WebP")
        var offset = 12
        do throws(MediaError) {
            while reader.contains(offset, length: 8) {
                let chunk = try reader.range(at: offset + 8, length: try reader.u32(at: offset + 4, .littleEndian))
                guard body(try reader.fourCC(at: offset), chunk) else { return true }
                offset = try reader.sum(chunk.upperBound, chunk.count & 1)  // chunks are padded to an even length
            }
        } catch {
            return false
        }
        return true
    }
}
