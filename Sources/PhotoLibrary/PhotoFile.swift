import Foundation
import Glibc
import Media

/// What the library learns from a photo file's bytes: kind, size, date, orientation, location.
struct PhotoFile {
    let kind: ImageKind
    let width: Int
    let height: Int
    let metadata: ExifMetadata?
    /// Whether the file holds a location in any metadata (see `Asset.hasLocation`).
    let hasLocation: Bool
    /// The large (256 px) freedesktop thumbnail, made by the same small decode that checks the
    /// file, when asked for (not while rebuilding an index: thousands would not fit in memory).
    let thumbnail: PixelBuffer?

    /// Reads and checks `data`: it must be a JPEG, PNG, HEIF or WebP that decodes (a small DCT-scaled
    /// decode catches truncation and damage without decoding the whole image).
    init(data: [UInt8], name: String, keepThumbnail: Bool = false) throws(LibraryError) {
        guard !data.isEmpty else { throw .unsupportedFile(path: name, reason: .empty) }
        guard let kind = ImageKind(sniffing: data) else {
            throw .unsupportedFile(path: name, reason: .notAnImage)
        }
        do {
            switch kind {
            case .jpeg:
                let info = try JPEGDecoder().info(data)
                (width, height) = (info.width, info.height)
            case .png:
                let info = try PNGCodec.info(data)
                (width, height) = (info.width, info.height)
            case .heif:
                let size = try HEIFCodec.size(data)
                (width, height) = (size.width, size.height)
            case .webp:
                let info = try WebPCodec.info(data)
                (width, height) = (info.width, info.height)
            }
            metadata = Thumbnailer.exifMetadata(in: data, kind: kind)
            hasLocation = PhotoLibrary.hasLocation(photo: data)
            try DecodingLimitsCheck.check(width: width, height: height)
            let made = try Thumbnailer().thumbnail(of: data, size: keepThumbnail ? .large : .normal)
            thumbnail = keepThumbnail ? made : nil
        } catch {
            throw .unsupportedFile(path: name, reason: .damaged(error))
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
    /// The identifier of bytes in memory.
    static func identifier(of data: [UInt8]) -> String {
        var hash = Hasher64()
        data.withUnsafeBufferPointer { hash.add($0) }
        return hash.identifier(length: data.count)
    }

    /// The identifier of a file's content, read in 1 MiB pieces (a movie never sits in memory).
    static func identifier(ofFile path: String) throws(LibraryError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotRead(path: path, failure: FileFailure(errno: errno)) }
        defer { close(fd) }
        var hash = Hasher64()
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        var length = 0
        while true {
            let got = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .cannotRead(path: path, failure: FileFailure(errno: errno)) }
            if got == 0 { break }
            chunk.withUnsafeBufferPointer { hash.add(UnsafeBufferPointer(rebasing: $0.prefix(got))) }
            length += got
        }
        return hash.identifier(length: length)
    }

    /// Whether two files hold the same bytes (compared piece by piece).
    static func sameContents(_ a: String, _ b: String) -> Bool {
        let first = open(a, O_RDONLY | O_CLOEXEC), second = open(b, O_RDONLY | O_CLOEXEC)
        defer { if first >= 0 { close(first) }; if second >= 0 { close(second) } }
        guard first >= 0, second >= 0 else { return false }
        var left = [UInt8](repeating: 0, count: 1 << 20), right = left
        while true {
            let got = left.withUnsafeMutableBytes { Glibc.read(first, $0.baseAddress!, $0.count) }
            guard got >= 0 else { return false }
            var have = 0
            while have < got {
                let more = right.withUnsafeMutableBytes { Glibc.read(second, $0.baseAddress! + have, got - have) }
                guard more > 0 else { return false }
                have += more
            }
            if got == 0 {
                var extra: UInt8 = 0
                return Glibc.read(second, &extra, 1) == 0
            }
            guard left.prefix(got) == right.prefix(got) else { return false }
        }
    }

    /// FNV-1a, 64 bits.
    private struct Hasher64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
            var hash = value
            for byte in bytes {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01b3
            }
            value = hash
        }

        func identifier(length: Int) -> String {
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex + "-" + String(length, radix: 16)
        }
    }
}
