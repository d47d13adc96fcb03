extension WebPCodec {
    /// The EXIF block of an extended WebP's "EXIF" chunk as an APP1-style payload ("Exif\0\0" +
    /// TIFF; the chunk holds the TIFF block, some writers add the header), if it has one.
    public static func exifPayload(_ data: [UInt8]) -> [UInt8]? {
        guard data.count >= 12, Array(data.prefix(4)) == Array("RIFF".utf8), Array(data[8..<12]) == Array("WEBP".utf8) else { return nil }
        var offset = 12
        while offset + 8 <= data.count {
            let length = Int(data[offset + 4]) | Int(data[offset + 5]) << 8 | Int(data[offset + 6]) << 16 | Int(data[offset + 7]) << 24
            let start = offset + 8
            guard start + length <= data.count else { return nil }
            if Array(data[offset..<(offset + 4)]) == Array("EXIF".utf8) {
                let block = Array(data[start..<(start + length)])
                return block.starts(with: ExifPayload.header) ? block : ExifPayload.header + block
            }
            offset = start + length + (length & 1)
        }
        return nil
    }
}
