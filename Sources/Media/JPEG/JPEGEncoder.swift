import CTurboJPEG

/// Encodes frames to JPEG with libjpeg-turbo.
///
/// YUV frames encode straight from their planes (no RGB round trip): I420/YV12 as 4:2:0,
/// I422 as 4:2:2, I444 as 4:4:4; NV12, NV21, YUYV and UYVY are first repacked to I420 in a
/// reused buffer, and video-range samples are rescaled to JPEG's full range on the way. Packed RGB and GREY encode with the subsampling asked for. The output buffer
/// is kept and reused between calls. Safe from any thread; calls on one encoder are serialised.
public final class JPEGEncoder: Sendable {
    private struct State: @unchecked Sendable {  // only touched under the mutex
        var handle: TurboJPEGHandle?
        var output: UnsafeMutablePointer<UInt8>?
        var outputCapacity = 0
        var planar: PixelBuffer?
    }
    private let state = Lock(State())

    /// Makes an encoder.
    public init() {}

    deinit {
        state.withLock { state in if let output = state.output { tjFree(output) } }
    }

    /// Encodes `buffer` at `quality` (1–100) and returns the JPEG bytes.
    /// `subsampling` applies to RGB sources; YUV sources keep their own.
    public func encode(_ buffer: PixelBuffer, quality: Int = 90, subsampling: JPEGSubsampling = .s420) throws(MediaError) -> [UInt8] {
        try encode(buffer, quality: quality, subsampling: subsampling) { bytes throws(MediaError) in Array(bytes.bindMemory(to: UInt8.self)) }
    }

    /// Encodes `buffer` and lends the JPEG bytes to `body` without copying them
    /// (valid only during the call): for writing straight to a file.
    public func encode<R>(_ buffer: PixelBuffer, quality: Int = 90, subsampling: JPEGSubsampling = .s420,
                          _ body: (UnsafeRawBufferPointer) throws(MediaError) -> R) throws(MediaError) -> R {
        guard (1...100).contains(quality) else {
            throw .encoderFailed(format: "JPEG", reason: "quality \(quality) is outside 1–100")
        }
        guard subsampling != .other else { throw .unsupported("JPEG encoding with 4:4:0 or 4:1:1 subsampling") }
        return try state.withLock { state throws(MediaError) in
            let tj: tjhandle
            if let handle = state.handle { tj = handle.handle } else {
                let made = try TurboJPEGHandle(compress: true)
                state.handle = made
                tj = made.handle
            }
            // JPEG stores full-range Y'CbCr: video-range planes are rescaled (and non-planar
            // layouts repacked to I420) into a reused buffer first.
            var source = buffer
            switch buffer.format {
            case .nv12, .nv21, .yuyv, .uyvy, .i420, .yv12, .i422, .i444:
                let planar: PixelFormat = [.i422, .i444, .yv12].contains(buffer.format) ? buffer.format : .i420
                if planar == buffer.format, buffer.yuvRange == .full { break }
                let scratch: PixelBuffer
                if let cached = state.planar, cached.format == planar, cached.width == buffer.width, cached.height == buffer.height {
                    scratch = cached
                } else {
                    scratch = try PixelBuffer(format: planar, width: buffer.width, height: buffer.height, rowAlignment: 64)
                    state.planar = scratch
                }
                if planar == buffer.format {
                    try YUVRangeConversion.expand(buffer, into: scratch)
                } else {
                    guard try PixelConverter.direct(buffer, scratch) else { throw .unsupported("JPEG encoding from \(buffer.format)") }
                    if scratch.yuvRange == .video { try YUVRangeConversion.expand(scratch, into: scratch) }
                }
                source = scratch
            case .mjpeg:
                throw .unsupported("re-encoding an MJPEG frame; its payload already is a JPEG")
            default:
                break
            }
            let sampling: JPEGSubsampling = switch source.format {
            case .i420, .yv12: .s420
            case .i422: .s422
            case .i444: .s444
            case .grey: .grey
            default: subsampling
            }
            let needed = Int(tjBufSize(Int32(source.width), Int32(source.height), sampling.tj))
            if state.outputCapacity < needed {
                if let old = state.output { tjFree(old) }
                state.output = tjAlloc(Int32(needed))
                state.outputCapacity = state.output == nil ? 0 : needed
                guard state.output != nil else { throw .encoderFailed(format: "JPEG", reason: "out of memory for a \(needed)-byte output buffer") }
            }
            var output = state.output
            var size = UInt(state.outputCapacity)
            let flags = Int32(TJFLAG_NOREALLOC)
            let w = Int32(source.width), h = Int32(source.height), q = Int32(quality)
            let result: Int32
            switch source.format {
            case .i420, .yv12, .i422, .i444:
                let (u, v) = source.format == .yv12 ? (2, 1) : (1, 2)
                var planes: [UnsafePointer<UInt8>?] = [0, u, v].map { UnsafePointer(source.baseAddress(ofPlane: $0)) }
                var strides: [Int32] = [0, u, v].map { source.bytesPerRow(ofPlane: $0) }
                result = planes.withUnsafeMutableBufferPointer { p in
                    strides.withUnsafeMutableBufferPointer { s in
                        tjCompressFromYUVPlanes(tj, p.baseAddress, w, s.baseAddress, h, sampling.tj, &output, &size, q, flags)
                    }
                }
            default:
                let pixelFormat: TJPF = switch source.format {
                case .bgra: TJPF_BGRA
                case .rgba: TJPF_RGBA
                case .rgb24: TJPF_RGB
                case .bgr24: TJPF_BGR
                default: TJPF_GRAY
                }
                result = tjCompress2(tj, source.baseAddress(ofPlane: 0), w, source.bytesPerRow(ofPlane: 0), h,
                                     Int32(pixelFormat.rawValue), &output, &size, sampling.tj, q, flags)
            }
            guard result == 0, let output else { throw .encoderFailed(format: "JPEG", reason: state.handle!.lastError) }
            return try body(UnsafeRawBufferPointer(start: output, count: Int(size)))
        }
    }
}
