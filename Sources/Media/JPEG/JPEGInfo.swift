import CTurboJPEG

/// Chroma subsampling of a JPEG.
public enum JPEGSubsampling: Sendable, Equatable {
    /// Full-resolution chroma.
    case s444
    /// Chroma halved horizontally (most MJPEG cameras).
    case s422
    /// Chroma halved both ways (most photos).
    case s420
    /// Luma only.
    case grey
    /// 4:4:0 or 4:1:1, which decode to RGB but not to Pinhole's planar formats.
    case other

    init(tj: Int32) {
        switch tj {
        case Int32(TJSAMP_444.rawValue): self = .s444
        case Int32(TJSAMP_422.rawValue): self = .s422
        case Int32(TJSAMP_420.rawValue): self = .s420
        case Int32(TJSAMP_GRAY.rawValue): self = .grey
        default: self = .other
        }
    }

    var tj: Int32 {
        switch self {
        case .s444: Int32(TJSAMP_444.rawValue)
        case .s422: Int32(TJSAMP_422.rawValue)
        case .s420, .other: Int32(TJSAMP_420.rawValue)
        case .grey: Int32(TJSAMP_GRAY.rawValue)
        }
    }

    /// The planar format a JPEG of this subsampling decodes to without resampling chroma.
    public var planarFormat: PixelFormat? {
        switch self {
        case .s444: .i444
        case .s422: .i422
        case .s420: .i420
        case .grey: .grey
        case .other: nil
        }
    }
}

/// DCT-domain scaling applied while decoding: far cheaper than decoding in full and shrinking.
public enum JPEGScale: Int, Sendable, CaseIterable, Comparable {
    /// 1/8 of each side.
    case eighth = 1
    /// 1/4 of each side.
    case quarter = 2
    /// 1/2 of each side.
    case half = 4
    /// Full size.
    case full = 8

    /// The side length after scaling (rounded up, as libjpeg does).
    public func scaled(_ side: Int) -> Int { (side * rawValue + 7) / 8 }

    /// The smallest scale whose result still has a longest side of at least `target` pixels.
    public static func smallest(forLongestSide longest: Int, atLeast target: Int) -> JPEGScale {
        allCases.first { $0.scaled(longest) >= target } ?? .full
    }

    /// Orders scales from smallest to full.
    public static func < (a: JPEGScale, b: JPEGScale) -> Bool { a.rawValue < b.rawValue }
}

/// What a JPEG's header says, read without decoding.
public struct JPEGInfo: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Chroma subsampling.
    public let subsampling: JPEGSubsampling
}

/// Cheap structural checks on JPEG bytes, done before handing them to a decoder.
public enum JPEGBytes {
    /// True when the bytes start with SOI and end with EOI (ignoring the zero padding some cameras append).
    /// A frame cut short by USB loss fails this in O(padding) time, without decoding.
    public static func looksComplete(_ data: UnsafeRawBufferPointer) -> Bool {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return false }
        var end = data.count
        let floor = max(2, data.count - 4096)
        while end > floor, data[end - 1] == 0 { end -= 1 }
        return end >= 4 && data[end - 2] == 0xFF && data[end - 1] == 0xD9
    }

    /// Throws `.corruptData` unless `looksComplete`.
    static func check(_ data: UnsafeRawBufferPointer) throws(MediaError) {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else {
            throw .corruptData(format: "JPEG", reason: "no start-of-image marker")
        }
        guard looksComplete(data) else {
            throw .corruptData(format: "JPEG", reason: "truncated: no end-of-image marker")
        }
    }
}

/// A TurboJPEG handle, created lazily and destroyed with its owner. Not thread-safe in itself:
/// owners use it only under their lock, which is why it may cross into a `Mutex`.
final class TurboJPEGHandle: @unchecked Sendable {
    let handle: tjhandle

    init(compress: Bool) throws(MediaError) {
        guard let handle = compress ? tjInitCompress() : tjInitDecompress() else {
            throw .encoderFailed(format: "JPEG", reason: "TurboJPEG could not start (out of memory?)")
        }
        self.handle = handle
    }

    deinit { tjDestroy(handle) }

    /// TurboJPEG's message for the last failure on this handle.
    var lastError: String {
        guard let message = tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: message)
    }
}
