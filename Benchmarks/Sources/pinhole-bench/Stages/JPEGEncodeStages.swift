import CPeers
import Media

/// The JPEG encoding stage.
extension Stage {
    /// JPEG encoding at quality 90 of a 1080p frame and a 12 MP still, from I420 planes and from
    /// BGRA: ours (`JPEGEncoder`, TurboJPEG) against FFmpeg's MJPEG encoder in process, and ours
    /// from I420 against ours from BGRA.
    static var jpegEncode: Stage {
        Stage(name: "JPEG encode q90", sizes: [.hd1080, .mp12]) { bench, size in
            bench.progress("JPEG encode at \(size.name)")
            let image = try bench.image(size)
            let i420 = try PixelConverter().converted(image, to: .i420)
            let slots = bench.slots(bytesPerCall: Frames.payloadBytes(.i420, size))
            let i420s = try Frames.copies(of: i420, count: slots)
            let bgras = try Frames.copies(of: image, count: slots)
            let i420Planes = i420s.map(Planes.init)
            let bgraPlanes = bgras.map(Planes.init)
            let fromI420 = JPEGEncoder(), fromBGRA = JPEGEncoder()
            let oursI420 = try fromI420.encode(i420, quality: 90)
            let oursBGRA = try fromBGRA.encode(image, quality: 90, subsampling: .s420)

            // FFmpeg has a quantiser, not a quality: take the one whose output is closest in size to ours.
            let ffmpeg = try FFmpegJPEGEncoder(width: size.width, height: size.height, qscale: 2, threads: 1)
            // The camera's planes are video range; a JPEG holds full range. FFmpeg gets them through
            // swscale's range conversion (yuv420p → yuvj420p), as ours rescales them.
            let toFullRange = try SwsScaler(width: size.width, height: size.height, from: AV_PIX_FMT_YUV420P, to: AV_PIX_FMT_YUVJ420P)
            let fullRange = try OwnedFrame(width: size.width, height: size.height, format: AV_PIX_FMT_YUVJ420P)
            let fullRangePlanes = Planes(fullRange.frame)
            try toFullRange.scale(Planes(i420), into: fullRangePlanes)
            let master = fullRange
            var best: (qscale: Int32, bytes: [UInt8])?
            for qscale in Int32(1)...12 {
                ffmpeg.qscale = qscale
                let bytes = try ffmpeg.encode(master.frame) { Array($0.bindMemory(to: UInt8.self)) }
                if best.map({ abs(bytes.count - oursI420.count) < abs($0.bytes.count - oursI420.count) }) ?? true {
                    best = (qscale, bytes)
                }
            }
            let qscale = best!.qscale, ffmpegI420 = best!.bytes
            ffmpeg.qscale = qscale
            let threaded = try FFmpegJPEGEncoder(width: size.width, height: size.height, qscale: qscale, threads: 0)
            let bgraEncoder = try FFmpegJPEGEncoder(width: size.width, height: size.height, qscale: qscale, threads: 1)
            let toYUV = try SwsScaler(width: size.width, height: size.height, from: AV_PIX_FMT_BGRA, to: AV_PIX_FMT_YUVJ420P)
            let intermediate = try OwnedFrame(width: size.width, height: size.height, format: AV_PIX_FMT_YUVJ420P)
            let intermediatePlanes = Planes(intermediate.frame)

            // Checks: decode every output and compare it with what was encoded.
            let decoder = JPEGDecoder()
            /// How far `jpeg`, decoded to BGRA, is from `source` shown as BGRA (YUV range honoured).
            func fromSource(_ jpeg: [UInt8], _ source: PixelBuffer) throws -> Double {
                Compare.meanAbsoluteDifference(try decoder.decode(jpeg, to: .bgra), try source.converted(to: .bgra))
            }
            try toYUV.scale(Planes(image), into: intermediatePlanes)
            let ffmpegBGRA = try bgraEncoder.encode(intermediate.frame) { Array($0.bindMemory(to: UInt8.self)) }
            let threadedI420 = try threaded.encode(master.frame) { Array($0.bindMemory(to: UInt8.self)) }
            let i420Check = try pairCheck(ours: fromSource(oursI420, i420), ffmpeg: fromSource(ffmpegI420, i420))
            let threadedCheck = try pairCheck(ours: fromSource(oursI420, i420), ffmpeg: fromSource(threadedI420, i420))
            let bgraCheck = try pairCheck(ours: fromSource(oursBGRA, image), ffmpeg: fromSource(ffmpegBGRA, image))

            let samples = try bench.race(slots: slots, [
                { slot in _ = try fromI420.encode(i420s[slot], quality: 90) { $0.count } },
                { slot in _ = try fromBGRA.encode(bgras[slot], quality: 90, subsampling: .s420) { $0.count } },
                { slot in
                    try toFullRange.scale(i420Planes[slot], into: fullRangePlanes)
                    _ = try ffmpeg.encode(fullRange.frame) { $0.count }
                },
                { slot in
                    try toFullRange.scale(i420Planes[slot], into: fullRangePlanes)
                    _ = try threaded.encode(fullRange.frame) { $0.count }
                },
                { slot in
                    try toYUV.scale(bgraPlanes[slot], into: intermediatePlanes)
                    _ = try bgraEncoder.encode(intermediate.frame) { $0.count }
                },
            ])
            let ours = samples[0].medianMs, oursFromBGRA = samples[1].medianMs
            let sizes = "ours \(Format.bytes(oursI420.count)), FFmpeg q:v \(qscale) \(Format.bytes(ffmpegI420.count)) (closest size)"
            let common = "huffman=optimal (FFmpeg's default; ours: standard tables); \(slots) sources rotated"
            return [
                Row(stage: "JPEG encode q90 ← I420", size: size.name, oursMs: ours, memcpyMs: nil,
                    peer: "FFmpeg swscale range + mjpeg, thread_count=1", peerMs: samples[2].medianMs, check: i420Check,
                    note: "\(sizes); both rescale the camera's video-range planes to JPEG's full range (ours: SIMD pass; FFmpeg: swscale yuv420p→yuvj420p); \(common)"),
                Row(stage: "JPEG encode q90 ← I420", size: size.name, oursMs: ours, memcpyMs: nil,
                    peer: "FFmpeg swscale range + mjpeg, threads=auto (\(threaded.activeThreads) slice threads)", peerMs: samples[3].medianMs,
                    check: threadedCheck,
                    note: "FFmpeg's default thread count (frame threading cannot speed up one photo, so slices); "
                        + "its CPU/wall \(Format.fixed(samples[3].cpuPerWall, 2)); ours is 1 thread"),
                Row(stage: "JPEG encode q90 ← BGRA", size: size.name, oursMs: oursFromBGRA, memcpyMs: nil,
                    peer: "FFmpeg swscale BGRA→yuvj420p (\(toYUV.flagName)) + mjpeg, thread_count=1", peerMs: samples[4].medianMs,
                    check: bgraCheck,
                    note: "ours: TurboJPEG from BGRA, 4:2:0, \(Format.bytes(oursBGRA.count)); FFmpeg \(Format.bytes(ffmpegBGRA.count)); \(common)"),
                Row(stage: "JPEG encode q90 ← I420 vs ← BGRA", size: size.name, oursMs: ours, memcpyMs: nil,
                    peer: "ours ← BGRA", peerMs: oursFromBGRA, check: .none,
                    note: "what encoding from the camera's YUV planes saves over encoding from BGRA"),
            ]
        }
    }

    /// The check of an encoder pair: each output decoded and compared with its own input.
    private static func pairCheck(ours: Double, ffmpeg: Double) -> Check {
        let limit = Check.limit
        let text = "Δsrc ours \(Format.fixed(ours, 2)), FFmpeg \(Format.fixed(ffmpeg, 2))"
        let failed = ours > limit || ffmpeg > limit
        return Check(text: failed ? text + " FAILED" : text, failed: failed)
    }
}
