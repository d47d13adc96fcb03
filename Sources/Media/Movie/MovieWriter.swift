internal import CMediaLoader
import Glibc

/// Encodes I420 frames and 16-bit sound into a movie file with FFmpeg (libx264 + AAC in MP4, or
/// VP9/VP8 + Opus in WebM), so that a crash at any moment leaves a file that plays.
///
/// MP4 is written fragmented (`empty_moov`, a fragment at each key frame, one per
/// `fragmentInterval`), and the file is fdatasync'd after each fragment: a SIGKILL or a power cut
/// loses at most the fragment in progress. `finish()` then rewrites it as a regular MP4 (one
/// `moov` at the front, seekable everywhere) under a temporary name, flushed and renamed over the
/// fragmented one. WebM is written cluster by cluster, which plays after a crash the same way.
///
/// Not thread-safe: one thread (the recorder's encoding thread) owns a writer. Frame timestamps
/// are CLOCK_MONOTONIC nanoseconds; the first video frame is time zero, sound before it is cut.
public final class MovieWriter {
    /// The file being written.
    public let path: String
    /// How it is encoded.
    public let settings: MovieSettings
    /// Bytes in the file so far.
    public var bytesWritten: Int64 { sink.written }
    /// Video frames encoded so far.
    public private(set) var videoFrameCount = 0
    /// Length so far, in seconds: the newest video frame's time while recording; once finished,
    /// the file's length (until the end its last frame lasts).
    public private(set) var duration: Double = 0

    private let sink: FileSink
    /// A duplicate of the file's descriptor that keeps the recorder's flock until the file is final.
    private var lock: Int32 = -1
    var format: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private var video: UnsafeMutablePointer<AVCodecContext>?
    var audio: UnsafeMutablePointer<AVCodecContext>?
    private let videoStream: UnsafeMutablePointer<AVStream>
    var audioStream: UnsafeMutablePointer<AVStream>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var heldVideo: UnsafeMutablePointer<AVPacket>?
    private var videoFrame: UnsafeMutablePointer<AVFrame>?
    var audioFrame: UnsafeMutablePointer<AVFrame>?
    var origin: Int64?
    private var lastVideoPTS: Int64 = -1
    /// The file's size after the last complete fragment (synced to disk).
    private var completeSize: Int64 = 0
    var pendingAudio: [Int16]
    var pendingCount = 0
    var nextAudioPTS: Int64 = 0
    var audioAnchored = false
    var samplesToSkip = 0
    var finished = false
    /// Sound samples (per channel) cut or inserted to keep sound on the video's clock.
    public internal(set) var audioCorrections = 0

    /// The video time base: 90 kHz, as MPEG uses.
    private static let videoTimeBase = AVRational(num: 1, den: 90_000)

    /// Creates the file at `path` (it must not exist: the caller picks a free name) and opens the
    /// encoders; `range` is the range of the YUV frames to come (cameras: video; MJPEG: full).
    public init(path: String, settings: MovieSettings, range: YUVRange = .video, creationDate: Double? = nil) throws(MediaError) {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        guard settings.width > 0, settings.height > 0, settings.width % 2 == 0, settings.height % 2 == 0 else {
            throw .invalidDimensions(width: settings.width, height: settings.height, reason: "a movie needs an even, positive size")
        }
        self.path = path
        self.settings = settings
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AtomicFile.failure(path, errno) }
        // The recorder's lock (see `MovieRecovery`), taken before the first byte is written and
        // held on a duplicate until the file is final, so that closing the writing descriptor
        // before the remux does not let it go. Another process may hold it for a moment while it
        // looks at the still empty file.
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        let lockDescriptor = fcntl(fd, F_DUPFD_CLOEXEC, 0)  // not dup(): a child spawned meanwhile must not inherit the lock
        lock = lockDescriptor
        // The new name must survive a power cut too, not only the data synced into it later.
        let folder = open(path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        sink = FileSink(fd: fd)
        pendingAudio = [Int16](repeating: 0, count: 2 * 2048 * max(1, settings.audio?.channels ?? 1))
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard ffmpeg.avformat_alloc_output_context2(&context, nil, settings.format == .mp4 ? "mp4" : "webm", nil) >= 0, let context,
              let stream = ffmpeg.avformat_new_stream(context, nil) else {
            close(fd)
            if lockDescriptor >= 0 { close(lockDescriptor) }
            unlink(path)
            throw .encoderFailed(format: "movie", reason: "FFmpeg cannot write \(settings.format.fileExtension)")
        }
        format = context
        videoStream = stream
        do throws(MediaError) {
            try openIO()
            try openVideo(range: range)
            if let sound = settings.audio { try openAudio(sampleRate: sound.sampleRate, channels: sound.channels) }
            if let creationDate { _ = ffmpeg.av_dict_set(&context.pointee.metadata, "creation_time", MovieWriter.iso8601(creationDate), 0) }
            var options: OpaquePointer?
            defer { ffmpeg.av_dict_free(&options) }
            if settings.format == .mp4 {
                _ = ffmpeg.av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0)
            } else {
                _ = ffmpeg.av_dict_set(&options, "cluster_time_limit", String(Int(settings.fragmentInterval * 1000)), 0)
            }
            // Interleaving waits for every stream; a late microphone must not hold video back for long.
            context.pointee.max_interleave_delta = 500_000
            try check(ffmpeg.avformat_write_header(context, &options), "writing the header")
            guard let made = ffmpeg.av_packet_alloc(), let held = ffmpeg.av_packet_alloc(), let frame = ffmpeg.av_frame_alloc() else {
                throw MediaError.encoderFailed(format: "movie", reason: "out of memory")
            }
            packet = made
            heldVideo = held
            videoFrame = frame
            try sync()
        } catch {
            release()
            unlink(path)
            throw error
        }
    }

    deinit {
        FFmpegLog.enter()
        release()
        FFmpegLog.leave()
    }

    /// Encodes one I420 frame taken at `timestampNanoseconds` (CLOCK_MONOTONIC). Frames must
    /// come in time order; one at or before the previous frame's time is skipped. The pixels are
    /// referenced, not copied: keep the buffer unchanged until the call returns (the encoder
    /// copies what it keeps).
    public func appendVideo(_ buffer: PixelBuffer, timestampNanoseconds: Int64) throws(MediaError) {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        guard !finished, let video, let frame = videoFrame else { throw .encoderFailed(format: "movie", reason: "the movie is finished") }
        guard buffer.format == .i420, buffer.width == settings.width, buffer.height == settings.height else {
            throw .mismatch("the movie takes \(settings.width)×\(settings.height) I420 frames, not \(buffer.width)×\(buffer.height) \(buffer.format)")
        }
        let origin = self.origin ?? timestampNanoseconds
        self.origin = origin
        let pts = (timestampNanoseconds - origin) * 9 / 100_000
        guard pts > lastVideoPTS else { return }
        lastVideoPTS = pts
        try check(MovieWriter.send(buffer, pts: pts, through: frame, to: video), "encoding video")
        try drain(video, stream: videoStream)
        videoFrameCount += 1
        duration = Double(timestampNanoseconds - origin) / 1e9
    }

    /// Sends one I420 frame at `pts` (the video time base) to `codec` through `frame` (reset
    /// afterwards); returns FFmpeg's status. The frame's memory is lent to FFmpeg with a reference
    /// on the buffer, released when the encoder lets go: no copy into FFmpeg-owned memory, and the
    /// pool sees the buffer busy.
    static func send(_ buffer: PixelBuffer, pts: Int64, through frame: UnsafeMutablePointer<AVFrame>,
                     to codec: UnsafeMutablePointer<AVCodecContext>) -> Int32 {
        frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointee.width = Int32(buffer.width)
        frame.pointee.height = Int32(buffer.height)
        frame.pointee.pts = pts
        for plane in 0..<3 {
            frame.pointee[data: plane] = buffer.baseAddress(ofPlane: plane)
            frame.pointee[linesize: plane] = buffer.bytesPerRow(ofPlane: plane)
        }
        let owner = Unmanaged.passRetained(buffer).toOpaque()
        frame.pointee.buf.0 = ffmpeg.av_buffer_create(buffer.baseAddress.assumingMemoryBound(to: UInt8.self), buffer.capacity,
                                               { opaque, _ in opaque.map { Unmanaged<PixelBuffer>.fromOpaque($0).release() } },
                                               owner, Int32(AV_BUFFER_FLAG_READONLY))
        guard frame.pointee.buf.0 != nil else {
            Unmanaged<PixelBuffer>.fromOpaque(owner).release()
            return -12  // AVERROR(ENOMEM)
        }
        let status = ffmpeg.avcodec_send_frame(codec, frame)
        ffmpeg.av_frame_unref(frame)
        return status
    }

    /// Flushes the encoders, writes the end of the file, makes an MP4 a regular one, and syncs it
    /// to disk. The writer cannot be used afterwards. Returns why an MP4 stayed fragmented (the
    /// remux needs room for a second copy): the file is complete and plays, but some players
    /// (GStreamer's) seek only in its first fragment; `MovieRecovery` finishes it later, as the
    /// photo library does when next opened. Nil when the file is final as intended.
    ///
    /// `end` (CLOCK_MONOTONIC nanoseconds, like the frames' timestamps) is when the recording
    /// ended: the last frame lasts until then, so the file is as long as the recording was even
    /// when its last frames were left out (a slow encoder keeps fewer frames per second, not a
    /// shorter movie). Without it, or when it is not after the last frame, the last frame lasts
    /// one nominal frame interval. `duration` is then the file's length.
    @discardableResult
    public func finish(endingAt end: Int64? = nil) throws(MediaError) -> MediaError? {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        guard !finished, let format else { return nil }
        finished = true
        defer { release() }
        do throws(MediaError) {
            if audio != nil { try flushAudio(partial: true) }
            if let video {
                try check(ffmpeg.avcodec_send_frame(video, nil), "finishing the video")
                try drain(video, stream: videoStream)
                let last = lastVideoPTS
                let endPTS = end.flatMap { end in origin.map { (end - $0) * 9 / 100_000 } }.flatMap { $0 > last ? $0 : nil }
                let lasting = try writeHeldVideo(before: endPTS.map { ffmpeg.av_rescale_q($0, MovieWriter.videoTimeBase, videoStream.pointee.time_base) })
                let base = videoStream.pointee.time_base
                if lasting > 0 { duration = Double(last) / 90_000 + Double(lasting) * Double(base.num) / Double(base.den) }
            }
            if let audio, let audioStream {
                try check(ffmpeg.avcodec_send_frame(audio, nil), "finishing the sound")
                try drain(audio, stream: audioStream)
            }
            try check(ffmpeg.av_write_trailer(format), "finishing the file")
            try sync()
        } catch {
            cutBack()
            throw error
        }
        closeIO()
        // A regular MP4 needs room for a second copy; without it the fragmented file stays, which
        // is complete and plays everywhere, only without an index at the front.
        guard settings.format == .mp4, videoFrameCount > 0 else { return nil }
        do { try MovieRemuxer.makeRegularMP4(path) } catch { return error }
        return nil
    }

    /// Cuts the file back to its last complete fragment and stops every further write (FFmpeg's
    /// buffer would otherwise land past the cut when the I/O context closes).
    private func cutBack() {
        if sink.error == 0 { sink.error = EIO }
        if sink.fd >= 0 {
            _ = ftruncate(sink.fd, off_t(completeSize))
            _ = fdatasync(sink.fd)
        }
    }

    /// Stops writing without finishing (a fatal error such as a full disk): the file is cut back
    /// to its last complete fragment, so it plays to the end without errors.
    public func abandon() {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        finished = true
        cutBack()
        release()
    }

    // MARK: - Setting up

    private func openIO() throws(MediaError) {
        guard let format, let buffer = ffmpeg.av_malloc(1 << 16) else { throw .encoderFailed(format: "movie", reason: "out of memory") }
        let opaque = Unmanaged.passUnretained(sink).toOpaque()
        io = ffmpeg.avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), 1 << 16, 1, opaque, nil, { opaque, data, size in
            Unmanaged<FileSink>.fromOpaque(opaque!).takeUnretainedValue().write(data, Int(size))
        }, { opaque, offset, whence in
            Unmanaged<FileSink>.fromOpaque(opaque!).takeUnretainedValue().seek(offset, whence)
        })
        guard io != nil else {
            ffmpeg.av_free(buffer)
            throw .encoderFailed(format: "movie", reason: "out of memory")
        }
        format.pointee.pb = io
        format.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    }

    /// The video encoder FFmpeg names for `format`.
    private static func encoderName(_ format: MovieSettings.Format) -> String {
        switch format {
        case .mp4: "libx264"
        case .webm: "libvpx-vp9"
        case .webmVP8: "libvpx"
        }
    }

    /// Loads FFmpeg and opens and closes `format`'s video encoder once on a tiny picture, so that
    /// the writer made for the first frame opens at once: on a slow machine the first load takes
    /// seconds, which a recorder spends before its clock starts rather than inside the recording.
    /// Throws what the writer would (no FFmpeg, no such encoder).
    public static func prepare(format: MovieSettings.Format) throws(MediaError) {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        let name = encoderName(format)
        guard let codec = ffmpeg.avcodec_find_encoder_by_name(name) else {
            throw .encoderFailed(format: "movie", reason: "this FFmpeg has no \(name) encoder (install libavcodec59 from Debian)")
        }
        var allocated = ffmpeg.avcodec_alloc_context3(codec)
        defer { ffmpeg.avcodec_free_context(&allocated) }
        guard let context = allocated else { throw .encoderFailed(format: "movie", reason: "out of memory") }
        context.pointee.width = 64
        context.pointee.height = 64
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = videoTimeBase
        context.pointee.framerate = AVRational(num: 30, den: 1)
        context.pointee.thread_count = 1
        _ = ffmpeg.avcodec_open2(context, codec, nil)
    }

    /// A video encoder for `settings`, configured but not opened (with the encoder's name, for
    /// messages): the writer's, and `VideoEncoderTrial`'s, which measures the same encoder.
    static func makeVideoEncoder(_ settings: MovieSettings, range: YUVRange, globalHeader: Bool) throws(MediaError) -> (UnsafeMutablePointer<AVCodecContext>, String) {
        let name = encoderName(settings.format)
        guard let codec = ffmpeg.avcodec_find_encoder_by_name(name), let context = ffmpeg.avcodec_alloc_context3(codec) else {
            throw .encoderFailed(format: "movie", reason: "this FFmpeg has no \(name) encoder (install libavcodec59 from Debian)")
        }
        context.pointee.width = Int32(settings.width)
        context.pointee.height = Int32(settings.height)
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.time_base = videoTimeBase
        context.pointee.framerate = AVRational(num: Int32(settings.frameRate), den: 1)
        context.pointee.gop_size = Int32(max(1, (Double(settings.frameRate) * settings.fragmentInterval).rounded()))
        context.pointee.color_range = range == .full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        context.pointee.colorspace = AVCOL_SPC_SMPTE170M
        context.pointee.thread_count = 0
        // No B-frames: decode order is presentation order, so the first frame is at time zero in
        // every player (fragmented MP4 has no edit list to hide a reordering delay), and a frame
        // leaves the encoder sooner.
        context.pointee.max_b_frames = 0
        switch settings.quality {
        case let .constantRateFactor(value):
            _ = ffmpeg.av_opt_set(context.pointee.priv_data, "crf", String(value), 0)
            if settings.format != .mp4 { context.pointee.bit_rate = 0 }
        case let .bitRate(value):
            context.pointee.bit_rate = Int64(value)
        }
        if settings.format == .mp4 {
            _ = ffmpeg.av_opt_set(context.pointee.priv_data, "preset", settings.preset, 0)
            // Key frames only every fragment interval (no extra ones at scene cuts): each starts a
            // fragment and costs a sync, so their number stays fixed.
            _ = ffmpeg.av_opt_set(context.pointee.priv_data, "x264-params", "scenecut=0", 0)
        } else {
            _ = ffmpeg.av_opt_set(context.pointee.priv_data, "deadline", "realtime", 0)
            _ = ffmpeg.av_opt_set(context.pointee.priv_data, "cpu-used", "8", 0)
            if settings.format == .webm { _ = ffmpeg.av_opt_set(context.pointee.priv_data, "row-mt", "1", 0) }
        }
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        return (context, name)
    }

    private func openVideo(range: YUVRange) throws(MediaError) {
        let globalHeader = format.map { $0.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 } ?? false
        let (context, name) = try MovieWriter.makeVideoEncoder(settings, range: range, globalHeader: globalHeader)
        video = context
        try check(ffmpeg.avcodec_open2(context, ffmpeg.avcodec_find_encoder_by_name(name), nil), "opening \(name)")
        try check(ffmpeg.avcodec_parameters_from_context(videoStream.pointee.codecpar, context), "describing the video")
        videoStream.pointee.time_base = context.pointee.time_base
        if settings.rotation != .none, let matrix = ffmpeg.av_stream_new_side_data(videoStream, AV_PKT_DATA_DISPLAYMATRIX, 36) {
            // av_display_rotation_get reads back the negated angle (its counter-clockwise
            // convention), which MovieFile negates again: players turn the picture clockwise by
            // `rotation` (checked against ffmpeg's autorotation in MovieFileTests).
            ffmpeg.av_display_rotation_set(UnsafeMutableRawPointer(matrix).assumingMemoryBound(to: Int32.self), Double(settings.rotation.rawValue))
        }
    }

    // MARK: - Writing

    /// Moves every packet the encoder has ready into the file; once a video key frame is written
    /// (the muxer then writes out the fragment before it) the file is synced: one sync per
    /// fragment interval, as key frames come only that often.
    func drain(_ codec: UnsafeMutablePointer<AVCodecContext>, stream: UnsafeMutablePointer<AVStream>) throws(MediaError) {
        guard let packet else { return }
        while true {
            let status = ffmpeg.avcodec_receive_packet(codec, packet)
            if status == pinhole_averror_eagain() || status == pinhole_averror_eof() { return }
            try check(status, "encoding")
            ffmpeg.av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            if codec == video {
                // A video packet's duration is the time to the next one (variable frame timing),
                // which fragmented MP4 stores per sample: each packet waits for the next.
                let heldKeyframe = heldVideo.map { $0.pointee.flags & AV_PKT_FLAG_KEY != 0 && $0.pointee.size > 0 } ?? false
                try writeHeldVideo(before: packet.pointee.dts)
                guard let held = heldVideo else { return }
                ffmpeg.av_packet_move_ref(held, packet)
                // Writing a key frame made the muxer write out the fragment before it: the file
                // now ends on a fragment's boundary.
                if heldKeyframe { try sync() }
            } else {
                try mux(packet)
            }
        }
    }

    /// Hands one packet to the muxer. MP4 fragments keep each track's samples apart, so packets
    /// go straight in (`av_write_frame`): an interleaving queue would hold a key frame back, and
    /// with it the moment the previous fragment reaches the file. WebM's clusters want
    /// interleaved packets.
    private func mux(_ packet: UnsafeMutablePointer<AVPacket>) throws(MediaError) {
        guard let format else { return }
        let status = settings.format == .mp4 ? ffmpeg.av_write_frame(format, packet) : ffmpeg.av_interleaved_write_frame(format, packet)
        ffmpeg.av_packet_unref(packet)
        try check(status, "writing")
    }

    /// Writes the held video packet, lasting until `next` (a DTS in the stream's time base), or one
    /// nominal frame when there is no next packet; returns how long it lasts (0: none was held).
    @discardableResult
    private func writeHeldVideo(before next: Int64?) throws(MediaError) -> Int64 {
        guard let held = heldVideo, held.pointee.size > 0 || held.pointee.data != nil else { return 0 }
        let nominal = ffmpeg.av_rescale_q(1, AVRational(num: 1, den: Int32(settings.frameRate)), videoStream.pointee.time_base)
        let lasting = next.map { max(1, $0 - held.pointee.dts) } ?? nominal
        held.pointee.duration = lasting
        try mux(held)
        return lasting
    }

    /// Flushes FFmpeg's buffer and fdatasyncs the file. Called after each video key frame, which
    /// starts a fragment (key frames come once per fragment interval), so the file then ends on a
    /// fragment's boundary: `abandon()` cuts back to the last such size.
    private func sync() throws(MediaError) {
        if let io { ffmpeg.avio_flush(io) }
        if sink.error != 0 { throw AtomicFile.failure(path, sink.error) }
        guard fdatasync(sink.fd) == 0 else { throw AtomicFile.failure(path, errno) }
        completeSize = sink.written
    }

    /// Throws for a negative FFmpeg status: the file's own error when a write failed, else `what` failed.
    func check(_ status: Int32, _ what: String) throws(MediaError) {
        guard status < 0 else { return }
        if sink.error != 0 { throw AtomicFile.failure(path, sink.error) }
        throw .encoderFailed(format: "movie", reason: "\(what) failed: \(MovieFile.message(status))")
    }

    private func closeIO() {
        if io != nil {
            ffmpeg.avio_flush(io)
            ffmpeg.av_freep(&io!.pointee.buffer)
            ffmpeg.avio_context_free(&io)
        }
        if sink.fd >= 0 {
            close(sink.fd)
            sink.fd = -1
        }
    }

    private func release() {
        ffmpeg.avcodec_free_context(&video)
        ffmpeg.avcodec_free_context(&audio)
        ffmpeg.av_packet_free(&packet)
        ffmpeg.av_packet_free(&heldVideo)
        ffmpeg.av_frame_free(&videoFrame)
        ffmpeg.av_frame_free(&audioFrame)
        if let format { format.pointee.pb = nil }
        ffmpeg.avformat_free_context(format)
        format = nil
        closeIO()
        if lock >= 0 {
            close(lock)
            lock = -1
        }
    }

    /// Tunes this process's memory for recording, so that it stays flat for hours. x264 frees and
    /// reallocates large frame buffers all the time, and glibc's defaults give that memory back to
    /// the kernel and fault it in again (zeroed) a moment later, 3–6% of a 1080p recording's CPU:
    /// it is kept. x264 also advises transparent huge pages for those buffers, and the kernel's
    /// khugepaged, minutes into a recording, fills partly used 2-MiB ranges to make them (steps
    /// of 1.4–3.4 MiB in resident memory at random moments, docs/soak.md): huge pages are turned
    /// off for the process, at no measured cost to x264's speed. Process-wide, so it is the
    /// program's choice (`pinhole record` makes it), not done behind its back.
    public static func tuneMemoryForRecording() { pinhole_tune_memory_for_recording() }

    /// "2026-11-29T14:03:22.000000Z" (UTC), as MP4 and Matroska store creation_time.
    static func iso8601(_ date: Double) -> String {
        var seconds = time_t(date)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String { String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)).000000Z"
    }
}
