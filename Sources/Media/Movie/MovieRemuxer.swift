internal import CMediaLoader
import Glibc

/// Rewrites a movie's container without touching its encoded streams.
enum MovieRemuxer {
    /// Turns the fragmented MP4 at `path` into a regular one (a single `moov`, moved to the front
    /// so players can start before the end arrives), in place and durably: written to a temporary
    /// name in the same folder, fsync'd, renamed over the original, folder fsync'd. The streams'
    /// packets are copied, not re-encoded; the display matrix and creation time are kept.
    static func makeRegularMP4(_ path: String) throws(MediaError) {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        let (folder, name) = AtomicFile.split(path)
        // Pinhole's temporary name, locked until renamed over the movie: a library opening
        // meanwhile leaves it alone, and removes it only once a crash has let its lock go.
        let (lock, temporary) = try AtomicFile.lockedTemporary(folder: folder, name: name, tag: "regular", for: path)
        guard lock >= 0 else { throw AtomicFile.failure(temporary, EEXIST) }
        defer { close(lock) }
        do throws(MediaError) {
            try remux(from: path, to: temporary, formatName: "mp4", options: ["movflags": "faststart"], dropping: { _ in false })
            guard rename(temporary, path) == 0 else { throw AtomicFile.failure(path, errno) }
            AtomicFile.syncFolder(folder)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Copies the movie at `source` to `path` (or the first free "name (n).ext" beside it) without
    /// the container and stream tags `dropping` accepts (`LocationMetadata`'s rule for movie keys),
    /// streams untouched; durably, as `AtomicFile` writes. Returns the path written.
    static func copyWithoutLocation(from source: String, to path: String, dropping: (String) -> Bool) throws(MediaError) -> String {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        let (folder, name) = AtomicFile.split(path)
        try AtomicFile.makeFolders(folder)
        let temporary = "\(folder)/.\(name).\(getpid()).private.tmp"
        defer { unlink(temporary) }
        guard let format = ffmpeg.av_guess_format(nil, path, nil), let formatName = format.pointee.name else {
            throw .unsupported("writing a movie named \(name)")
        }
        try remux(from: source, to: temporary, formatName: String(cString: formatName), options: [:], dropping: dropping)
        return try AtomicFile.place(temporary, at: path)
    }

    /// Copies every stream of `source` into a new `formatName` file at `temporary` (fsync'd),
    /// keeping metadata and the display matrix except the keys `dropping` accepts.
    private static func remux(from source: String, to temporary: String, formatName: String, options: [String: String],
                              dropping: (String) -> Bool) throws(MediaError) {
        var input: UnsafeMutablePointer<AVFormatContext>?
        let file = try RegularFile(path: source)  // a regular file only, opened without blocking
        defer { withExtendedLifetime(file) {} }
        try MovieTables.checkIfISO(file)  // what FFmpeg 5.1 does not check
        guard ffmpeg.avformat_open_input(&input, file.descriptorPath, nil, nil) >= 0, let reader = input else {
            throw .corruptData(format: "movie", reason: "\(source) cannot be read back")
        }
        defer { ffmpeg.avformat_close_input(&input) }
        guard ffmpeg.avformat_find_stream_info(reader, nil) >= 0 else { throw .corruptData(format: "movie", reason: "\(source) has unreadable streams") }
        var output: UnsafeMutablePointer<AVFormatContext>?
        guard ffmpeg.avformat_alloc_output_context2(&output, nil, formatName, temporary) >= 0, let writer = output else {
            throw .encoderFailed(format: "movie", reason: "FFmpeg cannot write \(formatName)")
        }
        defer {
            if writer.pointee.pb != nil { _ = ffmpeg.avio_closep(&writer.pointee.pb) }
            ffmpeg.avformat_free_context(writer)
        }
        copyMetadata(reader.pointee.metadata, into: &writer.pointee.metadata, dropping: dropping)
        for index in 0..<Int(reader.pointee.nb_streams) {
            guard let from = reader.pointee.streams[index], let to = ffmpeg.avformat_new_stream(writer, nil),
                  ffmpeg.avcodec_parameters_copy(to.pointee.codecpar, from.pointee.codecpar) >= 0 else {
                throw .encoderFailed(format: "movie", reason: "copying stream \(index) failed")
            }
            to.pointee.codecpar.pointee.codec_tag = 0
            to.pointee.time_base = from.pointee.time_base
            copyMetadata(from.pointee.metadata, into: &to.pointee.metadata, dropping: dropping)
            var size = 0
            if let matrix = ffmpeg.av_stream_get_side_data(from, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0,
               let copy = ffmpeg.av_stream_new_side_data(to, AV_PKT_DATA_DISPLAYMATRIX, size) {
                copy.update(from: matrix, count: size)
            }
        }
        unlink(temporary)
        guard ffmpeg.avio_open(&writer.pointee.pb, temporary, AVIO_FLAG_WRITE) >= 0 else {
            throw AtomicFile.failure(temporary, errno == 0 ? EACCES : errno)
        }
        var dictionary: OpaquePointer?
        defer { ffmpeg.av_dict_free(&dictionary) }
        for (key, value) in options { _ = ffmpeg.av_dict_set(&dictionary, key, value, 0) }
        try check(ffmpeg.avformat_write_header(writer, &dictionary), temporary)
        var packet = ffmpeg.av_packet_alloc()
        defer { ffmpeg.av_packet_free(&packet) }
        guard let packet else { throw .encoderFailed(format: "movie", reason: "out of memory") }
        // A fragmented MP4 reads back without packet durations (its sample table has them), and a
        // regular one takes each sample's length from its packet: every packet waits for the next
        // of its stream (length = the gap), the last takes what the stream's duration leaves.
        var held: [UnsafeMutablePointer<AVPacket>?] = (0..<Int(reader.pointee.nb_streams)).map { _ in ffmpeg.av_packet_alloc() }
        defer { for index in held.indices { ffmpeg.av_packet_free(&held[index]) } }
        func write(_ index: Int, before next: Int64?) throws(MediaError) {
            guard let waiting = held[index], waiting.pointee.size > 0, let from = reader.pointee.streams[index],
                  let to = writer.pointee.streams[index] else { return }
            if waiting.pointee.duration <= 0 {
                let end = next ?? (from.pointee.duration > 0 ? max(from.pointee.start_time, 0) + from.pointee.duration : Int64.min)
                if end > waiting.pointee.dts { waiting.pointee.duration = end - waiting.pointee.dts }
            }
            ffmpeg.av_packet_rescale_ts(waiting, from.pointee.time_base, to.pointee.time_base)
            waiting.pointee.pos = -1
            try check(ffmpeg.av_interleaved_write_frame(writer, waiting), temporary)
            ffmpeg.av_packet_unref(waiting)
        }
        while ffmpeg.av_read_frame(reader, packet) >= 0 {
            let index = Int(packet.pointee.stream_index)
            guard index < held.count, let waiting = held[index] else { ffmpeg.av_packet_unref(packet); continue }
            try write(index, before: packet.pointee.dts)
            ffmpeg.av_packet_move_ref(waiting, packet)
        }
        for index in held.indices { try write(index, before: nil) }
        try check(ffmpeg.av_write_trailer(writer), temporary)
        _ = ffmpeg.avio_closep(&writer.pointee.pb)
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0, fsync(fd) == 0 else {
            let code = errno
            if fd >= 0 { close(fd) }
            throw AtomicFile.failure(temporary, code)
        }
        close(fd)
    }

    /// Copies `source`'s entries into `target`, leaving out the keys `dropping` accepts.
    private static func copyMetadata(_ source: OpaquePointer?, into target: inout OpaquePointer?, dropping: (String) -> Bool) {
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = ffmpeg.av_dict_get(source, "", entry, AV_DICT_IGNORE_SUFFIX) {
            entry = next
            guard let key = next.pointee.key, let value = next.pointee.value, !dropping(String(cString: key)) else { continue }
            _ = ffmpeg.av_dict_set(&target, key, value, 0)
        }
    }

    private static func check(_ status: Int32, _ path: String) throws(MediaError) {
        guard status < 0 else { return }
        if status == -ENOSPC { throw AtomicFile.failure(path, ENOSPC) }
        throw .encoderFailed(format: "movie", reason: "rewriting the movie failed: \(MovieFile.message(status))")
    }
}
