internal import CMediaLoader
import Glibc

/// A movie's video encoder, opened exactly as `MovieWriter` opens it for `settings` but writing
/// nowhere: a recorder encodes a few of the camera's first frames with it to measure how fast this
/// machine encodes at that size and effort (x264 preset) before it opens the file, since a file's
/// encoder settings cannot change once it has begun.
///
/// Not thread-safe: one thread owns a trial. Frames get consecutive times one nominal frame
/// interval apart.
public final class VideoEncoderTrial {
    /// The settings measured.
    public let settings: MovieSettings
    /// The open encoder (nil once finished).
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// The frame each picture is lent to FFmpeg through.
    private var frame: UnsafeMutablePointer<AVFrame>?
    /// Where encoded packets are taken (and dropped).
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// The next frame's time, in the video time base.
    private var pts: Int64 = 0
    /// Frames encoded so far.
    public private(set) var frameCount = 0

    /// Opens the encoder `settings` name (its size, quality and preset; sound is ignored) for
    /// frames of `range`; throws what the writer would (no FFmpeg, no such encoder).
    public init(settings: MovieSettings, range: YUVRange = .video) throws(MediaError) {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        self.settings = settings
        let (made, name) = try MovieWriter.makeVideoEncoder(settings, range: range, globalHeader: settings.format == .mp4)
        context = made
        frame = ffmpeg.av_frame_alloc()
        packet = ffmpeg.av_packet_alloc()
        guard frame != nil, packet != nil else {
            release()
            throw .encoderFailed(format: "movie", reason: "out of memory")
        }
        let status = ffmpeg.avcodec_open2(made, ffmpeg.avcodec_find_encoder_by_name(name), nil)
        guard status >= 0 else {
            release()
            throw .encoderFailed(format: "movie", reason: "opening \(name) failed: \(MovieFile.message(status))")
        }
    }

    deinit {
        FFmpegLog.enter()
        release()
        FFmpegLog.leave()
    }

    /// Encodes `buffer` (I420 at the settings' size) and throws away whatever comes out.
    public func encode(_ buffer: PixelBuffer) throws(MediaError) {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        guard let context, let frame else { throw .encoderFailed(format: "movie", reason: "the trial is finished") }
        guard buffer.format == .i420, buffer.width == settings.width, buffer.height == settings.height else {
            throw .mismatch("the trial takes \(settings.width)×\(settings.height) I420 frames, not \(buffer.width)×\(buffer.height) \(buffer.format)")
        }
        try check(MovieWriter.send(buffer, pts: pts, through: frame, to: context), "encoding video")
        pts += 90_000 / Int64(max(1, settings.frameRate))
        frameCount += 1
        try discardPackets()
    }

    /// Flushes the encoder (every frame sent is then fully encoded: with frame threads and
    /// look-ahead, most of the work of the last frames happens here) and closes it.
    public func finish() throws(MediaError) {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        defer { release() }
        guard let context else { return }
        try check(ffmpeg.avcodec_send_frame(context, nil), "finishing the video")
        try discardPackets()
    }

    /// Takes every packet the encoder has ready, and drops it.
    private func discardPackets() throws(MediaError) {
        guard let context, let packet else { return }
        while true {
            let status = ffmpeg.avcodec_receive_packet(context, packet)
            if status == pinhole_averror_eagain() || status == pinhole_averror_eof() { return }
            try check(status, "encoding")
            ffmpeg.av_packet_unref(packet)
        }
    }

    /// Throws for a negative FFmpeg status: `what` failed.
    private func check(_ status: Int32, _ what: String) throws(MediaError) {
        guard status < 0 else { return }
        throw .encoderFailed(format: "movie", reason: "\(what) failed: \(MovieFile.message(status))")
    }

    /// Frees the encoder and its frame and packet (safe to call twice).
    private func release() {
        ffmpeg.avcodec_free_context(&context)
        ffmpeg.av_frame_free(&frame)
        ffmpeg.av_packet_free(&packet)
    }
}
