/// The byte order of the TIFF structure inside an EXIF block.
public enum TIFFByteOrder: Sendable, Hashable, CaseIterable {
    /// "MM" (Motorola): most significant byte first. libexif's and exiftool's default.
    case bigEndian
    /// "II" (Intel): least significant byte first, as most cameras write.
    case littleEndian
}
