import Foundation
import Media

/// What the library learns from a photo file's bytes: kind, size, date, orientation, location.
struct PhotoFile {
    let kind: ImageKind
    let width: Int
    let height: Int
    let metadata: ExifMetadata?
    /// The large (256 px) freedesktop thumbnail, made by the same small decode that checks the
    /// file, when asked for (not while rebuilding an index: thousands would not fit in memory).
    let thumbnail: PixelBuffer?

    /// Reads and checks `data`: it must be a JPEG, PNG, HEIF or WebP that decodes (a small DCT-scaled
    /// decode catches truncation and damage without decoding the whole image).
    init(data: [UInt8], name: String, keepThumbnail: Bool = false) throws(LibraryError) {
        guard !data.isEmpty else { throw .unsupportedFile(path: name, reason: "the file is empty") }
        guard let kind = ImageKind(sniffing: data) else {
            throw .unsupportedFile(path: name, reason: "it is not a JPEG, PNG, HEIF or WebP image")
        }
        do {
            switch kind {
            case .jpeg:
                let info = try JPEGDecoder().info(data)
                (width, height) = (info.width, info.height)
                metadata = try? JPEGExif.metadata(in: data)
            case .png:
                let info = try PNGCodec.info(data)
                (width, height) = (info.width, info.height)
                metadata = nil
            case .heif:
                let size = try HEIFCodec.size(data)
                (width, height) = (size.width, size.height)
                metadata = (try? HEIFCodec.exifPayload(data)).flatMap { $0 }.flatMap { try? ExifMetadata(exifPayload: $0) }
            case .webp:
                let info = try WebPCodec.info(data)
                (width, height) = (info.width, info.height)
                metadata = nil
            }
            try DecodingLimitsCheck.check(width: width, height: height)
            let made = try Thumbnailer().thumbnail(of: data, size: keepThumbnail ? .large : .normal)
            thumbnail = keepThumbnail ? made : nil
        } catch {
            throw .unsupportedFile(path: name, reason: error.description)
        }
        self.kind = kind
    }

    /// The usual extension.
    var fileExtension: String {
        switch kind {
        case .jpeg: "jpg"
        case .png: "png"
        case .heif: "heic"
        case .webp: "webp"
        }
    }

    /// Capture time from EXIF (seconds since 1970), if the file has one.
    var exifDate: Double? {
        guard let original = metadata?.dateTimeOriginal else { return nil }
        return (original.date ?? original.date(assuming: .current))?.timeIntervalSince1970
    }
}

/// The size limit imports share with the decoders.
enum DecodingLimitsCheck {
    static func check(width: Int, height: Int) throws(MediaError) {
        guard width > 0, height > 0, width <= DecodingLimits.maximumSide, height <= DecodingLimits.maximumSide,
              width * height <= DecodingLimits.maximumPixels else {
            throw .imageTooLarge(width: width, height: height, maximumPixels: DecodingLimits.maximumPixels)
        }
    }
}

/// A stable identifier from a file's content: 64-bit FNV-1a of the bytes with the length.
enum ContentHash {
    static func identifier(of data: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        data.withUnsafeBufferPointer { bytes in
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-" + String(data.count, radix: 16)
    }
}
