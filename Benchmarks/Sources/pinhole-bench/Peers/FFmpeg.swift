import CPeers
import Media

/// A failed FFmpeg call, with FFmpeg's own message.
struct FFmpegError: Error, CustomStringConvertible {
    /// What was being done and what FFmpeg said.
    let description: String

    /// An error for the call `what` that returned `code`.
    init(_ what: String, code: Int32) {
        var message = [CChar](repeating: 0, count: 256)
        av_strerror(code, &message, message.count)
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        description = "\(what) failed: \(text) (\(code))"
    }

    /// An error with a plain message.
    init(_ message: String) { description = message }
}

/// FFmpeg constants that are C macros Swift cannot import, and small shared helpers.
enum FFmpeg {
    /// `AVERROR(EAGAIN)`: the codec wants input before it can give output (or the reverse).
    static let again: Int32 = -11
    /// `AVERROR_EOF`, `FFERRTAG('E','O','F',' ')`.
    static let endOfFile: Int32 = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)

    /// FFmpeg's pixel format for the same bytes as `format` (YUV read as BT.601 limited range).
    static func pixelFormat(_ format: PixelFormat) -> AVPixelFormat {
        switch format {
        case .bgra: AV_PIX_FMT_BGRA
        case .yuyv: AV_PIX_FMT_YUYV422
        case .nv12: AV_PIX_FMT_NV12
        case .i420: AV_PIX_FMT_YUV420P
        case .i422: AV_PIX_FMT_YUV422P
        default: AV_PIX_FMT_NONE
        }
    }

    /// Quiets FFmpeg's log down to errors: libswscale announces the fallbacks it takes for some
    /// format pairs as warnings, which would interleave with the table. The table's notes say
    /// which path each peer took instead.
    static func quietLogs() {
        av_log_set_level(AV_LOG_ERROR)
    }

    /// The plane pointers of `frame`, as FFmpeg's C calls take them.
    static func dataPointer(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?> {
        UnsafeMutableRawPointer(frame).advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.data)!)
            .assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
    }

    /// The row strides of `frame`.
    static func linesizePointer(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<Int32> {
        UnsafeMutableRawPointer(frame).advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.linesize)!)
            .assumingMemoryBound(to: Int32.self)
    }

    /// The buffer references of `frame`.
    static func bufferPointer(_ frame: UnsafeMutablePointer<AVFrame>) -> UnsafeMutablePointer<UnsafeMutablePointer<AVBufferRef>?> {
        UnsafeMutableRawPointer(frame).advanced(by: MemoryLayout<AVFrame>.offset(of: \AVFrame.buf)!)
            .assumingMemoryBound(to: UnsafeMutablePointer<AVBufferRef>?.self)
    }
}

/// The plane pointers and strides of one frame, laid out once as the arrays `sws_scale` takes,
/// so a timed call builds nothing.
struct Planes {
    /// Up to four plane starts (nil past the last plane).
    let data: [UnsafeMutablePointer<UInt8>?]
    /// Up to four strides in bytes (0 past the last plane).
    let strides: [Int32]

    /// The planes of `buffer`.
    init(_ buffer: PixelBuffer) {
        var data: [UnsafeMutablePointer<UInt8>?] = (0..<buffer.planes.count).map { buffer.baseAddress(ofPlane: $0) }
        var strides: [Int32] = (0..<buffer.planes.count).map { buffer.bytesPerRow(ofPlane: $0) }
        while data.count < 4 { data.append(nil); strides.append(0) }
        self.data = data
        self.strides = strides
    }

    /// The planes of an FFmpeg frame.
    init(_ frame: UnsafeMutablePointer<AVFrame>) {
        let pointers = FFmpeg.dataPointer(frame), sizes = FFmpeg.linesizePointer(frame)
        data = (0..<4).map { pointers[$0] }
        strides = (0..<4).map { sizes[$0] }
    }
}

/// One libswscale context converting whole frames between two formats at one size.
final class SwsScaler {
    /// The context from `sws_getContext`.
    private let context: OpaquePointer
    /// Frame height, the slice `sws_scale` is given.
    private let height: Int32
    /// The flag the context was made with, for the table: "SWS_BILINEAR".
    let flagName: String

    /// Makes a context for `width`×`height` frames from `source` to `destination`, same size,
    /// with `SWS_BILINEAR` (which for an unscaled conversion only picks the chroma interpolation).
    init(width: Int, height: Int, from source: AVPixelFormat, to destination: AVPixelFormat) throws {
        guard let context = sws_getContext(Int32(width), Int32(height), source, Int32(width), Int32(height), destination,
                                           SWS_BILINEAR, nil, nil, nil) else {
            throw FFmpegError("sws_getContext from \(source.rawValue) to \(destination.rawValue)")
        }
        self.context = context
        self.height = Int32(height)
        flagName = "SWS_BILINEAR"
    }

    /// Frees the context.
    deinit { sws_freeContext(context) }

    /// Converts the whole frame in `source` into `destination` (preallocated by the caller).
    func scale(_ source: Planes, into destination: Planes) throws {
        let rows = source.data.withUnsafeBufferPointer { sourceData in
            source.strides.withUnsafeBufferPointer { sourceStrides in
                destination.data.withUnsafeBufferPointer { destinationData in
                    destination.strides.withUnsafeBufferPointer { destinationStrides in
                        sourceData.withMemoryRebound(to: UnsafePointer<UInt8>?.self) { constData in
                            sws_scale(context, constData.baseAddress, sourceStrides.baseAddress, 0, height,
                                      destinationData.baseAddress, destinationStrides.baseAddress)
                        }
                    }
                }
            }
        }
        guard rows == height else { throw FFmpegError("sws_scale", code: rows) }
    }

    /// Converts the whole of FFmpeg's `frame` (a decoder's output) into `destination`.
    func scale(frame: UnsafeMutablePointer<AVFrame>, into destination: Planes) throws {
        let rows = destination.data.withUnsafeBufferPointer { destinationData in
            destination.strides.withUnsafeBufferPointer { destinationStrides in
                FFmpeg.dataPointer(frame).withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { constData in
                    sws_scale(context, constData, FFmpeg.linesizePointer(frame), 0, height,
                              destinationData.baseAddress, destinationStrides.baseAddress)
                }
            }
        }
        guard rows == height else { throw FFmpegError("sws_scale", code: rows) }
    }
}
