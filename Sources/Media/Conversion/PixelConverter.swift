import CYUV

/// Converts frames between pixel formats with libyuv, in place into a caller's buffer.
///
/// Every raw format converts to every raw format. Common pairs go in one libyuv call
/// (anything → BGRA, anything → I420/YV12, I420 → NV12/NV21/YUYV/UYVY/RGB); the rest go
/// through one BGRA intermediate that the converter keeps and reuses, so a steady stream of
/// frames allocates nothing. MJPEG sources decode with `JPEGDecoder`. YUV uses the BT.601 matrix
/// in the range each buffer's `yuvRange` says (video range for cameras' raw YUV, full for JPEG's).
public final class PixelConverter: Sendable {
    private let scratch = Lock<PixelBuffer?>(nil)
    private let jpeg = JPEGDecoder()

    /// Makes a converter; keep one per stream to reuse its intermediate buffer.
    public init() {}

    /// Converts `source` into `destination`, which must have the same width and height.
    public func convert(_ source: PixelBuffer, into destination: PixelBuffer) throws(MediaError) {
        guard source.width == destination.width, source.height == destination.height else {
            throw .mismatch("source is \(source.width)×\(source.height) but destination is \(destination.width)×\(destination.height); use PixelTransform.scale to resize")
        }
        guard !destination.format.isCompressed else {
            throw .unsupported("converting to MJPEG; use JPEGEncoder")
        }
        if source.format == .mjpeg {
            try jpeg.decode(source, into: destination)
            return
        }
        if try PixelConverter.direct(source, destination) { return }
        // Two steps through BGRA, which every format converts to and from.
        try scratch.withLock { cached throws(MediaError) in
            let intermediate: PixelBuffer
            if let cached, cached.width == source.width, cached.height == source.height {
                intermediate = cached
            } else {
                intermediate = try PixelBuffer(format: .bgra, width: source.width, height: source.height, rowAlignment: 64)
                cached = intermediate
            }
            guard try PixelConverter.direct(source, intermediate), try PixelConverter.direct(intermediate, destination) else {
                throw .unsupported("converting \(source.format) to \(destination.format)")
            }
        }
    }

    /// Converts only `rows` of `source` into the same rows of `destination` (the rest of the
    /// destination is left as it is): for sources that change in bands, such as a test pattern.
    /// BGRA to YUYV, UYVY and NV12 (rows starting and ending on even lines for NV12's chroma);
    /// other pairs convert the whole picture.
    public func convert(_ source: PixelBuffer, into destination: PixelBuffer, rows: Range<Int>) throws(MediaError) {
        let rows = rows.clamped(to: 0..<source.height)
        guard source.format == .bgra, source.width == destination.width, source.height == destination.height,
              [.yuyv, .uyvy, .nv12].contains(destination.format), !rows.isEmpty,
              destination.format != .nv12 || (rows.lowerBound % 2 == 0 && (rows.upperBound % 2 == 0 || rows.upperBound == source.height)) else {
            return try convert(source, into: destination)
        }
        let w = Int32(source.width), h = Int32(rows.count), y = rows.lowerBound
        let from = source.baseAddress(ofPlane: 0) + y * Int(source.bytesPerRow(ofPlane: 0)), fromStride = source.bytesPerRow(ofPlane: 0)
        let to = destination.baseAddress(ofPlane: 0) + y * Int(destination.bytesPerRow(ofPlane: 0)), toStride = destination.bytesPerRow(ofPlane: 0)
        let result: Int32
        switch destination.format {
        case .yuyv: result = ARGBToYUY2(from, fromStride, to, toStride, w, h)
        case .uyvy: result = ARGBToUYVY(from, fromStride, to, toStride, w, h)
        default:
            let chroma = destination.baseAddress(ofPlane: 1) + y / 2 * Int(destination.bytesPerRow(ofPlane: 1))
            result = ARGBToNV12(from, fromStride, to, toStride, chroma, destination.bytesPerRow(ofPlane: 1), w, h)
        }
        guard result == 0 else { throw .unsupported("converting \(source.format) to \(destination.format)") }
        destination.yuvRange = .video
    }

    /// Converts into a new buffer of `format` (allocates; frame paths should convert into pooled buffers).
    public func converted(_ source: PixelBuffer, to format: PixelFormat) throws(MediaError) -> PixelBuffer {
        let destination = try PixelBuffer(format: format, width: source.width, height: source.height, rowAlignment: 16)
        try convert(source, into: destination)
        return destination
    }

    /// Runs the single libyuv call for this pair, if there is one; false when there is none.
    /// Sets `d.yuvRange` to the range it wrote: a YUV source's own, or `.video` from RGB unless
    /// `d` asked for `.full` and libyuv has a full-range ("J") writer for its layout.
    static func direct(_ s: PixelBuffer, _ d: PixelBuffer) throws(MediaError) -> Bool {
        let w = Int32(s.width), h = Int32(s.height)
        func p(_ b: PixelBuffer, _ i: Int) -> UnsafeMutablePointer<UInt8> { b.baseAddress(ofPlane: i) }
        func st(_ b: PixelBuffer, _ i: Int) -> Int32 { b.bytesPerRow(ofPlane: i) }
        let fullSource = s.format.isYUV && s.yuvRange == .full
        let fullDestination = d.yuvRange == .full
        var result: Int32 = 0
        var written: YUVRange = s.format.isYUV ? s.yuvRange : .video
        switch (s.format, d.format) {
        // Same layout: copy planes.
        case let (a, b) where a == b:
            for i in 0..<s.planes.count {
                CopyPlane(p(s, i), st(s, i), p(d, i), st(d, i), Int32(s.planes[i].rowBytes), Int32(s.planes[i].rows))
            }
        // Full-range YUV → BGRA, with libyuv's JPEG matrix.
        case (.i420, .bgra) where fullSource, (.yv12, .bgra) where fullSource:
            let (u, v) = s.format == .i420 ? (1, 2) : (2, 1)
            result = I420ToARGBMatrix(p(s, 0), st(s, 0), p(s, u), st(s, u), p(s, v), st(s, v), p(d, 0), st(d, 0), pinhole_yuv_jpeg_constants(), w, h)
        case (.i422, .bgra) where fullSource:
            result = I422ToARGBMatrix(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), pinhole_yuv_jpeg_constants(), w, h)
        case (.i444, .bgra) where fullSource:
            result = I444ToARGBMatrix(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), pinhole_yuv_jpeg_constants(), w, h)
        case (.nv12, .bgra) where fullSource:
            result = NV12ToARGBMatrix(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(d, 0), st(d, 0), pinhole_yuv_jpeg_constants(), w, h)
        case (.nv21, .bgra) where fullSource:
            result = NV21ToARGBMatrix(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(d, 0), st(d, 0), pinhole_yuv_jpeg_constants(), w, h)
        case (.yuyv, _) where fullSource, (.uyvy, _) where fullSource:
            throw .unsupported("full-range packed 4:2:2 (\(s.format)); cameras send it in video range")
        case (_, _) where fullSource && !d.format.isYUV && d.format != .bgra:
            return false  // other RGB targets go through BGRA, which honours the range
        // Anything → BGRA.
        case (.rgba, .bgra): result = ABGRToARGB(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.rgb24, .bgra): result = RAWToARGB(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgr24, .bgra): result = RGB24ToARGB(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.grey, .bgra): result = J400ToARGB(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.yuyv, .bgra): result = YUY2ToARGB(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.uyvy, .bgra): result = UYVYToARGB(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.nv12, .bgra): result = NV12ToARGB(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(d, 0), st(d, 0), w, h)
        case (.nv21, .bgra): result = NV21ToARGB(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(d, 0), st(d, 0), w, h)
        case (.i420, .bgra): result = I420ToARGB(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.yv12, .bgra): result = I420ToARGB(p(s, 0), st(s, 0), p(s, 2), st(s, 2), p(s, 1), st(s, 1), p(d, 0), st(d, 0), w, h)
        case (.i422, .bgra): result = I422ToARGB(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.i444, .bgra): result = I444ToARGB(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        // BGRA → full-range planar YUV where libyuv has a "J" writer.
        case (.bgra, .i420) where fullDestination, (.bgra, .yv12) where fullDestination:
            let (u, v) = d.format == .i420 ? (1, 2) : (2, 1)
            result = ARGBToJ420(p(s, 0), st(s, 0), p(d, 0), st(d, 0), p(d, u), st(d, u), p(d, v), st(d, v), w, h)
            written = .full
        case (.bgra, .i422) where fullDestination:
            result = ARGBToJ422(p(s, 0), st(s, 0), p(d, 0), st(d, 0), p(d, 1), st(d, 1), p(d, 2), st(d, 2), w, h)
            written = .full
        case (_, .i420) where fullDestination && !s.format.isYUV, (_, .yv12) where fullDestination && !s.format.isYUV,
             (_, .i422) where fullDestination && !s.format.isYUV:
            return false  // other RGB sources go through BGRA, which has the J writers
        // BGRA → anything.
        case (.bgra, .rgba): result = ARGBToABGR(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgra, .rgb24): result = ARGBToRAW(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgra, .bgr24): result = ARGBToRGB24(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgra, .grey): result = ARGBToJ400(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgra, .yuyv): result = ARGBToYUY2(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgra, .uyvy): result = ARGBToUYVY(p(s, 0), st(s, 0), p(d, 0), st(d, 0), w, h)
        case (.bgra, .nv12): result = ARGBToNV12(p(s, 0), st(s, 0), p(d, 0), st(d, 0), p(d, 1), st(d, 1), w, h)
        case (.bgra, .nv21): result = ARGBToNV21(p(s, 0), st(s, 0), p(d, 0), st(d, 0), p(d, 1), st(d, 1), w, h)
        case (.bgra, .i422): result = ARGBToI422(p(s, 0), st(s, 0), p(d, 0), st(d, 0), p(d, 1), st(d, 1), p(d, 2), st(d, 2), w, h)
        case (.bgra, .i444): result = ARGBToI444(p(s, 0), st(s, 0), p(d, 0), st(d, 0), p(d, 1), st(d, 1), p(d, 2), st(d, 2), w, h)
        // Anything → I420 or YV12 (the same planes, U and V swapped).
        case (_, .i420), (_, .yv12):
            let (u, v) = d.format == .i420 ? (1, 2) : (2, 1)
            let dy = p(d, 0), sy = st(d, 0), du = p(d, u), su = st(d, u), dv = p(d, v), sv = st(d, v)
            switch s.format {
            case .bgra: result = ARGBToI420(p(s, 0), st(s, 0), dy, sy, du, su, dv, sv, w, h)
            case .rgba: result = ABGRToI420(p(s, 0), st(s, 0), dy, sy, du, su, dv, sv, w, h)
            case .rgb24: result = RAWToI420(p(s, 0), st(s, 0), dy, sy, du, su, dv, sv, w, h)
            case .bgr24: result = RGB24ToI420(p(s, 0), st(s, 0), dy, sy, du, su, dv, sv, w, h)
            case .grey: return false  // grey is full range; go through BGRA to map it to video-range Y
            case .yuyv: result = YUY2ToI420(p(s, 0), st(s, 0), dy, sy, du, su, dv, sv, w, h)
            case .uyvy: result = UYVYToI420(p(s, 0), st(s, 0), dy, sy, du, su, dv, sv, w, h)
            case .nv12: result = NV12ToI420(p(s, 0), st(s, 0), p(s, 1), st(s, 1), dy, sy, du, su, dv, sv, w, h)
            case .nv21: result = NV21ToI420(p(s, 0), st(s, 0), p(s, 1), st(s, 1), dy, sy, du, su, dv, sv, w, h)
            case .i420: result = I420Copy(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), dy, sy, du, su, dv, sv, w, h)
            case .yv12: result = I420Copy(p(s, 0), st(s, 0), p(s, 2), st(s, 2), p(s, 1), st(s, 1), dy, sy, du, su, dv, sv, w, h)
            case .i422: result = I422ToI420(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), dy, sy, du, su, dv, sv, w, h)
            case .i444: result = I444ToI420(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), dy, sy, du, su, dv, sv, w, h)
            case .mjpeg: return false
            }
        // I420 → the packed and semi-planar layouts encoders and displays take.
        case (.i420, .nv12): result = I420ToNV12(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), p(d, 1), st(d, 1), w, h)
        case (.i420, .nv21): result = I420ToNV21(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), p(d, 1), st(d, 1), w, h)
        case (.i420, .yuyv): result = I420ToYUY2(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.i420, .uyvy): result = I420ToUYVY(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.i420, .rgba): result = I420ToABGR(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.i420, .rgb24): result = I420ToRAW(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.i420, .bgr24): result = I420ToRGB24(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(s, 2), st(s, 2), p(d, 0), st(d, 0), w, h)
        case (.nv12, .rgba): result = NV12ToABGR(p(s, 0), st(s, 0), p(s, 1), st(s, 1), p(d, 0), st(d, 0), w, h)
        default:
            return false
        }
        guard result == 0 else { throw .unsupported("libyuv refused \(s.format) → \(d.format) at \(s.width)×\(s.height) (code \(result))") }
        if d.format.isYUV { d.yuvRange = written }
        return true
    }
}

extension PixelBuffer {
    /// A copy of this buffer converted to `format` (allocates a new buffer each call).
    public func converted(to format: PixelFormat) throws(MediaError) -> PixelBuffer {
        try PixelConverter().converted(self, to: format)
    }
}
