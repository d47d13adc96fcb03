/// The still-image container formats Pinhole reads, recognised by their first bytes (not by name).
public enum ImageKind: String, Sendable, CaseIterable {
    /// JPEG (JFIF or EXIF).
    case jpeg
    /// PNG.
    case png
    /// HEIF/HEIC (and AVIF, which libheif also reads).
    case heif
    /// WebP (still images; animated WebP is recognised but not decoded).
    case webp

    /// The kind of `data`, or nil when it is none of them.
    public init?(sniffing data: UnsafeRawBufferPointer) {
        if data.count >= 3, data[0] == 0xFF, data[1] == 0xD8, data[2] == 0xFF {
            self = .jpeg
        } else if data.count >= 8, Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            self = .png
        } else if data.count >= 12, Array(data[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: data[8..<12], as: UTF8.self)
            guard ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"].contains(brand) else { return nil }
            self = .heif
        } else if data.count >= 12, Array(data[0..<4]) == Array("RIFF".utf8), Array(data[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }

    /// The kind of `data`, or nil.
    public init?(sniffing data: [UInt8]) {
        guard let kind = data.withUnsafeBytes({ ImageKind(sniffing: $0) }) else { return nil }
        self = kind
    }

    /// The MIME type.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heif: "image/heif"
        case .webp: "image/webp"
        }
    }
}
