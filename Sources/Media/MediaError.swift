/// Everything that can go wrong in the `Media` module: one typed error, each case with a message
/// that says what happened (what to do is the caller's to say, in its own words).
public enum MediaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Width or height is zero, negative or beyond what the format allows.
    case invalidDimensions(width: Int, height: Int, reason: String)
    /// A row stride is smaller than one row of pixels.
    case strideTooSmall(plane: Int, bytesPerRow: Int, minimum: Int)
    /// The bytes given are fewer than the format and size need.
    case bufferTooShort(needed: Int, actual: Int)
    /// Two buffers that must match (size or format) do not.
    case mismatch(String)
    /// The conversion, rotation or scaling asked for is not supported for this format.
    case unsupported(String)
    /// The data is not a valid image of the kind claimed (bad signature, corrupt or truncated).
    case corruptData(format: String, reason: String)
    /// The image is larger than the limit set to guard against decompression bombs.
    case imageTooLarge(width: Int, height: Int, maximumPixels: Int)
    /// An encoder failed, or the encoder is not available on this system.
    case encoderFailed(format: String, reason: String)
    /// The EXIF block could not be read or written.
    case invalidMetadata(String)
    /// A pool has no free buffer left; the frame should be dropped, not waited for.
    case poolExhausted(capacity: Int)
    /// A file could not be read or written; `failure` keeps why (a full disk, permissions, …).
    case io(path: String, failure: FileFailure)

    /// A one-line explanation for people.
    public var description: String {
        switch self {
        case let .invalidDimensions(width, height, reason):
            return "Invalid image size \(width)×\(height): \(reason)."
        case let .strideTooSmall(plane, bytesPerRow, minimum):
            return "Row stride of plane \(plane) is \(bytesPerRow) bytes, smaller than one row (\(minimum) bytes)."
        case let .bufferTooShort(needed, actual):
            return "The pixel data has \(actual) bytes but the format and size need \(needed)."
        case let .mismatch(what):
            return "Buffers do not match: \(what)."
        case let .unsupported(what):
            return "Not supported: \(what)."
        case let .corruptData(format, reason):
            return "The \(format) data is damaged or not \(format): \(reason)."
        case let .imageTooLarge(width, height, maximumPixels):
            return "The image claims to be \(width)×\(height), over the limit of \(maximumPixels) pixels; refusing to decode it."
        case let .encoderFailed(format, reason):
            return "Could not encode \(format): \(reason)."
        case let .invalidMetadata(reason):
            return "Invalid EXIF metadata: \(reason)."
        case let .poolExhausted(capacity):
            return "All \(capacity) buffers of the pool are in use; drop this frame or release buffers sooner."
        case let .io(path, failure):
            return "Cannot access \(path): \(failure)."
        }
    }
}

/// Limits applied when decoding untrusted images, so a small file cannot make us allocate gigabytes.
public enum DecodingLimits {
    /// The largest pixel count any decoder accepts: 256 megapixels (a 1 GiB BGRA buffer).
    public static let maximumPixels = 1 << 28
    /// The largest width or height any decoder accepts.
    public static let maximumSide = 65_535

    /// Throws `.imageTooLarge` when `width`×`height` is over the limits, `.invalidDimensions` when zero.
    static func check(width: Int, height: Int, maximumPixels: Int = maximumPixels) throws(MediaError) {
        guard width > 0, height > 0 else {
            throw .invalidDimensions(width: width, height: height, reason: "the image declares an empty size")
        }
        guard width <= maximumSide, height <= maximumSide, width.multipliedReportingOverflow(by: height).partialValue <= maximumPixels else {
            throw .imageTooLarge(width: width, height: height, maximumPixels: maximumPixels)
        }
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for bodies with typed throws (the standard one only rethrows `any Error`).
    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(MediaError) -> R) throws(MediaError) -> R {
        let result: Result<R, MediaError> = withUnsafeBytes { bytes in Result { () throws(MediaError) in try body(bytes) } }
        return try result.get()
    }
}

extension Array where Element == CChar {
    /// The NUL-terminated C string held in this buffer (an error message filled by a C shim).
    package var nulTerminatedString: String {
        String(decoding: prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
