extension PNGCodec {
    /// The EXIF block of an eXIf chunk as an APP1-style payload ("Exif\0\0" + TIFF), if the PNG
    /// has one before its image data (the PNG 1.5 rule). Reads chunk headers only.
    public static func exifPayload(_ data: [UInt8]) -> [UInt8]? {
        var payload: [UInt8]?
        Chunks.png(data) { type, range in
            if type == "eXIf" {
                let block = Array(data[range])
                payload = block.starts(with: ExifPayload.header) ? block : ExifPayload.header + block
            }
            return type != "eXIf" && type != "IDAT"
        }
        return payload
    }

    /// The tEXt chunks before the image data, key to value (a thumbnail's Thumb::URI and
    /// Thumb::MTime), without decoding pixels; nil when `data` is not a PNG. A truncated file
    /// gives the chunks before the damage.
    public static func text(_ data: [UInt8]) -> [String: String]? {
        guard data.count > 8, Array(data.prefix(8)) == Chunks.pngSignature else { return nil }
        var result: [String: String] = [:]
        Chunks.png(data) { type, range in
            if type == "tEXt", let zero = data[range].firstIndex(of: 0) {
                result[String(decoding: data[range.lowerBound..<zero], as: UTF8.self)] = String(decoding: data[(zero + 1)..<range.upperBound], as: UTF8.self)
            }
            return type != "IDAT"
        }
        return result
    }
}
