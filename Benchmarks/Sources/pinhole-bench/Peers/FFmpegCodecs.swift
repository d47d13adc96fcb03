import CPeers
import Media

/// A JPEG held as an FFmpeg packet: a reference-counted copy of the bytes with the zero padding
/// FFmpeg's bitstream readers may read past the end, so sending it copies nothing.
final class FFmpegPacket {
    /// The packet; its buffer is owned by this object.
    let packet: UnsafeMutablePointer<AVPacket>

    /// Copies `bytes` into a padded, reference-counted packet.
    init(_ bytes: UnsafeRawBufferPointer) throws {
        guard let packet = av_packet_alloc() else { throw FFmpegError("av_packet_alloc") }
        self.packet = packet
        let status = av_new_packet(packet, Int32(bytes.count))  // zeroes the padding
        guard status == 0 else { throw FFmpegError("av_new_packet", code: status) }
        packet.pointee.data.update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }

    /// Frees the packet and its buffer.
    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av_packet_free(&packet)
    }
}

/// FFmpeg's own Motion-JPEG decoder (`AV_CODEC_ID_MJPEG`, not libjpeg), in process.
///
/// Decoded frames come from FFmpeg's buffer pool. The decoder keeps the last `ring` frames
/// referenced, so the pool cycles through that many distinct buffers, as our side rotates its
/// destinations: no contender rewrites a cache-warm buffer.
final class FFmpegMJPEGDecoder {
    /// The codec context.
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// Decoded frames kept referenced, oldest reused first.
    private let frames: [UnsafeMutablePointer<AVFrame>]
    /// The ring position of the next frame.
    private var next = 0
    /// The thread count the context was opened with (0 = FFmpeg picks, as the ffmpeg CLI does).
    let threads: Int32
    /// True when this FFmpeg's MJPEG decoder can use threads at all.
    let supportsThreads: Bool

    /// Opens the decoder with `threads` (1 for single-threaded) and a ring of `ring` frames.
    init(threads: Int32, ring: Int) throws {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG) else { throw FFmpegError("this FFmpeg has no MJPEG decoder") }
        let threading = AV_CODEC_CAP_FRAME_THREADS | AV_CODEC_CAP_SLICE_THREADS
        supportsThreads = codec.pointee.capabilities & Int32(threading) != 0
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError("avcodec_alloc_context3") }
        self.context = context
        self.threads = threads
        context.pointee.thread_count = threads
        frames = (0..<max(ring, 1)).compactMap { _ in av_frame_alloc() }
        let status = avcodec_open2(context, codec, nil)
        guard status == 0 else { throw FFmpegError("avcodec_open2 (MJPEG decoder)", code: status) }
    }

    /// Frees the ring's frames and the codec context.
    deinit {
        for frame in frames {
            var frame: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&frame)
        }
        avcodec_free_context(&context)
    }

    /// Decodes `packet` once per ring slot and a little more, untimed, so that FFmpeg's pool has
    /// allocated (and the kernel has mapped) every buffer the ring will cycle through: otherwise
    /// the first laps of a timed run would pay for page faults our preallocated side never sees.
    func fillPool(with packet: FFmpegPacket) throws {
        for _ in 0..<(frames.count + 2) { _ = try decode(packet) }
    }

    /// Decodes `packet` and returns the frame (valid until the ring comes round to it again).
    func decode(_ packet: FFmpegPacket) throws -> UnsafeMutablePointer<AVFrame> {
        let frame = frames[next]
        next = (next + 1) % frames.count
        av_frame_unref(frame)
        var status = avcodec_send_packet(context, packet.packet)
        guard status == 0 else { throw FFmpegError("avcodec_send_packet", code: status) }
        status = avcodec_receive_frame(context, frame)
        guard status == 0 else { throw FFmpegError("avcodec_receive_frame", code: status) }
        return frame
    }
}

/// FFmpeg's own Motion-JPEG encoder (`AV_CODEC_ID_MJPEG`, from its MPEG-video family), in process,
/// encoding `yuvj420p` frames at a fixed quantiser.
final class FFmpegJPEGEncoder {
    /// The codec context.
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// The packet every encode writes into and releases.
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// The presentation time stamp of the next frame.
    private var pts: Int64 = 0
    /// The fixed quantiser, FFmpeg's `-q:v` (1 best … 31 worst).
    var qscale: Int32
    /// The thread count asked for (0 = FFmpeg picks, as the ffmpeg CLI does).
    let threads: Int32

    /// Opens the encoder for `width`×`height` `yuvj420p` frames at `qscale`; `threads` 0 asks for
    /// FFmpeg's automatic count with slice threading (frame threading cannot speed up one photo).
    init(width: Int, height: Int, qscale: Int32, threads: Int32) throws {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else { throw FFmpegError("this FFmpeg has no MJPEG encoder") }
        guard let context = avcodec_alloc_context3(codec) else { throw FFmpegError("avcodec_alloc_context3") }
        self.context = context
        self.qscale = qscale
        self.threads = threads
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
        context.pointee.color_range = AVCOL_RANGE_JPEG
        context.pointee.time_base = AVRational(num: 1, den: 30)
        context.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
        context.pointee.global_quality = qscale * Int32(FF_QP2LAMBDA)
        context.pointee.qmin = 1
        context.pointee.thread_count = threads
        if threads != 1 { context.pointee.thread_type = Int32(FF_THREAD_SLICE) }
        let status = avcodec_open2(context, codec, nil)
        guard status == 0 else { throw FFmpegError("avcodec_open2 (MJPEG encoder)", code: status) }
        packet = av_packet_alloc()
        guard packet != nil else { throw FFmpegError("av_packet_alloc") }
    }

    /// Frees the packet and the codec context.
    deinit {
        av_packet_free(&packet)
        avcodec_free_context(&context)
    }

    /// The threads the opened encoder runs (after FFmpeg resolved "automatic").
    var activeThreads: Int32 { context?.pointee.thread_count ?? 0 }

    /// Encodes `frame` and hands the JPEG bytes to `body` (valid only during the call).
    func encode<R>(_ frame: UnsafeMutablePointer<AVFrame>, _ body: (UnsafeRawBufferPointer) -> R) throws -> R {
        frame.pointee.quality = qscale * Int32(FF_QP2LAMBDA)
        frame.pointee.pts = pts
        pts += 1
        var status = avcodec_send_frame(context, frame)
        guard status == 0 else { throw FFmpegError("avcodec_send_frame", code: status) }
        status = avcodec_receive_packet(context, packet)
        guard status == 0, let packet else { throw FFmpegError("avcodec_receive_packet", code: status) }
        defer { av_packet_unref(packet) }
        return body(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }
}

/// An `AVFrame` describing the planes of one of our buffers without copying them, reference
/// counted (with a buffer that frees nothing) so that FFmpeg takes a reference instead of a copy.
final class WrappedFrame {
    /// The frame; its planes belong to `buffer`.
    let frame: UnsafeMutablePointer<AVFrame>
    /// The buffer whose bytes the frame points at, kept alive as long as the frame.
    let buffer: PixelBuffer

    /// Wraps `buffer` as FFmpeg format `format` (for example `yuvj420p` for I420 planes read as JPEG YCbCr).
    init(_ buffer: PixelBuffer, as format: AVPixelFormat) throws {
        guard let frame = av_frame_alloc() else { throw FFmpegError("av_frame_alloc") }
        self.frame = frame
        self.buffer = buffer
        frame.pointee.format = format.rawValue
        frame.pointee.width = Int32(buffer.width)
        frame.pointee.height = Int32(buffer.height)
        if format == AV_PIX_FMT_YUVJ420P { frame.pointee.color_range = AVCOL_RANGE_JPEG }
        let data = FFmpeg.dataPointer(frame), linesize = FFmpeg.linesizePointer(frame)
        for plane in buffer.planes.indices {
            data[plane] = buffer.baseAddress(ofPlane: plane)
            linesize[plane] = buffer.bytesPerRow(ofPlane: plane)
        }
        let reference = av_buffer_create(buffer.baseAddress.assumingMemoryBound(to: UInt8.self), buffer.capacity,
                                         { _, _ in }, nil, 0)
        guard let reference else { throw FFmpegError("av_buffer_create") }
        FFmpeg.bufferPointer(frame)[0] = reference
    }

    /// Frees the frame; the planes stay with `buffer`.
    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
    }
}

/// An `AVFrame` whose planes FFmpeg allocated (`av_frame_get_buffer`), for an FFmpeg-side intermediate.
final class OwnedFrame {
    /// The frame.
    let frame: UnsafeMutablePointer<AVFrame>

    /// Allocates a `width`×`height` frame of `format`, every byte written once.
    init(width: Int, height: Int, format: AVPixelFormat) throws {
        guard let frame = av_frame_alloc() else { throw FFmpegError("av_frame_alloc") }
        self.frame = frame
        frame.pointee.format = format.rawValue
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        if format == AV_PIX_FMT_YUVJ420P { frame.pointee.color_range = AVCOL_RANGE_JPEG }
        let status = av_frame_get_buffer(frame, 0)
        guard status == 0 else { throw FFmpegError("av_frame_get_buffer", code: status) }
        let buffers = FFmpeg.bufferPointer(frame)
        for index in 0..<8 {
            guard let reference = buffers[index] else { break }
            reference.pointee.data.update(repeating: 0, count: Int(reference.pointee.size))
        }
    }

    /// Frees the frame and its planes.
    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av_frame_free(&frame)
    }
}
