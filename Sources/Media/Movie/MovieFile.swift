internal import CMediaLoader
import Glibc

/// What a movie file holds, read from its container (libavformat) without decoding it all.
public struct MovieInfo: Sendable, Equatable {
    /// The container.
    public let kind: MovieKind
    /// Stored width of the video in pixels (before `rotation`).
    public let width: Int
    /// Stored height of the video in pixels.
    public let height: Int
    /// Length in seconds.
    public let duration: Double
    /// The video codec's short name ("h264", "vp9", …).
    public let videoCodec: String
    /// The first audio stream's codec ("aac", "opus", …), or nil for a silent movie.
    public let audioCodec: String?
    /// Average frames per second, when the container says.
    public let frameRate: Double?
    /// Number of video frames, when the container says (MP4 does, Matroska usually not).
    public let frameCount: Int?
    /// When it was recorded (the container's creation_time), seconds since 1970.
    public let creationDate: Double?
    /// The clockwise turn that shows the video upright (from the display matrix a phone writes).
    public let rotation: Rotation
    /// Where it was recorded (an ISO 6709 `location` tag, as phones write), if the file says.
    public let location: ExifLocation?

    /// The size as displayed (after `rotation`).
    public var displaySize: (width: Int, height: Int) { rotation.swapsDimensions ? (height, width) : (width, height) }
}

/// An open movie file: its `MovieInfo` and its first frame (for thumbnails and import checks).
///
/// Only MP4/MOV and Matroska/WebM with a video stream are accepted; anything else, or a file
/// whose first frame does not decode, is refused with `MediaError.corruptData`.
public final class MovieFile {
    /// What the file holds.
    public let info: MovieInfo
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let videoStream: Int32
    private let path: String

    /// Opens and checks the movie at `path` (reads its headers and stream parameters).
    public init(path: String) throws(MediaError) {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        self.path = path
        // Only a regular file, opened without blocking; FFmpeg opens that very file by its
        // descriptor's name, never whatever the path names by then.
        let file = try RegularFile(path: path)
        defer { withExtendedLifetime(file) {} }  // open while FFmpeg opens it by its descriptor's name
        guard let kind = MovieKind(sniffing: try file.read(upTo: 64)) else {
            throw .corruptData(format: "movie", reason: "it is not an MP4, MOV, WebM or MKV file")
        }
        // What FFmpeg 5.1 does not check: sample tables declaring more entries than they hold.
        try MovieTables.checkIfISO(file, kind: kind)
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let status = ffmpeg.avformat_open_input(&opened, file.descriptorPath, nil, nil)
        guard status >= 0, let context = opened else { throw .corruptData(format: "movie", reason: MovieFile.message(status)) }
        do {
            (info, videoStream) = try MovieFile.probe(context, kind: kind)
        } catch {
            // A failing init never runs deinit: close here, or every refused file leaks a descriptor.
            ffmpeg.avformat_close_input(&opened)
            throw error
        }
        self.context = context
    }

    /// Reads the container's streams and checks there is a decodable-looking video stream.
    private static func probe(_ context: UnsafeMutablePointer<AVFormatContext>, kind: MovieKind) throws(MediaError) -> (MovieInfo, Int32) {
        let status = ffmpeg.avformat_find_stream_info(context, nil)
        guard status >= 0 else { throw .corruptData(format: "movie", reason: MovieFile.message(status)) }
        let formatName = String(cString: context.pointee.iformat.pointee.name)
        guard formatName.hasPrefix("mov,mp4") || formatName.hasPrefix("matroska") else {
            throw .corruptData(format: "movie", reason: "the container is \(formatName), not MP4, MOV, WebM or MKV")
        }
        let video = ffmpeg.av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard video >= 0, let stream = context.pointee.streams[Int(video)], let parameters = stream.pointee.codecpar else {
            throw .corruptData(format: "movie", reason: "it has no video stream")
        }
        let width = Int(parameters.pointee.width), height = Int(parameters.pointee.height)
        guard width > 0, height > 0 else { throw .corruptData(format: "movie", reason: "the video stream has no size") }
        try DecodingLimits.check(width: width, height: height)
        let audio = ffmpeg.av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        let audioCodec = audio >= 0 ? context.pointee.streams[Int(audio)].map { ffmpeg.avcodec_get_name($0.pointee.codecpar.pointee.codec_id).map { String(cString: $0) } ?? "unknown" } : nil
        var duration = context.pointee.duration != Int64.min ? Double(context.pointee.duration) / Double(AV_TIME_BASE) : 0
        if duration <= 0, stream.pointee.duration != Int64.min {
            duration = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        }
        let rate = stream.pointee.avg_frame_rate
        var rotation = Rotation.none
        var sideSize = 0
        if let matrix = ffmpeg.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &sideSize), sideSize >= 36 {
            let counterClockwise = ffmpeg.av_display_rotation_get(UnsafeRawPointer(matrix).assumingMemoryBound(to: Int32.self))
            if counterClockwise.isFinite {
                let clockwise = ((-Int(counterClockwise.rounded()) % 360) + 360) % 360
                rotation = (try? Rotation(degrees: (clockwise + 45) / 90 * 90 % 360)) ?? .none
            }
        }
        let info = MovieInfo(
            kind: formatName.hasPrefix("matroska") ? (kind == .webm ? .webm : .matroska) : kind,
            width: width, height: height, duration: max(0, duration),
            videoCodec: ffmpeg.avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown", audioCodec: audioCodec,
            frameRate: rate.den > 0 && rate.num > 0 ? av_q2d(rate) : nil,
            frameCount: stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : nil,
            creationDate: MovieFile.creationTime(context.pointee.metadata) ?? MovieFile.creationTime(stream.pointee.metadata),
            rotation: rotation,
            location: MovieFile.location(context.pointee.metadata))
        return (info, video)
    }

    deinit {
        FFmpegLog.enter()
        ffmpeg.avformat_close_input(&context)
        FFmpegLog.leave()
    }

    /// Decodes the first video frame, scaled to fit `longestSide` (never enlarged) and turned
    /// upright, as BGRA. Throws when no frame decodes (a damaged or truncated movie).
    public func firstFrame(longestSide: Int) throws(MediaError) -> PixelBuffer {
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        guard let context, let stream = context.pointee.streams[Int(videoStream)] else { throw .corruptData(format: "movie", reason: "closed") }
        guard let decoder = ffmpeg.avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id) else {
            throw .unsupported("decoding \(info.videoCodec) video (no decoder in this FFmpeg)")
        }
        var codec = ffmpeg.avcodec_alloc_context3(decoder)
        defer { ffmpeg.avcodec_free_context(&codec) }
        guard let codec, ffmpeg.avcodec_parameters_to_context(codec, stream.pointee.codecpar) >= 0 else {
            throw .corruptData(format: "movie", reason: "the video stream's parameters are invalid")
        }
        codec.pointee.thread_count = 1
        var status = ffmpeg.avcodec_open2(codec, decoder, nil)
        guard status >= 0 else { throw .corruptData(format: "movie", reason: MovieFile.message(status)) }
        var packet = ffmpeg.av_packet_alloc()
        var frame = ffmpeg.av_frame_alloc()
        defer { ffmpeg.av_packet_free(&packet); ffmpeg.av_frame_free(&frame) }
        guard let packet, let frame else { throw .encoderFailed(format: "movie", reason: "out of memory") }
        var decoded = false, flushed = false, packets = 0
        while !decoded {
            status = ffmpeg.avcodec_receive_frame(codec, frame)
            if status >= 0 { decoded = true; break }
            guard status == pinhole_averror_eagain(), !flushed else { break }
            // Feed the decoder: packets of the video stream until one frame comes out (a few at
            // most; B-frame reordering may hold back the first), then a flush at the end of file.
            status = ffmpeg.av_read_frame(context, packet)
            if status < 0 {
                flushed = true
                _ = ffmpeg.avcodec_send_packet(codec, nil)
                continue
            }
            defer { ffmpeg.av_packet_unref(packet) }
            guard packet.pointee.stream_index == videoStream else { continue }
            packets += 1
            guard packets <= 600 else { break }
            status = ffmpeg.avcodec_send_packet(codec, packet)
            guard status >= 0 || status == pinhole_averror_eagain() else {
                throw .corruptData(format: "movie", reason: "the first frame does not decode (\(MovieFile.message(status)))")
            }
        }
        guard decoded, frame.pointee.width > 0, frame.pointee.height > 0 else {
            throw .corruptData(format: "movie", reason: "no video frame decodes (the file is damaged or truncated)")
        }
        let size = PixelTransform.fitting(width: Int(frame.pointee.width), height: Int(frame.pointee.height), longestSide: longestSide)
        let image = try PixelBuffer(format: .bgra, width: size.width, height: size.height)
        guard let scaler = ffmpeg.sws_getContext(frame.pointee.width, frame.pointee.height, AVPixelFormat(frame.pointee.format),
                                          Int32(size.width), Int32(size.height), AV_PIX_FMT_BGRA, SWS_AREA, nil, nil, nil) else {
            throw .unsupported("converting this movie's pixel format")
        }
        defer { ffmpeg.sws_freeContext(scaler) }
        var destination: [UnsafeMutablePointer<UInt8>?] = [image.baseAddress(ofPlane: 0), nil, nil, nil]
        var strides: [Int32] = [image.bytesPerRow(ofPlane: 0), 0, 0, 0]
        let rows = withUnsafePointer(to: &frame.pointee.data) { data in
            withUnsafePointer(to: &frame.pointee.linesize) { lines in
                data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { planes in
                    lines.withMemoryRebound(to: Int32.self, capacity: 8) { sizes in
                        ffmpeg.sws_scale(scaler, planes, sizes, 0, frame.pointee.height, &destination, &strides)
                    }
                }
            }
        }
        guard rows > 0 else { throw .unsupported("converting this movie's pixel format") }
        // Video decoders leave alpha undefined for BGRA output of YUV: make it opaque.
        for row in 0..<image.height {
            let line = image.baseAddress(ofPlane: 0) + row * Int(image.bytesPerRow(ofPlane: 0))
            for x in 0..<image.width { line[x * 4 + 3] = 255 }
        }
        return info.rotation == .none ? image : try PixelTransform.rotated(image, by: info.rotation)
    }

    /// The container's creation_time ("2026-11-29T14:03:22.000000Z") as seconds since 1970, when
    /// it is a date that can be: years 1971 to 9999, months, days and times in their ranges.
    /// Anything else (a hostile "2147483000-12001-01T00:00:00", a zero date) is no date: the
    /// caller uses another (the file's time).
    static func creationTime(_ metadata: OpaquePointer?) -> Double? {
        guard let entry = ffmpeg.av_dict_get(metadata, "creation_time", nil, 0), let value = entry.pointee.value else { return nil }
        return parseCreationTime(String(cString: value))
    }

    /// Parses "YYYY-MM-DDTHH:MM:SS…" (UTC); nil when a field is out of its range.
    static func parseCreationTime(_ text: String) -> Double? {
        let digits = text.split(whereSeparator: { !$0.isNumber }).map { Int($0) }
        guard digits.count >= 6, let year = digits[0], let month = digits[1], let day = digits[2],
              let hour = digits[3], let minute = digits[4], let second = digits[5],
              (1971...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        return seconds > 0 ? Double(seconds) : nil
    }

    /// The ISO 6709 location ("+48.8577+002.2950+035.000/") of a `location` tag (MP4's ©xyz,
    /// QuickTime's com.apple.quicktime.location.ISO6709).
    private static func location(_ metadata: OpaquePointer?) -> ExifLocation? {
        let entry = ffmpeg.av_dict_get(metadata, "location", nil, 0) ?? ffmpeg.av_dict_get(metadata, "com.apple.quicktime.location.ISO6709", nil, 0)
        guard let value = entry?.pointee.value else { return nil }
        return parseISO6709(String(cString: value))
    }

    /// Parses "±DD.DDDD±DDD.DDDD[±AAA.AAA]/" (decimal degrees; the common form).
    static func parseISO6709(_ text: String) -> ExifLocation? {
        var numbers: [Double] = []
        var current = ""
        for character in text {
            if character == "+" || character == "-" || character == "/" {
                if let value = Double(current) { numbers.append(value) }
                current = character == "/" ? "" : String(character)
            } else if character.isNumber || character == "." {
                current.append(character)
            } else {
                return nil
            }
        }
        if let value = Double(current) { numbers.append(value) }
        guard numbers.count >= 2, abs(numbers[0]) <= 90, abs(numbers[1]) <= 180 else { return nil }
        return ExifLocation(latitude: numbers[0], longitude: numbers[1], altitude: numbers.count > 2 ? numbers[2] : nil)
    }

    /// FFmpeg's text for an error code, with the last error line it logged on this thread while
    /// Media worked (the code alone often says only "Invalid data found when processing input").
    static func message(_ status: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        _ = ffmpeg.av_strerror(status, &buffer, buffer.count)
        let text = buffer.nulTerminatedString
        guard let line = FFmpegLog.lastError, line != text else { return text }
        return "\(text): \(line)"
    }
}
