import CTurboJPEG
import CYUV

/// Decodes JPEG and Motion-JPEG frames with libjpeg-turbo (and libyuv for MJPEG → I420).
///
/// Damaged frames, which webcams do send, give `MediaError.corruptData`: a truncated frame is
/// caught by a structural check before decoding, and libjpeg's warnings count as errors; a
/// progressive JPEG with more scans than TurboJPEG's limit is refused (`TJFLAG_LIMITSCANS`).
/// Safe to use from any thread; calls on one decoder are serialised.
public final class JPEGDecoder: Sendable {
    private struct State {
        var handle: TurboJPEGHandle?
        var scratch: PixelBuffer?
        var planar: PixelBuffer?
    }
    private let state = Lock(State())
    /// The most pixels a JPEG may declare before it is refused.
    public let maximumPixels: Int

    /// Makes a decoder that refuses images over `maximumPixels`.
    public init(maximumPixels: Int = DecodingLimits.maximumPixels) {
        self.maximumPixels = maximumPixels
    }

    /// Reads the header: size and subsampling.
    public func info(_ data: UnsafeRawBufferPointer) throws(MediaError) -> JPEGInfo {
        try state.withLock { state throws(MediaError) in
            do throws(MediaError) {
                return try header(data, &state)
            } catch {
                state.handle = nil  // see decode(_:into:)
                throw error
            }
        }
    }

    /// Reads the header of `data`.
    public func info(_ data: [UInt8]) throws(MediaError) -> JPEGInfo {
        try data.withBytes { bytes throws(MediaError) in try info(bytes) }
    }

    private func handle(_ state: inout State) throws(MediaError) -> tjhandle {
        if let existing = state.handle { return existing.handle }
        let made = try TurboJPEGHandle(compress: false)
        state.handle = made
        return made.handle
    }

    private func header(_ data: UnsafeRawBufferPointer, _ state: inout State) throws(MediaError) -> JPEGInfo {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else {
            throw .corruptData(format: "JPEG", reason: "no start-of-image marker")
        }
        let tj = try handle(&state)
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(tj, data.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(data.count),
                                  &width, &height, &subsampling, &colorspace) == 0 else {
            throw .corruptData(format: "JPEG", reason: state.handle!.lastError)
        }
        try DecodingLimits.check(width: Int(width), height: Int(height), maximumPixels: maximumPixels)
        return JPEGInfo(width: Int(width), height: Int(height), subsampling: JPEGSubsampling(tj: subsampling))
    }

    /// Decodes into `destination`, whose size picks the DCT scale: it must be the JPEG's size
    /// or one of its 1/2, 1/4, 1/8 scalings. Packed RGB formats and GREY decode directly; I420
    /// through libyuv; I422/I444 when the JPEG has that subsampling; other formats through BGRA.
    /// Planar YUV comes out in JPEG's full range (`yuvRange == .full`); other YUV layouts in video range.
    public func decode(_ data: UnsafeRawBufferPointer, into destination: PixelBuffer) throws(MediaError) {
        try JPEGBytes.check(data)
        try state.withLock { state throws(MediaError) in
            do throws(MediaError) {
                let info = try header(data, &state)
                guard let scale = JPEGScale.allCases.first(where: { $0.scaled(info.width) == destination.width && $0.scaled(info.height) == destination.height }) else {
                    throw .mismatch("a \(info.width)×\(info.height) JPEG cannot decode to \(destination.width)×\(destination.height); sizes must be the full size, 1/2, 1/4 or 1/8")
                }
                try decodeLocked(data, info: info, scale: scale, into: destination, &state)
            } catch {
                // libjpeg's state after an error is not worth trusting: start the next frame on a fresh handle.
                state.handle = nil
                throw error
            }
        }
    }

    /// Decodes the payload of an `.mjpeg` buffer into `destination` (see the raw-bytes form).
    public func decode(_ frame: PixelBuffer, into destination: PixelBuffer) throws(MediaError) {
        guard frame.format == .mjpeg else { throw .mismatch("expected an MJPEG frame, got \(frame.format)") }
        try decode(frame.payload, into: destination)
    }

    /// Decodes to a new buffer of `format` at `scale` (allocates).
    public func decode(_ data: UnsafeRawBufferPointer, to format: PixelFormat = .bgra, scale: JPEGScale = .full) throws(MediaError) -> PixelBuffer {
        try JPEGBytes.check(data)
        let info = try self.info(data)
        let destination = try PixelBuffer(format: format, width: scale.scaled(info.width), height: scale.scaled(info.height), rowAlignment: 16)
        try decode(data, into: destination)
        return destination
    }

    /// Decodes `data` to a new buffer (see the raw-bytes form).
    public func decode(_ data: [UInt8], to format: PixelFormat = .bgra, scale: JPEGScale = .full) throws(MediaError) -> PixelBuffer {
        try data.withBytes { bytes throws(MediaError) in try decode(bytes, to: format, scale: scale) }
    }

    private func decodeLocked(_ data: UnsafeRawBufferPointer, info: JPEGInfo, scale: JPEGScale, into d: PixelBuffer, _ state: inout State) throws(MediaError) {
        let tj = try handle(&state)
        let source = data.baseAddress!.assumingMemoryBound(to: UInt8.self)
        // Warnings are errors, and a progressive JPEG may not have more scans than TurboJPEG's
        // limit (500): each scan passes over the whole image, so a small file of thousands of
        // scans would cost minutes of decoding.
        let flags = Int32(TJFLAG_STOPONWARNING | TJFLAG_LIMITSCANS)
        let packed: TJPF? = switch d.format {
        case .bgra: TJPF_BGRA
        case .rgba: TJPF_RGBA
        case .rgb24: TJPF_RGB
        case .bgr24: TJPF_BGR
        case .grey: TJPF_GRAY
        default: nil
        }
        // Colour JPEGs to BGRA: decode to the JPEG's own planes, then convert with libyuv's SIMD
        // (measured 4–10% faster than libjpeg-turbo's own colour conversion and upsampling).
        // libyuv's MJPGToARGB would be faster still, but this version converts with video-range
        // constants (colours off by ~8 levels), so it is not used.
        if d.format == .bgra, let planarFormat = info.subsampling.planarFormat, planarFormat != .grey {
            let planar: PixelBuffer
            if let cached = state.planar, cached.format == planarFormat, cached.width == d.width, cached.height == d.height {
                planar = cached
            } else {
                planar = try PixelBuffer(format: planarFormat, width: d.width, height: d.height, rowAlignment: 64)
                state.planar = planar
            }
            try decodeLocked(data, info: info, scale: scale, into: planar, &state)
            guard try PixelConverter.direct(planar, d) else { throw .unsupported("decoding JPEG to \(d.format)") }
            return
        }
        if let packed {
            guard tjDecompress2(tj, source, UInt(data.count), d.baseAddress(ofPlane: 0), Int32(d.width), d.bytesPerRow(ofPlane: 0),
                                Int32(d.height), Int32(packed.rawValue), flags) == 0 else {
                throw .corruptData(format: "JPEG", reason: state.handle!.lastError)
            }
            return
        }
        if d.format == info.subsampling.planarFormat {
            var planes: [UnsafeMutablePointer<UInt8>?] = (0..<d.planes.count).map { d.baseAddress(ofPlane: $0) }
            var strides: [Int32] = (0..<d.planes.count).map { d.bytesPerRow(ofPlane: $0) }
            let result = planes.withUnsafeMutableBufferPointer { p in
                strides.withUnsafeMutableBufferPointer { s in
                    tjDecompressToYUVPlanes(tj, source, UInt(data.count), p.baseAddress, Int32(d.width), s.baseAddress, Int32(d.height), flags)
                }
            }
            guard result == 0 else { throw .corruptData(format: "JPEG", reason: state.handle!.lastError) }
            d.yuvRange = .full
            return
        }
        if d.format == .i420 || d.format == .yv12, scale == .full, JPEGDecoder.isSequential(data) {
            let (u, v) = d.format == .i420 ? (1, 2) : (2, 1)
            let result = MJPGToI420(source, data.count, d.baseAddress(ofPlane: 0), d.bytesPerRow(ofPlane: 0),
                                    d.baseAddress(ofPlane: u), d.bytesPerRow(ofPlane: u), d.baseAddress(ofPlane: v), d.bytesPerRow(ofPlane: v),
                                    Int32(info.width), Int32(info.height), Int32(d.width), Int32(d.height))
            guard result == 0 else { throw .corruptData(format: "JPEG", reason: "libyuv could not decode the frame") }
            d.yuvRange = .full
            return
        }
        // Anything else: decode to a reused BGRA buffer, then convert.
        let intermediate: PixelBuffer
        if let cached = state.scratch, cached.width == d.width, cached.height == d.height {
            intermediate = cached
        } else {
            intermediate = try PixelBuffer(format: .bgra, width: d.width, height: d.height, rowAlignment: 64)
            state.scratch = intermediate
        }
        try decodeLocked(data, info: info, scale: scale, into: intermediate, &state)
        guard try PixelConverter.direct(intermediate, d) else {
            throw .unsupported("decoding JPEG to \(d.format)")
        }
    }

    /// Whether the JPEG's frame is sequential (one scan per component: baseline, extended),
    /// read from its header. libyuv's MJPEG path has no scan limit, so a progressive JPEG goes
    /// through TurboJPEG's instead; so does one whose header is not found in its first 128 KiB.
    static func isSequential(_ data: UnsafeRawBufferPointer) -> Bool {
        guard let segments = try? JPEGSegment.header(of: Array(data.prefix(1 << 17))) else { return false }
        return !segments.contains { [0xC2, 0xC6, 0xCA, 0xCE].contains($0.marker) }
    }
}
