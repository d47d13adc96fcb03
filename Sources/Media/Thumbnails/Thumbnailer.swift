/// The freedesktop thumbnail sizes (the longest side in pixels).
public enum ThumbnailSize: Int, Sendable, CaseIterable {
    /// 128 px, `thumbnails/normal`.
    case normal = 128
    /// 256 px, `thumbnails/large`.
    case large = 256
    /// 512 px, `thumbnails/x-large`.
    case xLarge = 512
    /// 1024 px, `thumbnails/xx-large`.
    case xxLarge = 1024

    /// The cache folder name in the freedesktop thumbnail spec.
    public var folderName: String {
        switch self {
        case .normal: "normal"
        case .large: "large"
        case .xLarge: "x-large"
        case .xxLarge: "xx-large"
        }
    }
}

/// Makes small previews of still images quickly.
///
/// JPEGs decode with DCT scaling (1/2, 1/4, 1/8), so a 12 MP photo is never decoded at full size
/// for a 256 px thumbnail; HEIF uses the file's embedded thumbnail when it is large enough; WebP
/// decodes straight to the thumbnail size through libwebp's scaler; PNG decodes fully (it has no
/// cheaper path). The result is box-filtered down to fit, is never enlarged, and is turned upright
/// by the EXIF orientation of a JPEG, PNG or WebP (libheif applies HEIF's own transforms).
public struct Thumbnailer: Sendable {
    private let decoder = JPEGDecoder()

    /// Makes a thumbnailer (it keeps a JPEG decoder to reuse).
    public init() {}

    /// A BGRA thumbnail of the image in `data`, its longest side at most `longestSide`.
    public func thumbnail(of data: [UInt8], longestSide: Int) throws(MediaError) -> PixelBuffer {
        guard longestSide > 0 else { throw .invalidDimensions(width: longestSide, height: longestSide, reason: "a thumbnail needs a positive size") }
        guard let kind = ImageKind(sniffing: data) else {
            throw .corruptData(format: "image", reason: "not a JPEG, PNG, HEIF or WebP file")
        }
        let decoded: PixelBuffer
        switch kind {
        case .jpeg:
            decoded = try data.withBytes { bytes throws(MediaError) in
                let info = try decoder.info(bytes)
                let scale = JPEGScale.smallest(forLongestSide: max(info.width, info.height), atLeast: longestSide)
                return try decoder.decode(bytes, to: .bgra, scale: scale)
            }
        case .png:
            decoded = try PNGCodec.decode(data, to: .bgra)
        case .heif:
            decoded = try HEIFCodec.decode(data, to: .bgra, preferThumbnailOf: longestSide)
        case .webp:
            decoded = try WebPCodec.decode(data, fittingLongestSide: longestSide)
        }
        let size = PixelTransform.fitting(width: decoded.width, height: decoded.height, longestSide: longestSide)
        let fitted = size.width == decoded.width && size.height == decoded.height
            ? decoded : try PixelTransform.scaled(decoded, width: size.width, height: size.height, filter: .box)
        // HEIF's own transforms (irot, imir) are applied by libheif; its EXIF orientation must not be applied again.
        guard kind != .heif, let orientation = Thumbnailer.exifMetadata(in: data, kind: kind)?.orientation else { return fitted }
        return try PixelTransform.upright(fitted, orientation: orientation)
    }

    /// The EXIF metadata of a `kind` image, wherever the format keeps it (JPEG's APP1, PNG's eXIf
    /// chunk, HEIF's Exif item, WebP's EXIF chunk); nil when there is none or it cannot be read.
    public static func exifMetadata(in data: [UInt8], kind: ImageKind) -> ExifMetadata? {
        switch kind {
        case .jpeg: (try? JPEGExif.metadata(in: data)).flatMap { $0 }
        case .png: PNGCodec.exifPayload(data).flatMap { try? ExifMetadata(exifPayload: $0) }
        case .heif: (try? HEIFCodec.exifPayload(data)).flatMap { $0 }.flatMap { try? ExifMetadata(exifPayload: $0) }
        case .webp: WebPCodec.exifPayload(data).flatMap { try? ExifMetadata(exifPayload: $0) }
        }
    }

    /// A BGRA thumbnail of the image or movie file at `path` (a movie's first frame; a movie is
    /// never read whole).
    public func thumbnail(ofFile path: String, longestSide: Int) throws(MediaError) -> PixelBuffer {
        if MovieKind(sniffing: try FileBytes.read(path: path, limit: 64, truncating: true)) != nil {
            return try MovieFile(path: path).firstFrame(longestSide: longestSide)
        }
        return try thumbnail(of: FileBytes.read(path: path), longestSide: longestSide)
    }

    /// A thumbnail at one of the freedesktop sizes.
    public func thumbnail(of data: [UInt8], size: ThumbnailSize) throws(MediaError) -> PixelBuffer {
        try thumbnail(of: data, longestSide: size.rawValue)
    }
}
