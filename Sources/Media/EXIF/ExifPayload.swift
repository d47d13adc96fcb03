/// Operations on raw EXIF blocks, the payload of a JPEG's APP1 segment: "Exif\0\0" followed by
/// a TIFF structure. A bare TIFF block (as HEIF stores EXIF) is accepted wherever a payload is.
public enum ExifPayload {
    /// The six bytes that open an EXIF APP1 payload: "Exif\0\0".
    public static let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]

    /// The largest payload a JPEG APP1 segment can carry: 65535 minus the 2-byte length field.
    public static let maximumSize = 65_533

    /// A copy of `payload` without location: every GPS IFD, the values it points to, and the
    /// pointers to it are removed. Only those bytes change (the GPS bytes become zeros and the
    /// pointer's directory loses one entry); the block keeps its length, so offsets elsewhere,
    /// maker notes included, stay valid. A payload without GPS comes back unchanged.
    /// Throws `.corruptData` when the block is damaged.
    public static func removingLocation(from payload: [UInt8]) throws(MediaError) -> [UInt8] {
        let layout = try TIFFLayout(payload: payload)
        guard layout.hasGPSPointer else { return payload }
        let stripped = layout.removingGPS()
        // Belt and braces: never hand back a block that still leads to a GPS IFD.
        guard let check = try? TIFFLayout(payload: stripped), !check.hasGPSPointer else {
            throw .corruptData(format: "EXIF", reason: "the block is too damaged to remove its location safely")
        }
        return stripped
    }

    /// True when the block points to a GPS IFD. Throws `.corruptData` when the block is damaged.
    public static func containsLocation(_ payload: [UInt8]) throws(MediaError) -> Bool {
        try TIFFLayout(payload: payload).hasGPSPointer
    }

    /// `payload` with the "Exif\0\0" header, prepended when it is a bare TIFF block.
    static func withHeader(_ payload: [UInt8]) throws(MediaError) -> [UInt8] {
        try TIFFLayout.tiffStart(of: payload) == 0 ? header + payload : payload
    }

    /// Throws `.invalidMetadata` when `size` bytes do not fit in a JPEG APP1 segment.
    static func checkSize(_ size: Int) throws(MediaError) {
        guard size <= maximumSize else {
            throw .invalidMetadata("the EXIF block is \(size) bytes, more than the \(maximumSize) bytes a JPEG APP1 segment can hold")
        }
    }
}
