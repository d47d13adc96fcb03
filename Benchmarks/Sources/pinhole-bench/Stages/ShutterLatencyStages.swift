import Capture
import Glibc
import Media
import PinholeTestSupport

/// The shutter-latency stage: a photo from Pinhole's virtual test camera streaming through a
/// `CaptureSession`, against FFmpeg and GStreamer encoding the same raw frame to a JPEG file.
extension Stage {
    /// Shutter latency at 1080p and 4K: the time from `PhotoOutput.capturePhoto` (`.speed`, the
    /// stream's size) to the JPEG durable on disk, and the age of the frame the photo used; against
    /// FFmpeg and GStreamer encoding the same raw frame to a JPEG file, whole process.
    static var shutterLatency: Stage {
        Stage(name: "shutter latency", sizes: [.hd1080, .uhd4K]) { bench, size in
            bench.progress("shutter latency at \(size.name)")
            return try ShutterLatency(bench: bench, size: size).rows()
        }
    }
}

/// The shutter-latency measurement at one size.
struct ShutterLatency {
    /// The bench (options, scratch directory, GStreamer).
    let bench: Bench
    /// The stream and photo size.
    let size: FrameSize

    /// What one timed photo took.
    struct Shot {
        /// From the call to `capturePhoto` to the file fsynced and linked into place.
        var totalMs: Double
        /// From the call to `capturePhoto` to its return (frame taken, converted, encoded, EXIF).
        var captureMs: Double
        /// `CapturePhoto.write(to:)`: write, fsync, link, fsync of the folder.
        var writeMs: Double
        /// The age of the photo's frame when the photo was asked for (negative: a later frame was used).
        var frameAgeMs: Double
    }

    /// Measures ours and the peers, interleaved round by round, and returns the table rows.
    func rows() throws -> [Row] {
        let photos = PhotoOutput()
        let settings = PhotoSettings(maxPhotoDimensions: .init(width: size.width, height: size.height), photoQualityPrioritization: .speed)
        let raw = bench.scratch + "/shutter-\(size.width)x\(size.height).yuv"
        var camera = try TestCameraRun(size: size, outputs: [photos])
        defer { camera.stop() }
        try camera.waitForFrames(3)
        let interval = camera.stream.frameInterval.seconds

        // One untimed photo gives the raw frame every peer encodes, and the reference for the checks. It is
        // let go at once: a `CapturePhoto` holds its frame, one of the three the output keeps for zero shutter lag.
        let (reference, rawBytes, oursBytes) = try firstPhoto(photos, settings: settings, raw: raw)
        let decoder = JPEGDecoder()
        /// Mean difference between a JPEG file's pixels and the raw frame's, or nil when it does not decode.
        func difference(_ jpeg: [UInt8]) -> Double? {
            guard let image = try? decoder.decode(jpeg, to: .bgra), image.width == size.width, image.height == size.height else { return nil }
            return Compare.meanAbsoluteDifference(image, reference)
        }
        let oursDifference = difference(oursBytes)
        /// Mean difference between the luma a JPEG stores and the raw frame's luma taken as it is (video
        /// range): near 0 when an encoder copied the camera's levels without rescaling them to JPEG's full range.
        func unscaledLumaDifference(_ jpeg: [UInt8]) -> Double? {
            guard let grey = try? decoder.decode(jpeg, to: .grey), grey.width == size.width, grey.height == size.height else { return nil }
            var total = 0
            let base = grey.baseAddress(ofPlane: 0), stride = grey.planes[0].bytesPerRow
            for y in 0..<size.height {
                for x in 0..<size.width { total += abs(Int(base[y * stride + x]) - Int(rawBytes[(y * size.width + x) * 2])) }
            }
            return Double(total) / Double(size.pixels)
        }

        let ffmpeg = Subprocess.find("ffmpeg") == nil ? nil : FFmpegStill(raw: raw, size: size, scratch: bench.scratch)
        let gstreamer = bench.gstreamer == nil ? nil : GStreamerStill(raw: raw, size: size, scratch: bench.scratch, quality: settings.quality)
        var ffmpegTimes: [Double] = [], gstreamerTimes: [Double] = []
        var ffmpegFailure: String?, gstreamerFailure: String?
        var ffmpegBytes: [UInt8]?, gstreamerBytes: [UInt8]?
        var shots: [Shot] = []
        // A pseudo-random pause before each photo, so that requests fall at every phase of the frame interval.
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        let warmup = 2
        for round in 0..<(warmup + bench.runs) {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            Sleep.seconds(interval * Double(random >> 11) / Double(1 << 53))
            do {
                let start = MonotonicClock.nanoseconds()
                let photo = try Blocking.run { try await photos.capturePhoto(with: settings) }
                let captured = MonotonicClock.nanoseconds()
                let target = bench.scratch + "/shutter-\(round).jpg"
                let path = try Blocking.run { try await photo.write(to: target) }
                let written = MonotonicClock.nanoseconds()
                unlink(path)
                if round >= warmup {
                    shots.append(Shot(totalMs: Double(written - start) / 1e6, captureMs: Double(captured - start) / 1e6,
                                      writeMs: Double(written - captured) / 1e6, frameAgeMs: Double(start - photo.timestampNanoseconds) / 1e6))
                }
            }  // the photo, and the frame it holds, are released here, before the camera restarts
            // The peers run with the camera stopped, so that they have the machine to themselves.
            guard ffmpeg != nil || gstreamer != nil else { continue }
            camera.stop()
            if let ffmpeg, ffmpegFailure == nil {
                switch ffmpeg.encode(output: "ffmpeg-\(round).jpg") {
                case let .success((ms, bytes)):
                    if round >= warmup { ffmpegTimes.append(ms) }
                    ffmpegBytes = ffmpegBytes ?? bytes
                case let .failure(error): ffmpegFailure = error.description
                }
            }
            if let gstreamer, gstreamerFailure == nil {
                switch gstreamer.encode(output: "gst-\(round).jpg") {
                case let .success((ms, bytes)):
                    if round >= warmup { gstreamerTimes.append(ms) }
                    gstreamerBytes = gstreamerBytes ?? bytes
                case let .failure(error): gstreamerFailure = error.description
                }
            }
            camera = try TestCameraRun(size: size, outputs: [photos])
            try camera.waitForFrames(3)
        }

        let oursMs = Sample.median(shots.map(\.totalMs))
        let ages = shots.map(\.frameAgeMs)
        let intervalMs = interval * 1000
        let withinInterval = ages.filter { $0 >= 0 && $0 <= intervalMs }.count
        let fsNote = "ours: capturePhoto(.speed) \(Format.ms(Sample.median(shots.map(\.captureMs)))) ms + write(to:) with fsync of file and folder "
            + "\(Format.ms(Sample.median(shots.map(\.writeMs)))) ms (ext4 here), JPEG q\(settings.quality) \(Format.bytes(oursBytes.count)); "
            + "the test camera streams YUYV \(camera.stream.width)×\(camera.stream.height) at \(Format.fixed(1 / interval, 0)) fps meanwhile"
        var rows: [Row] = []
        let oursCheck = oursDifference.map { "ours Δ\(Format.fixed($0, 2))" } ?? "ours: no JPEG"
        /// The row of one peer, or a row saying why it was not measured.
        func peerRow(_ peer: String, _ times: [Double], _ failure: String?, _ bytes: [UInt8]?, missing: Bool, note: String) -> Row {
            var row = Row(stage: "shutter → fsynced JPEG", size: size.name, oursMs: oursMs, memcpyMs: nil, peer: peer, peerMs: nil,
                          check: .none, note: fsNote)
            if missing { row.note = "not measured: not installed (scripts/setup --bench); " + fsNote; return row }
            if let failure { row.note = "not measured: \(failure.prefix(160)); " + fsNote; return row }
            row.peerMs = Sample.median(times)
            let theirs = bytes.flatMap(difference)
            let verdict = Check.difference(theirs, against: peer)
            if verdict.failed, let unscaled = bytes.flatMap(unscaledLumaDifference), unscaled <= 1.5 {
                // Not garbage: the same picture with the camera's video-range levels stored as they are (washed out).
                row.check = Check(text: "\(oursCheck), \(verdict.text.replacingAll(" FAILED", with: "")): levels kept in video range "
                                  + "(its luma = the raw luma ±\(Format.fixed(unscaled, 2)))", failed: (oursDifference ?? 99) > Check.limit)
            } else {
                row.check = Check(text: "\(oursCheck), \(verdict.text)", failed: verdict.failed || (oursDifference ?? 99) > Check.limit)
            }
            row.note = note + " \(bytes.map { Format.bytes($0.count) } ?? "?"); no fsync; input: the photo's pixels repacked as YUYV; " + fsNote
            return row
        }
        rows.append(peerRow("ffmpeg rawvideo→JPEG -q:v 2, whole process", ffmpegTimes, ffmpegFailure, ffmpegBytes, missing: ffmpeg == nil,
                            note: "`ffmpeg -f rawvideo -pix_fmt yuyv422 -s \(size.width)x\(size.height) -i frame.yuv -frames:v 1 -q:v 2 out.jpg`, start-up included;"))
        rows.append(peerRow("gst-launch filesrc ! rawvideoparse ! jpegenc ! filesink, whole process", gstreamerTimes, gstreamerFailure, gstreamerBytes,
                            missing: gstreamer == nil, note: "jpegenc quality=\(settings.quality), start-up included;"))
        rows.append(Row(stage: "shutter lag: frame age at request", size: size.name, oursMs: Sample.median(ages), memcpyMs: nil,
                        peer: "one frame interval", peerMs: intervalMs,
                        check: Check(text: "\(withinInterval)/\(ages.count) ≤ 1 frame", failed: false),
                        note: "zero shutter lag: the photo is the newest streamed frame; age = request time − the frame's capture timestamp "
                            + "(stamped before the test camera draws and converts it, as a sensor's would be); "
                            + "min \(Format.ms(ages.min())) ms (no frame is younger than the delay from its timestamp to its copy being kept: drawing, converting, copying), "
                            + "max \(Format.ms(ages.max())) ms; Peer/ours above 1× means younger than one interval"))
        return rows
    }

    /// Takes one untimed photo; writes its pixels repacked as the camera's YUYV to `raw` (the
    /// peers' input: the photo keeps I420 of its own, converted from the streamed YUYV frame) and
    /// returns them as BGRA (the reference of the checks), the YUYV bytes and the photo's JPEG.
    private func firstPhoto(_ photos: PhotoOutput, settings: PhotoSettings, raw: String) throws -> (PixelBuffer, [UInt8], [UInt8]) {
        let first = try Blocking.run { try await photos.capturePhoto(with: settings) }
        let pixels = first.pixelBuffer
        guard pixels.width == size.width, pixels.height == size.height, !first.resolvedSettings.switchedFormat else {
            throw CaptureBenchError(description: "the photo was \(pixels.format) \(pixels.width)×\(pixels.height), not the streamed frame's size")
        }
        let yuyv = try pixels.converted(to: .yuyv)
        let bytes = yuyv.packedBytes()
        _ = try AtomicFile.write(bytes, to: raw)
        return (try yuyv.converted(to: .bgra), bytes, first.fileDataRepresentation())
    }
}

/// FFmpeg's command line for "encode this raw frame to a JPEG file", timed whole.
struct FFmpegStill {
    /// The raw YUYV frame.
    let raw: String
    /// Its size.
    let size: FrameSize
    /// Where outputs go.
    let scratch: String

    /// Runs ffmpeg once; returns its wall milliseconds and the JPEG it wrote, or what went wrong.
    func encode(output name: String) -> Result<(Double, [UInt8]), CaptureBenchError> {
        let output = "\(scratch)/\(name)"
        defer { unlink(output) }
        let arguments = ["ffmpeg", "-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", "\(size.width)x\(size.height)", "-i", raw,
                         "-frames:v", "1", "-q:v", "2", output]
        let result = Subprocess.run(arguments, scratch: scratch)
        guard result.status == 0, let bytes = readBytes(output) else {
            return .failure(CaptureBenchError(description: "ffmpeg exited with \(result.status): \(result.errors.trimmed.suffix(200))"))
        }
        return .success((result.wallSeconds * 1000, bytes))
    }
}

/// GStreamer's pipeline for "encode this raw frame to a JPEG file", timed whole.
struct GStreamerStill {
    /// The raw YUYV frame.
    let raw: String
    /// Its size.
    let size: FrameSize
    /// Where outputs go.
    let scratch: String
    /// jpegenc's quality (ours, so that the files are alike).
    let quality: Int

    /// Runs gst-launch once; returns its wall milliseconds and the JPEG it wrote, or what went wrong.
    func encode(output name: String) -> Result<(Double, [UInt8]), CaptureBenchError> {
        let output = "\(scratch)/\(name)"
        defer { unlink(output) }
        let arguments = [GStreamer.tool, "-q", "filesrc", "location=\(raw)", "!",
                         "rawvideoparse", "use-sink-caps=false", "width=\(size.width)", "height=\(size.height)", "format=yuy2",
                         "framerate=30/1", "colorimetry=bt601", "!", "jpegenc", "quality=\(quality)", "!", "filesink", "location=\(output)"]
        let result = Subprocess.run(arguments, scratch: scratch)
        guard result.status == 0, let bytes = readBytes(output), !bytes.isEmpty else {
            return .failure(CaptureBenchError(description: "gst-launch exited with \(result.status): \(result.errors.trimmed.suffix(200))"))
        }
        return .success((result.wallSeconds * 1000, bytes))
    }
}
