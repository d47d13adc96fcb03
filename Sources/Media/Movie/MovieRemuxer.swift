import CAV
import Glibc

/// Rewrites a movie's container without touching its encoded streams.
enum MovieRemuxer {
    /// Turns the fragmented MP4 at `path` into a regular one (a single `moov`, moved to the front
    /// so players can start before the end arrives), in place and durably: written to a temporary
    /// name in the same folder, fsync'd, renamed over the original, folder fsync'd. The streams'
    /// packets are copied, not re-encoded; the display matrix and creation time are kept.
    static func makeRegularMP4(_ path: String) throws(MediaError) {
        var input: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&input, path, nil, nil) >= 0, let source = input else {
            throw .corruptData(format: "movie", reason: "the recording cannot be read back")
        }
        defer { avformat_close_input(&input) }
        let folderEnd = path.lastIndex(of: "/").map { path[..<$0] } ?? "."
        let temporary = "\(folderEnd)/.\(path.split(separator: "/").last ?? "movie").\(getpid()).regular.tmp"
        var output: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_alloc_output_context2(&output, nil, "mp4", temporary) >= 0, let target = output else {
            throw .encoderFailed(format: "movie", reason: "FFmpeg cannot write MP4")
        }
        defer {
            if target.pointee.pb != nil { avio_closep(&target.pointee.pb) }
            avformat_free_context(target)
        }
        av_dict_copy(&target.pointee.metadata, source.pointee.metadata, 0)
        for index in 0..<Int(source.pointee.nb_streams) {
            guard let from = source.pointee.streams[index], let to = avformat_new_stream(target, nil),
                  avcodec_parameters_copy(to.pointee.codecpar, from.pointee.codecpar) >= 0 else {
                throw .encoderFailed(format: "movie", reason: "copying stream \(index) failed")
            }
            to.pointee.codecpar.pointee.codec_tag = 0
            to.pointee.time_base = from.pointee.time_base
            av_dict_copy(&to.pointee.metadata, from.pointee.metadata, 0)
            var size = 0
            if let matrix = av_stream_get_side_data(from, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0,
               let copy = av_stream_new_side_data(to, AV_PKT_DATA_DISPLAYMATRIX, size) {
                copy.update(from: matrix, count: size)
            }
        }
        unlink(temporary)
        guard avio_open(&target.pointee.pb, temporary, AVIO_FLAG_WRITE) >= 0 else {
            throw MovieWriter.failure(temporary, errno == 0 ? EACCES : errno)
        }
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "movflags", "faststart", 0)
        do throws(MediaError) {
            try check(avformat_write_header(target, &options), temporary)
            var packet = av_packet_alloc()
            defer { av_packet_free(&packet) }
            guard let packet else { throw .encoderFailed(format: "movie", reason: "out of memory") }
            while av_read_frame(source, packet) >= 0 {
                let index = Int(packet.pointee.stream_index)
                guard let from = source.pointee.streams[index], let to = target.pointee.streams[index] else { av_packet_unref(packet); continue }
                av_packet_rescale_ts(packet, from.pointee.time_base, to.pointee.time_base)
                packet.pointee.pos = -1
                try check(av_interleaved_write_frame(target, packet), temporary)
            }
            try check(av_write_trailer(target), temporary)
            avio_closep(&target.pointee.pb)
            let fd = open(temporary, O_RDONLY | O_CLOEXEC)
            guard fd >= 0, fsync(fd) == 0 else {
                if fd >= 0 { close(fd) }
                throw MovieWriter.failure(temporary, errno)
            }
            close(fd)
            guard rename(temporary, path) == 0 else { throw MovieWriter.failure(path, errno) }
            let folder = open(String(folderEnd), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 { fsync(folder); close(folder) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    private static func check(_ status: Int32, _ path: String) throws(MediaError) {
        guard status < 0 else { return }
        if status == -ENOSPC { throw MovieWriter.failure(path, ENOSPC) }
        throw .encoderFailed(format: "movie", reason: "rewriting the recording failed: \(MovieFile.message(status))")
    }
}
