import CPNG
import Glibc

/// How hard the PNG encoder compresses.
public enum PNGCompression: Sendable {
    /// zlib level 1 with the SUB filter: several times faster than libpng's defaults, files ~10–30% larger.
    case fast
    /// libpng's defaults (zlib level 6, adaptive filters).
    case balanced
    /// zlib level 9, adaptive filters: smallest files, slowest.
    case smallest

    var level: Int32 {
        switch self {
        case .fast: 1
        case .balanced: 6
        case .smallest: 9
        }
    }

    var filters: Int32 {
        switch self {
        case .fast: 0x10  // PNG_FILTER_SUB
        case .balanced, .smallest: 0  // libpng chooses
        }
    }
}

/// What a PNG's header says.
public struct PNGInfo: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bits per sample in the file (1, 2, 4, 8 or 16); decoding always gives 8.
    public let bitDepth: Int
    /// True for grey and grey+alpha images.
    public let isGrey: Bool
    /// True when the image carries alpha (a channel or a tRNS chunk is not distinguished here).
    public let hasAlphaChannel: Bool
}

/// PNG encoding and decoding with libpng (8-bit grey, RGB and RGBA).
///
/// Decoding reads the header first and refuses images over `DecodingLimits` before allocating
/// anything, so a 100 000 × 100 000 header in a tiny file costs nothing.
public enum PNGCodec {
    /// Encodes a GREY, RGB24, BGR24, RGBA or BGRA buffer (YUV buffers are converted to BGRA first),
    /// with optional tEXt chunks (key, value), in order, and an optional eXIf chunk from an EXIF
    /// payload ("Exif\0\0" + TIFF, as `ExifMetadata.encoded()` makes; the header is dropped).
    public static func encode(_ buffer: PixelBuffer, compression: PNGCompression = .fast, text: [(key: String, value: String)] = [],
                              exif: [UInt8]? = nil) throws(MediaError) -> [UInt8] {
        let source: PixelBuffer
        switch buffer.format {
        case .grey, .rgb24, .bgr24, .rgba, .bgra: source = buffer
        case .mjpeg: throw .unsupported("PNG encoding from an MJPEG payload; decode it first")
        default: source = try buffer.converted(to: .bgra)
        }
        let (channels, bgr): (Int32, Int32) = switch source.format {
        case .grey: (1, 0)
        case .rgb24: (3, 0)
        case .bgr24: (3, 1)
        case .rgba: (4, 0)
        default: (4, 1)
        }
        for entry in text where entry.key.isEmpty || entry.key.utf8.count > 79 || entry.key.contains("\0") || entry.value.contains("\0") {
            throw .encoderFailed(format: "PNG", reason: "text key '\(entry.key)' must be 1–79 bytes without NUL")
        }
        var output = pinhole_png_buffer()
        var error = [CChar](repeating: 0, count: Int(PINHOLE_PNG_ERROR_SIZE))
        // tEXt is Latin-1; keys here are ASCII and values (URIs, numbers) are percent-encoded ASCII.
        let keys = text.map { strdup($0.key) }
        let values = text.map { strdup($0.value) }
        defer { keys.forEach { free($0) }; values.forEach { free($0) } }
        var keyPointers: [UnsafePointer<CChar>?] = keys.map { UnsafePointer($0) }
        var valuePointers: [UnsafePointer<CChar>?] = values.map { UnsafePointer($0) }
        let tiff = exif.map { $0.starts(with: ExifPayload.header) ? Array($0.dropFirst(ExifPayload.header.count)) : $0 } ?? []
        let result = keyPointers.withUnsafeMutableBufferPointer { k in
            valuePointers.withUnsafeMutableBufferPointer { v in
                tiff.withUnsafeBufferPointer { e in
                    pinhole_png_encode(source.baseAddress(ofPlane: 0), UInt32(source.width), UInt32(source.height), source.planes[0].bytesPerRow,
                                       channels, bgr, compression.level, compression.filters,
                                       k.baseAddress, v.baseAddress, Int32(text.count), e.baseAddress, UInt32(e.count), &output, &error)
                }
            }
        }
        guard result == 0 else { throw .encoderFailed(format: "PNG", reason: error.nulTerminatedString) }
        defer { pinhole_png_buffer_free(&output) }
        return Array(UnsafeBufferPointer(start: output.data, count: output.size))
    }

    /// Reads the header without decoding.
    public static func info(_ data: UnsafeRawBufferPointer) throws(MediaError) -> PNGInfo {
        guard let base = data.baseAddress else { throw .corruptData(format: "PNG", reason: "the data is empty") }
        var info = pinhole_png_info()
        var error = [CChar](repeating: 0, count: Int(PINHOLE_PNG_ERROR_SIZE))
        guard pinhole_png_read_info(base.assumingMemoryBound(to: UInt8.self), data.count, &info, &error) == 0 else {
            throw .corruptData(format: "PNG", reason: error.nulTerminatedString)
        }
        return PNGInfo(width: Int(info.width), height: Int(info.height), bitDepth: Int(info.bit_depth),
                       isGrey: info.color_type & 2 == 0, hasAlphaChannel: info.color_type & 4 != 0)
    }

    /// Reads the header of `data`.
    public static func info(_ data: [UInt8]) throws(MediaError) -> PNGInfo {
        try data.withBytes { bytes throws(MediaError) in try info(bytes) }
    }

    /// Decodes to a new buffer of `format` (BGRA, RGBA, RGB24, BGR24 or GREY), refusing images over `maximumPixels`.
    public static func decode(_ data: UnsafeRawBufferPointer, to format: PixelFormat = .bgra, maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) -> PixelBuffer {
        let header = try info(data)
        try DecodingLimits.check(width: header.width, height: header.height, maximumPixels: maximumPixels)
        let (channels, bgr): (Int32, Int32)
        switch format {
        case .grey: (channels, bgr) = (1, 0)
        case .rgb24: (channels, bgr) = (3, 0)
        case .bgr24: (channels, bgr) = (3, 1)
        case .rgba: (channels, bgr) = (4, 0)
        case .bgra: (channels, bgr) = (4, 1)
        default: throw .unsupported("decoding PNG to \(format); decode to BGRA and convert")
        }
        let buffer = try PixelBuffer(format: format, width: header.width, height: header.height, rowAlignment: 16)
        var error = [CChar](repeating: 0, count: Int(PINHOLE_PNG_ERROR_SIZE))
        guard pinhole_png_decode(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, buffer.baseAddress(ofPlane: 0),
                                 buffer.planes[0].bytesPerRow, channels, bgr, UInt32(header.width), UInt32(header.height), &error) == 0 else {
            throw .corruptData(format: "PNG", reason: error.nulTerminatedString)
        }
        return buffer
    }

    /// Decodes `data` (see the raw-bytes form).
    public static func decode(_ data: [UInt8], to format: PixelFormat = .bgra, maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) -> PixelBuffer {
        try data.withBytes { bytes throws(MediaError) in try decode(bytes, to: format, maximumPixels: maximumPixels) }
    }
}
