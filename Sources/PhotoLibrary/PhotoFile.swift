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

    /// Reads and checks the photo file at `path`: opened as a regular file only, its kind sniffed
    /// from its first bytes before the rest is read (`SniffedFile`). Returns its bytes too.
    static func read(path: String, keepThumbnail: Bool = false) throws(LibraryError) -> (data: [UInt8], file: PhotoFile) {
        let data = try SniffedFile(path: path).imageBytes()
        return (data, try PhotoFile(data: data, name: path, keepThumbnail: keepThumbnail))
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

/// A file given to the library or found in its folders, opened through `RegularFile` (a regular
/// file only: a FIFO, a device or a folder is refused at once, never waited on) and its kind
/// sniffed from its first 64 bytes before anything else is read: a file that is no photo or
/// movie costs one small read, whatever its size.
struct SniffedFile {
    /// The open file.
    let file: RegularFile
    /// Its movie container, when it starts like one.
    let movie: MovieKind?
    /// Its image format, when it starts like one.
    let image: ImageKind?

    /// Opens the file at `path` and reads its first bytes. Throws `.cannotRead` (with the
    /// `FileFailure`, `.notRegularFile` among them) or `.unsupportedFile(…, .empty)`.
    init(path: String) throws(LibraryError) {
        let head: [UInt8]
        do throws(MediaError) {
            file = try RegularFile(path: path)
            head = try file.read(upTo: 64)
        } catch {
            throw .reading(path, error)
        }
        guard !head.isEmpty else { throw .unsupportedFile(path: path, reason: .empty) }
        movie = MovieKind(sniffing: head)
        image = ImageKind(sniffing: head)
    }

    /// The whole file, when it starts like a photo (up to `FileBytes.defaultLimit`); refused
    /// as not an image before anything more is read otherwise.
    func imageBytes() throws(LibraryError) -> [UInt8] {
        guard image != nil else { throw .unsupportedFile(path: file.path, reason: .notAnImage) }
        guard file.size <= FileBytes.defaultLimit else {
            throw .cannotRead(path: file.path, failure: .tooLarge(size: file.size, limit: FileBytes.defaultLimit))
        }
        do { return try file.readAll() } catch { throw .reading(file.path, error) }
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
        let file: RegularFile
        do { file = try RegularFile(path: path) } catch { throw .reading(path, error) }
        defer { withExtendedLifetime(file) {} }
        let fd = file.descriptor
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
        guard let one = try? RegularFile(path: a), let other = try? RegularFile(path: b) else { return false }
        defer { withExtendedLifetime((one, other)) {} }
        let first = one.descriptor, second = other.descriptor
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
