/// The movie container formats Pinhole reads and writes, recognised by their first bytes.
public enum MovieKind: String, Sendable, CaseIterable {
    /// ISO base media (MP4, M4V).
    case mp4
    /// QuickTime (MOV), the same box structure with the `qt  ` brand.
    case mov
    /// WebM (Matroska with the `webm` doctype).
    case webm
    /// Matroska (MKV).
    case matroska

    /// The kind of `data`'s first bytes, or nil. Matroska and WebM differ only in their doctype,
    /// which `MovieInfo` reads; HEIF stills (also `ftyp` boxes) are not movies.
    public init?(sniffing data: [UInt8]) {
        if data.count >= 12, Array(data[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: data[8..<12], as: UTF8.self)
            if brand == "qt  " { self = .mov; return }
            guard ["isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VP", "dash", "3gp4", "3gp5", "3g2a", "MSNV"]
                .contains(brand) else { return nil }
            self = .mp4
        } else if data.count >= 4, Array(data.prefix(4)) == [0x1A, 0x45, 0xDF, 0xA3] {
            // The EBML header's DocType: "webm" or "matroska" within the first few dozen bytes.
            let head = Array(data.prefix(64))
            self = head.indices.contains { index in index + 4 <= head.count && Array(head[index..<(index + 4)]) == Array("webm".utf8) }
                ? .webm : .matroska
        } else {
            return nil
        }
    }

    /// The usual file extension.
    public var fileExtension: String {
        switch self {
        case .mp4: "mp4"
        case .mov: "mov"
        case .webm: "webm"
        case .matroska: "mkv"
        }
    }

    /// The MIME type.
    public var mimeType: String {
        switch self {
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .webm: "video/webm"
        case .matroska: "video/x-matroska"
        }
    }
}
