extension WebPCodec {
    /// The EXIF block of an extended WebP's "EXIF" chunk as an APP1-style payload ("Exif\0\0" +
    /// TIFF; the chunk holds the TIFF block, some writers add the header), if it has one.
    public static func exifPayload(_ data: [UInt8]) -> [UInt8]? {
        var payload: [UInt8]?
        Chunks.webp(data) { type, range in
            guard type == "EXIF" else { return true }
            let block = Array(data[range])
            payload = block.starts(with: ExifPayload.header) ? block : ExifPayload.header + block
            return false
        }
        return payload
    }
}
