import Media
import TestSupport

/// An RGB colour for tests.
struct RGB: Equatable, CustomStringConvertible {
    var r: Int, g: Int, b: Int
    var description: String { "(\(r),\(g),\(b))" }

    /// Full-range luma, as GREY frames carry it.
    var luma: Int { Int((0.299 * Double(r) + 0.587 * Double(g) + 0.114 * Double(b)).rounded()) }

    /// BT.601 limited-range Y'CbCr, computed by the textbook formula (independent of libyuv).
    var ycbcr: (y: UInt8, cb: UInt8, cr: UInt8) {
        let r = Double(self.r), g = Double(self.g), b = Double(self.b)
        func c(_ x: Double) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
        return (c(16 + (65.481 * r + 128.553 * g + 24.966 * b) / 255),
                c(128 + (-37.797 * r - 74.203 * g + 112.0 * b) / 255),
                c(128 + (112.0 * r - 93.786 * g - 18.214 * b) / 255))
    }
}

/// The eight 75% SMPTE-style colour bars: white, yellow, cyan, green, magenta, red, blue, black.
let colourBars: [RGB] = [
    RGB(r: 191, g: 191, b: 191), RGB(r: 191, g: 191, b: 0), RGB(r: 0, g: 191, b: 191), RGB(r: 0, g: 191, b: 0),
    RGB(r: 191, g: 0, b: 191), RGB(r: 191, g: 0, b: 0), RGB(r: 0, g: 0, b: 191), RGB(r: 16, g: 16, b: 16),
]

/// Packs an image given by `colour(x, y)` into the bytes of `format`, by hand, the way V4L2
/// documents each layout. Chroma is taken from the top-left pixel of each subsampled block,
/// so images whose colours change only on even boundaries pack exactly.
func packFrame(_ format: PixelFormat, width: Int, height: Int, colour: (Int, Int) -> RGB) -> [UInt8] {
    let halfW = (width + 1) / 2, halfH = (height + 1) / 2
    var out: [UInt8] = []
    func px(_ x: Int, _ y: Int) -> RGB { colour(min(x, width - 1), min(y, height - 1)) }
    switch format {
    case .bgra, .rgba, .rgb24, .bgr24:
        for y in 0..<height {
            for x in 0..<width {
                let c = px(x, y)
                switch format {
                case .bgra: out += [UInt8(c.b), UInt8(c.g), UInt8(c.r), 255]
                case .rgba: out += [UInt8(c.r), UInt8(c.g), UInt8(c.b), 255]
                case .rgb24: out += [UInt8(c.r), UInt8(c.g), UInt8(c.b)]
                default: out += [UInt8(c.b), UInt8(c.g), UInt8(c.r)]
                }
            }
        }
    case .grey:
        for y in 0..<height { for x in 0..<width { out.append(UInt8(px(x, y).luma)) } }
    case .yuyv, .uyvy:
        for y in 0..<height {
            for pair in 0..<halfW {
                let a = px(2 * pair, y).ycbcr, b = px(2 * pair + 1, y).ycbcr
                out += format == .yuyv ? [a.y, a.cb, b.y, a.cr] : [a.cb, a.y, a.cr, b.y]
            }
        }
    case .nv12, .nv21, .i420, .yv12, .i422, .i444:
        for y in 0..<height { for x in 0..<width { out.append(px(x, y).ycbcr.y) } }
        let (cw, ch, sx, sy): (Int, Int, Int, Int) = switch format {
        case .i422: (halfW, height, 2, 1)
        case .i444: (width, height, 1, 1)
        default: (halfW, halfH, 2, 2)
        }
        var cb: [UInt8] = [], cr: [UInt8] = []
        for y in 0..<ch { for x in 0..<cw { let c = px(x * sx, y * sy).ycbcr; cb.append(c.cb); cr.append(c.cr) } }
        switch format {
        case .nv12: for i in cb.indices { out += [cb[i], cr[i]] }
        case .nv21: for i in cb.indices { out += [cr[i], cb[i]] }
        case .yv12: out += cr + cb
        default: out += cb + cr
        }
    case .mjpeg:
        fatalError("packFrame makes raw frames only")
    }
    return out
}

/// The colour of the bar at column `x` in a frame `width` wide.
func bar(atX x: Int, width: Int) -> RGB { colourBars[min(7, x * 8 / width)] }

/// Every raw (uncompressed) format.
let rawFormats = PixelFormat.allCases.filter { !$0.isCompressed }

/// The largest per-channel difference between a BGRA pixel and an expected colour.
func channelError(_ p: (b: UInt8, g: UInt8, r: UInt8, a: UInt8), _ c: RGB) -> Int {
    max(abs(Int(p.r) - c.r), abs(Int(p.g) - c.g), abs(Int(p.b) - c.b))
}

/// The deterministic photo-like BGRA image the tests encode and convert (`SyntheticImage.photoLike`).
func photoLikeImage(width: Int, height: Int, seed: UInt64 = 1) throws -> PixelBuffer {
    try SyntheticImage.photoLike(width: width, height: height, seed: seed)
}

/// Mean absolute difference per channel between two BGRA buffers of the same size.
func meanAbsoluteError(_ a: PixelBuffer, _ b: PixelBuffer, channels: Int = 3) -> Double {
    precondition(a.width == b.width && a.height == b.height && a.format == .bgra && b.format == .bgra)
    var total = 0
    for y in 0..<a.height {
        let ra = a.baseAddress(ofPlane: 0) + y * a.planes[0].bytesPerRow
        let rb = b.baseAddress(ofPlane: 0) + y * b.planes[0].bytesPerRow
        for x in 0..<a.width { for c in 0..<channels { total += abs(Int(ra[x * 4 + c]) - Int(rb[x * 4 + c])) } }
    }
    return Double(total) / Double(a.width * a.height * channels)
}
