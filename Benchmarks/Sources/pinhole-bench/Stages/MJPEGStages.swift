import CPeers
import Media

/// A Motion-JPEG frame as webcams send it, made once per size and shared by all contenders.
struct WebcamJPEG {
    /// The compressed bytes: 4:2:2 JPEG, quality 85.
    let bytes: [UInt8]

    /// Encodes the photo-like image at `size` the way a webcam does: BGRA → I422 → JPEG q85.
    init(_ bench: Bench, size: FrameSize) throws {
        let i422 = try PixelConverter().converted(try bench.image(size), to: .i422)
        bytes = try JPEGEncoder().encode(i422, quality: 85)
    }
}

/// The Motion-JPEG decoding stages.
extension Stage {
    /// MJPEG → `destination` (BGRA, or I420 for the YUV path) at 1080p and 4K: ours
    /// (`JPEGDecoder.decode(_:into:)`: TurboJPEG to planes then libyuv to BGRA; libyuv MJPGToI420 to I420) against
    /// FFmpeg's own MJPEG decoder in process.
    static func mjpegDecode(to destination: PixelFormat) -> Stage {
        let name = "MJPEG→\(destination)"
        return Stage(name: name, sizes: [.hd1080, .uhd4K]) { bench, size in
            bench.progress("\(name) at \(size.name)")
            let floor = try bench.memcpyFloor(size)
            let jpeg = try WebcamJPEG(bench, size: size)
            let slots = bench.slots(bytesPerCall: jpeg.bytes.count + Frames.payloadBytes(destination, size))
            let frames = try (0..<slots).map { _ in
                try PixelBuffer(format: .mjpeg, width: size.width, height: size.height, bytes: jpeg.bytes)
            }
            let packets = try (0..<slots).map { _ in try jpeg.bytes.withUnsafeBytes { try FFmpegPacket($0) } }
            let image = try bench.image(size)
            let destinations = try Frames.blanks(destination, like: image, count: slots)
            let destinationPlanes = destinations.map(Planes.init)
            let decoder = JPEGDecoder()
            let ffmpeg = try FFmpegMJPEGDecoder(threads: 1, ring: slots)
            try ffmpeg.fillPool(with: packets[0])

            // What FFmpeg decodes to (its native planar format for a 4:2:2 JPEG), and the check.
            let ours = try Frames.blank(destination, like: image)
            try decoder.decode(frames[0], into: ours)
            let decoded = try ffmpeg.decode(packets[0])
            let nativeFormat = AVPixelFormat(rawValue: decoded.pointee.format)
            let nativeName = av_get_pix_fmt_name(nativeFormat).map { String(cString: $0) } ?? "format \(nativeFormat.rawValue)"
            let scaler: SwsScaler?
            let check: Check
            if destination == .bgra {
                let converter = try SwsScaler(width: size.width, height: size.height, from: nativeFormat, to: AV_PIX_FMT_BGRA)
                let theirs = try Frames.blank(.bgra, like: image)
                try converter.scale(frame: decoded, into: Planes(theirs))
                check = Check.difference(Compare.meanAbsoluteDifference(ours, theirs), against: "FFmpeg")
                scaler = converter
            } else {
                check = Check.difference(yuvDifference(i420: ours, ffmpeg: decoded, format: nativeFormat), against: "FFmpeg")
                scaler = nil
            }

            let samples = try bench.race(slots: slots, [
                { slot in try decoder.decode(frames[slot], into: destinations[slot]) },
                { slot in
                    let frame = try ffmpeg.decode(packets[slot])
                    try scaler?.scale(frame: frame, into: destinationPlanes[slot])
                },
            ])
            let peer = scaler.map { "FFmpeg mjpeg + swscale \(nativeName)→BGRA (\($0.flagName))" } ?? "FFmpeg mjpeg, decode only (to \(nativeName))"
            let oursWay = destination == .bgra ? "ours: TurboJPEG to the JPEG's own planes, then libyuv to BGRA" : "ours: libyuv MJPGToI420, including 4:2:2→4:2:0"
            let threading = ffmpeg.supportsThreads
                ? "FFmpeg thread_count=1"
                : "FFmpeg thread_count=1, which is also its default here: this mjpeg decoder has no threading"
            return [Row(stage: name, size: size.name, oursMs: samples[0].medianMs, memcpyMs: floor.ms, peer: peer,
                        peerMs: samples[1].medianMs, check: check,
                        note: "\(oursWay); \(threading); JPEG 4:2:2 q85 \(Format.bytes(jpeg.bytes.count)); \(slots) destinations rotated")]
                + (ffmpeg.supportsThreads ? [try threadedRow(bench, name: name, size: size, packets: packets, slots: slots,
                                                              oursMs: samples[0].medianMs, floor: floor)] : [])
        }
    }

    /// FFmpeg's decoder with its automatic thread count, for an FFmpeg whose MJPEG decoder has threads.
    private static func threadedRow(_ bench: Bench, name: String, size: FrameSize, packets: [FFmpegPacket], slots: Int,
                                    oursMs: Double, floor: MemcpyFloor) throws -> Row {
        let ffmpeg = try FFmpegMJPEGDecoder(threads: 0, ring: slots)
        try ffmpeg.fillPool(with: packets[0])
        let samples = try bench.race(slots: slots, [{ slot in _ = try ffmpeg.decode(packets[slot]) }])
        return Row(stage: name, size: size.name, oursMs: oursMs, memcpyMs: floor.ms, peer: "FFmpeg mjpeg, threads=auto, decode only",
                   peerMs: samples[0].medianMs, check: .none,
                   note: "FFmpeg's default thread count; CPU/wall \(Format.fixed(samples[0].cpuPerWall, 2))")
    }

    /// Mean absolute difference between our I420 and FFmpeg's planar output: Y against Y, our
    /// 4:2:0 chroma against FFmpeg's chroma rows averaged in pairs when it is 4:2:2.
    private static func yuvDifference(i420: PixelBuffer, ffmpeg frame: UnsafeMutablePointer<AVFrame>, format: AVPixelFormat) -> Double? {
        let verticalPairs: Bool
        switch format {
        case AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUV422P: verticalPairs = true
        case AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV420P: verticalPairs = false
        default: return nil
        }
        let data = FFmpeg.dataPointer(frame), strides = FFmpeg.linesizePointer(frame)
        var total = 0, count = 0
        for plane in 0..<3 {
            guard let theirs = data[plane] else { return nil }
            let geometry = i420.planes[plane]
            let chroma = plane > 0 && verticalPairs
            let difference = Compare.planeDifference(i420.baseAddress(ofPlane: plane), strideA: geometry.bytesPerRow,
                                                     theirs, strideB: Int(strides[plane]),
                                                     rows: geometry.rows, rowBytes: geometry.rowBytes) { row in
                chroma ? [2 * row, min(2 * row + 1, i420.height - 1)] : [row]
            }
            total += difference.total
            count += difference.count
        }
        return Double(total) / Double(max(count, 1))
    }
}
