extension PNGCodec {
    /// The EXIF block of an eXIf chunk as an APP1-style payload ("Exif\0\0" + TIFF), if the PNG
    /// has one before its image data (the PNG 1.5 rule). Reads chunk headers only.
    public static func exifPayload(_ data: [UInt8]) -> [UInt8]? {
        guard data.count > 8, Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else { return nil }
        var offset = 8
        while offset + 12 <= data.count {
            let length = Int(data[offset]) << 24 | Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            let start = offset + 8
            guard length >= 0, start + length + 4 <= data.count else { return nil }
            switch String(decoding: data[(offset + 4)..<start], as: UTF8.self) {
            case "eXIf":
                let block = Array(data[start..<(start + length)])
                return block.starts(with: ExifPayload.header) ? block : ExifPayload.header + block
            case "IDAT", "IEND":
                return nil
            default:
                offset = start + length + 4
            }
        }
        return nil
    }
}
