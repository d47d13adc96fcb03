/// The pixel layouts Pinhole handles, named by what lies in memory, byte by byte.
///
/// Packed RGB names list bytes in memory order: `.bgra` is B,G,R,A (libyuv calls it "ARGB",
/// V4L2 `AR24`/`XR24`, Cairo/GTK `ARGB32` on little-endian); `.rgb24` is R,G,B (V4L2 `RGB3`).
/// YUV formats are 8-bit with BT.601 limited range unless a converter says otherwise.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// B, G, R, A — 4 bytes per pixel.
    case bgra
    /// R, G, B, A — 4 bytes per pixel.
    case rgba
    /// R, G, B — 3 bytes per pixel.
    case rgb24
    /// B, G, R — 3 bytes per pixel.
    case bgr24
    /// Luma only, full range — 1 byte per pixel.
    case grey
    /// Packed 4:2:2, Y0 U Y1 V.
    case yuyv
    /// Packed 4:2:2, U Y0 V Y1.
    case uyvy
    /// 4:2:0, Y plane then one interleaved U,V plane.
    case nv12
    /// 4:2:0, Y plane then one interleaved V,U plane.
    case nv21
    /// 4:2:0, planes Y, U, V (V4L2 `YU12`).
    case i420
    /// 4:2:0, planes Y, V, U.
    case yv12
    /// 4:2:2 planar, Y, U, V (what most MJPEG cameras decode to).
    case i422
    /// 4:4:4 planar, Y, U, V.
    case i444
    /// A compressed Motion-JPEG frame, one JPEG per frame, as cameras send it.
    case mjpeg

    /// The name people know it by.
    public var description: String {
        switch self {
        case .bgra: "BGRA"
        case .rgba: "RGBA"
        case .rgb24: "RGB24"
        case .bgr24: "BGR24"
        case .grey: "GREY"
        case .yuyv: "YUYV"
        case .uyvy: "UYVY"
        case .nv12: "NV12"
        case .nv21: "NV21"
        case .i420: "I420"
        case .yv12: "YV12"
        case .i422: "I422"
        case .i444: "I444"
        case .mjpeg: "MJPEG"
        }
    }

    /// The V4L2 four-character code of this layout.
    public var fourCC: UInt32 {
        func code(_ s: StaticString) -> UInt32 {
            let p = s.utf8Start
            return UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
        }
        switch self {
        case .bgra: return code("AR24")  // V4L2_PIX_FMT_ABGR32: B,G,R,A in memory
        case .rgba: return code("AB24")  // V4L2_PIX_FMT_RGBA32: R,G,B,A in memory
        case .rgb24: return code("RGB3")
        case .bgr24: return code("BGR3")
        case .grey: return code("GREY")
        case .yuyv: return code("YUYV")
        case .uyvy: return code("UYVY")
        case .nv12: return code("NV12")
        case .nv21: return code("NV21")
        case .i420: return code("YU12")
        case .yv12: return code("YV12")
        case .i422: return code("422P")
        case .i444: return code("444P")
        case .mjpeg: return code("MJPG")
        }
    }

    /// The format with this V4L2 four-character code, if Pinhole handles it.
    public init?(fourCC: UInt32) {
        if fourCC == PixelFormat.bgra.fourCC || fourCC == 0x3432_5258 /* XR24 */ {
            self = .bgra
            return
        }
        if fourCC == 0x4745_504A /* JPEG */ {
            self = .mjpeg
            return
        }
        guard let match = PixelFormat.allCases.first(where: { $0.fourCC == fourCC }) else { return nil }
        self = match
    }

    /// True for `.mjpeg`: the bytes are a compressed payload, not rows of pixels.
    public var isCompressed: Bool { self == .mjpeg }

    /// True for the Y'CbCr layouts.
    public var isYUV: Bool {
        switch self {
        case .yuyv, .uyvy, .nv12, .nv21, .i420, .yv12, .i422, .i444: true
        default: false
        }
    }

    /// Number of planes in memory.
    public var planeCount: Int {
        switch self {
        case .nv12, .nv21: 2
        case .i420, .yv12, .i422, .i444: 3
        default: 1
        }
    }

    /// Bytes per pixel of the first plane's rows (for packed 4:2:2, per pixel of a pair: 2).
    var bytesPerPixel: Int {
        switch self {
        case .bgra, .rgba: 4
        case .rgb24, .bgr24: 3
        case .yuyv, .uyvy: 2
        case .grey, .nv12, .nv21, .i420, .yv12, .i422, .i444, .mjpeg: 1
        }
    }

    /// Whether `width` and `height` are acceptable for this layout.
    func validate(width: Int, height: Int) throws(MediaError) {
        guard width > 0, height > 0 else {
            throw .invalidDimensions(width: width, height: height, reason: "width and height must be at least 1")
        }
        guard width <= DecodingLimits.maximumSide, height <= DecodingLimits.maximumSide else {
            throw .invalidDimensions(width: width, height: height, reason: "each side must be at most \(DecodingLimits.maximumSide)")
        }
    }

    /// For each plane: the minimum bytes of one row and the number of rows, at `width`×`height`.
    /// Chroma planes of subsampled formats round odd sizes up, as libyuv and V4L2 do.
    /// For `.mjpeg` this describes nothing useful; compressed buffers size themselves by payload.
    public func planeGeometry(width: Int, height: Int) -> [(rowBytes: Int, rows: Int)] {
        let halfW = (width + 1) / 2
        let halfH = (height + 1) / 2
        switch self {
        case .bgra, .rgba: return [(width * 4, height)]
        case .rgb24, .bgr24: return [(width * 3, height)]
        case .grey: return [(width, height)]
        case .yuyv, .uyvy: return [(halfW * 4, height)]
        case .nv12, .nv21: return [(width, height), (halfW * 2, halfH)]
        case .i420, .yv12: return [(width, height), (halfW, halfH), (halfW, halfH)]
        case .i422: return [(width, height), (halfW, height), (halfW, height)]
        case .i444: return [(width, height), (width, height), (width, height)]
        case .mjpeg: return [(width, height)]
        }
    }
}
