import CYUV

/// A clockwise rotation by a multiple of 90°.
public enum Rotation: Int, Sendable, CaseIterable {
    /// No rotation.
    case none = 0
    /// 90° clockwise.
    case clockwise90 = 90
    /// 180°.
    case clockwise180 = 180
    /// 270° clockwise (90° counter-clockwise).
    case clockwise270 = 270

    /// The rotation for an angle in degrees (any multiple of 90, negative allowed).
    public init(degrees: Int) throws(MediaError) {
        guard degrees % 90 == 0 else { throw .unsupported("rotating by \(degrees)°; only multiples of 90° are supported") }
        self = Rotation(rawValue: ((degrees % 360) + 360) % 360)!
    }

    /// True when width and height trade places.
    public var swapsDimensions: Bool { self == .clockwise90 || self == .clockwise270 }

    var libyuv: RotationMode { RotationMode(UInt32(rawValue)) }
}

/// How scaling filters pixels.
public enum ScalingFilter: Sendable {
    /// Nearest neighbour: fastest, blocky.
    case nearest
    /// Bilinear: for live previews.
    case bilinear
    /// Box averaging: for strong downscaling (thumbnails) without aliasing.
    case box

    var libyuv: FilterMode {
        switch self {
        case .nearest: kFilterNone
        case .bilinear: kFilterBilinear
        case .box: kFilterBox
        }
    }
}

/// Geometric operations with libyuv on BGRA, I420 and GREY buffers (NV12 rotates into I420).
public enum PixelTransform {
    /// Rotates `source` clockwise into `destination` (same format, or I420 for an NV12 source;
    /// sides swapped for 90° and 270°).
    public static func rotate(_ source: PixelBuffer, by rotation: Rotation, into destination: PixelBuffer) throws(MediaError) {
        let w = rotation.swapsDimensions ? source.height : source.width
        let h = rotation.swapsDimensions ? source.width : source.height
        guard destination.width == w, destination.height == h else {
            throw .mismatch("rotating \(source.width)×\(source.height) by \(rotation.rawValue)° gives \(w)×\(h), not \(destination.width)×\(destination.height)")
        }
        let s = source, d = destination, sw = Int32(s.width), sh = Int32(s.height), mode = rotation.libyuv
        let result: Int32
        switch (s.format, d.format) {
        case (.bgra, .bgra), (.rgba, .rgba):
            result = ARGBRotate(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), sw, sh, mode)
        case (.i420, .i420):
            result = I420Rotate(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), s.baseAddress(ofPlane: 1), s.bytesPerRow(ofPlane: 1),
                                s.baseAddress(ofPlane: 2), s.bytesPerRow(ofPlane: 2), d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0),
                                d.baseAddress(ofPlane: 1), d.bytesPerRow(ofPlane: 1), d.baseAddress(ofPlane: 2), d.bytesPerRow(ofPlane: 2), sw, sh, mode)
        case (.nv12, .i420):
            result = NV12ToI420Rotate(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), s.baseAddress(ofPlane: 1), s.bytesPerRow(ofPlane: 1),
                                      d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), d.baseAddress(ofPlane: 1), d.bytesPerRow(ofPlane: 1),
                                      d.baseAddress(ofPlane: 2), d.bytesPerRow(ofPlane: 2), sw, sh, mode)
        case (.grey, .grey):
            RotatePlane(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), sw, sh, mode)
            result = 0
        default:
            throw .unsupported("rotating \(s.format) into \(d.format); convert to BGRA or I420 first")
        }
        guard result == 0 else { throw .unsupported("libyuv could not rotate \(s.format) \(s.width)×\(s.height)") }
    }

    /// Rotates into a new buffer (allocates).
    public static func rotated(_ source: PixelBuffer, by rotation: Rotation) throws(MediaError) -> PixelBuffer {
        let format: PixelFormat = source.format == .nv12 ? .i420 : source.format
        let destination = try PixelBuffer(format: format, width: rotation.swapsDimensions ? source.height : source.width,
                                          height: rotation.swapsDimensions ? source.width : source.height, rowAlignment: 16)
        try rotate(source, by: rotation, into: destination)
        return destination
    }

    /// Mirrors left–right (as a front camera's preview is shown) into `destination` of the same format and size.
    public static func mirror(_ source: PixelBuffer, into destination: PixelBuffer) throws(MediaError) {
        guard source.width == destination.width, source.height == destination.height, source.format == destination.format else {
            throw .mismatch("mirroring needs the same format and size on both sides")
        }
        let s = source, d = destination, w = Int32(s.width), h = Int32(s.height)
        let result: Int32
        switch s.format {
        case .bgra, .rgba:
            result = ARGBMirror(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), w, h)
        case .i420:
            result = I420Mirror(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), s.baseAddress(ofPlane: 1), s.bytesPerRow(ofPlane: 1),
                                s.baseAddress(ofPlane: 2), s.bytesPerRow(ofPlane: 2), d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0),
                                d.baseAddress(ofPlane: 1), d.bytesPerRow(ofPlane: 1), d.baseAddress(ofPlane: 2), d.bytesPerRow(ofPlane: 2), w, h)
        case .grey:
            MirrorPlane(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), w, h)
            result = 0
        default:
            throw .unsupported("mirroring \(s.format); convert to BGRA or I420 first")
        }
        guard result == 0 else { throw .unsupported("libyuv could not mirror \(s.format) \(s.width)×\(s.height)") }
    }

    /// Mirrors into a new buffer (allocates).
    public static func mirrored(_ source: PixelBuffer) throws(MediaError) -> PixelBuffer {
        let destination = try PixelBuffer(format: source.format, width: source.width, height: source.height, rowAlignment: 16)
        try mirror(source, into: destination)
        return destination
    }

    /// Scales `source` to the size of `destination` (same format).
    public static func scale(_ source: PixelBuffer, into destination: PixelBuffer, filter: ScalingFilter = .bilinear) throws(MediaError) {
        guard source.format == destination.format else { throw .mismatch("scaling keeps the format: \(source.format) into \(destination.format)") }
        let s = source, d = destination, mode = filter.libyuv
        let sw = Int32(s.width), sh = Int32(s.height), dw = Int32(d.width), dh = Int32(d.height)
        let result: Int32
        switch s.format {
        case .bgra, .rgba:
            result = ARGBScale(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), sw, sh, d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), dw, dh, mode)
        case .i420:
            result = I420Scale(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), s.baseAddress(ofPlane: 1), s.bytesPerRow(ofPlane: 1),
                               s.baseAddress(ofPlane: 2), s.bytesPerRow(ofPlane: 2), sw, sh, d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0),
                               d.baseAddress(ofPlane: 1), d.bytesPerRow(ofPlane: 1), d.baseAddress(ofPlane: 2), d.bytesPerRow(ofPlane: 2), dw, dh, mode)
        case .nv12:
            result = NV12Scale(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), s.baseAddress(ofPlane: 1), s.bytesPerRow(ofPlane: 1), sw, sh,
                               d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), d.baseAddress(ofPlane: 1), d.bytesPerRow(ofPlane: 1), dw, dh, mode)
        case .grey:
            ScalePlane(s.baseAddress(ofPlane: 0), s.bytesPerRow(ofPlane: 0), sw, sh, d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0), dw, dh, mode)
            result = 0
        default:
            throw .unsupported("scaling \(s.format); convert to BGRA, I420 or NV12 first")
        }
        guard result == 0 else { throw .unsupported("libyuv could not scale \(s.format) \(s.width)×\(s.height) to \(d.width)×\(d.height)") }
    }

    /// Scales into a new buffer of `width`×`height` (allocates).
    public static func scaled(_ source: PixelBuffer, width: Int, height: Int, filter: ScalingFilter = .bilinear) throws(MediaError) -> PixelBuffer {
        let destination = try PixelBuffer(format: source.format, width: width, height: height, rowAlignment: 16)
        try scale(source, into: destination, filter: filter)
        return destination
    }

    /// The picture as it should be shown: `source` (stored pixels) mirrored and rotated as its
    /// EXIF `orientation` says (allocates; BGRA, I420 and GREY).
    public static func upright(_ source: PixelBuffer, orientation: ExifOrientation) throws(MediaError) -> PixelBuffer {
        var image = source
        if orientation.isMirrored { image = try mirrored(image) }
        let rotation = try Rotation(degrees: orientation.clockwiseRotation)
        if rotation != .none { image = try rotated(image, by: rotation) }
        return image
    }

    /// The size that fits `width`×`height` into a square of `longestSide`, keeping the aspect ratio (at least 1×1).
    public static func fitting(width: Int, height: Int, longestSide: Int) -> (width: Int, height: Int) {
        guard width > longestSide || height > longestSide else { return (width, height) }
        if width >= height {
            return (longestSide, max(1, Int((Double(height) * Double(longestSide) / Double(width)).rounded())))
        }
        return (max(1, Int((Double(width) * Double(longestSide) / Double(height)).rounded())), longestSide)
    }
}
