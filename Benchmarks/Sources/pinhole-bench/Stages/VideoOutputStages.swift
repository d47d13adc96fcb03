import Capture
import Glibc
import Media
import PinholeTestSupport

/// The `VideoDataOutput` stage: Pinhole's virtual test camera streaming through a
/// `CaptureSession` into BGRA frames, against FFmpeg and GStreamer converting the same raw frames.
extension Stage {
    /// Frames through `VideoDataOutput` converted to BGRA at 1080p: the CPU time per frame of the
    /// whole session, and with the virtual camera's own work subtracted, against FFmpeg and
    /// GStreamer converting the same raw frame to BGRA.
    static var videoDataOutput: Stage {
        Stage(name: "VideoDataOutput→BGRA", sizes: [.hd1080]) { bench, size in
            bench.progress("VideoDataOutput→BGRA at \(size.name)")
            return try VideoOutputThroughput(bench: bench, size: size).rows()
        }
    }
}

/// The `VideoDataOutput` → BGRA measurement at one size.
struct VideoOutputThroughput {
    /// The bench (options, scratch directory, GStreamer).
    let bench: Bench
    /// The stream size.
    let size: FrameSize

    /// Which session is measured.
    enum Setup: CaseIterable {
        /// No output at all: the camera's own cost (drawing and converting the test pattern).
        case noOutput
        /// `VideoDataOutput` with `pixelFormat` nil: frames copied through in the camera's YUYV.
        case native
        /// `VideoDataOutput` converting to BGRA.
        case bgra
    }

    /// Counts over the measured windows of one setup.
    struct Totals {
        /// Frames the camera delivered to the session.
        var cameraFrames = 0
        /// Frames the output delivered to code.
        var delivered = 0
        /// Frames dropped by the output (late consumer or pool exhausted) or skipped by the camera.
        var dropped = 0
        /// Process CPU seconds (all threads).
        var cpuSeconds = 0.0
        /// Wall seconds.
        var wallSeconds = 0.0

        /// CPU milliseconds per camera frame.
        var cpuPerFrameMs: Double { cameraFrames > 0 ? cpuSeconds / Double(cameraFrames) * 1000 : 0 }
        /// Frames per second from the camera.
        var cameraFPS: Double { wallSeconds > 0 ? Double(cameraFrames) / wallSeconds : 0 }
        /// Frames per second delivered to code.
        var deliveredFPS: Double { wallSeconds > 0 ? Double(delivered) / wallSeconds : 0 }
    }

    /// Seconds of streaming measured per window.
    var window: Double { bench.options.quick ? 1.5 : 3 }
    /// Windows per setup, interleaved setup by setup.
    var rounds: Int { bench.options.quick ? 1 : 2 }

    /// Streams one window of `setup`; returns its counts and, for the native setup, one raw frame's bytes.
    func measure(_ setup: Setup) throws -> (Totals, [UInt8]?) {
        let output: VideoDataOutput? = setup == .noOutput ? nil : VideoDataOutput()
        let counter = FrameCounter(keepFirstFrame: setup == .native)
        if let output {
            output.videoSettings = VideoDataOutput.Settings(pixelFormat: setup == .bgra ? .bgra : nil)
            output.setSampleBufferDelegate(counter, queue: nil)
        }
        let camera = try TestCameraRun(size: size, outputs: output.map { [$0] } ?? [])
        defer { camera.stop() }
        // Half a second to settle (pools made, caches warm) before the window opens.
        try camera.waitForFrames(3)
        Sleep.seconds(0.5)
        let before = (camera.session.statistics, counter.received.load(ordering: .relaxed), output?.droppedFrameCount ?? 0,
                      Clock.processCPUSeconds(), Clock.now())
        Sleep.seconds(window)
        let after = (camera.session.statistics, counter.received.load(ordering: .relaxed), output?.droppedFrameCount ?? 0,
                     Clock.processCPUSeconds(), Clock.now())
        let totals = Totals(cameraFrames: after.0.framesDelivered - before.0.framesDelivered, delivered: after.1 - before.1,
                            dropped: after.2 - before.2 + after.0.framesDroppedByDriver - before.0.framesDroppedByDriver,
                            cpuSeconds: after.3 - before.3, wallSeconds: after.4 - before.4)
        guard totals.cameraFrames > 0 else { throw CaptureBenchError(description: "the test camera delivered no frame in \(Format.fixed(window, 1)) s") }
        return (totals, counter.kept.withLock { $0 })
    }

    /// Measures ours and the peers and returns the table rows.
    func rows() throws -> [Row] {
        var totals: [Setup: Totals] = [:]
        var frame: [UInt8]?
        for _ in 0..<rounds {
            for setup in Setup.allCases {
                let (measured, bytes) = try measure(setup)
                var sum = totals[setup] ?? Totals()
                sum.cameraFrames += measured.cameraFrames
                sum.delivered += measured.delivered
                sum.dropped += measured.dropped
                sum.cpuSeconds += measured.cpuSeconds
                sum.wallSeconds += measured.wallSeconds
                totals[setup] = sum
                frame = frame ?? bytes
            }
        }
        guard let frame, let none = totals[.noOutput], let native = totals[.native], let bgra = totals[.bgra] else {
            throw CaptureBenchError(description: "no frame reached the native VideoDataOutput")
        }
        let raw = bench.scratch + "/vdo-\(size.width)x\(size.height).yuv"
        _ = try AtomicFile.write(frame, to: raw)
        let source = try PixelBuffer(format: .yuyv, width: size.width, height: size.height, bytes: frame)
        let ours = try PixelConverter().converted(source, to: .bgra)  // what VideoDataOutput does with each frame

        let wholeMs = bgra.cpuPerFrameMs
        let outputMs = bgra.cpuPerFrameMs - none.cpuPerFrameMs
        let oursNote = "ours: \(Format.fixed(bgra.deliveredFPS, 1)) fps delivered of \(Format.fixed(bgra.cameraFPS, 1)) from the camera "
            + "(its 1080p maximum), \(bgra.dropped) dropped, over \(rounds)×\(Format.fixed(window, 1)) s; process CPU per frame (getrusage): "
            + "BGRA session \(Format.ms(wholeMs)), native YUYV session \(Format.ms(native.cpuPerFrameMs)) (\(Format.fixed(native.deliveredFPS, 1)) fps), "
            + "no output \(Format.ms(none.cpuPerFrameMs)) (the test camera drawing and converting its pattern)"
        var rows: [Row] = []

        // FFmpeg: the same frame looped, to BGRA into the null muxer, and the same without the conversion.
        var ffmpegWhole = Row(stage: "VideoDataOutput→BGRA CPU/frame, whole", size: size.name, oursMs: wholeMs, memcpyMs: nil,
                              peer: "ffmpeg -pix_fmt bgra -f null, whole process", peerMs: nil, check: .none, note: "")
        var ffmpegOnly = Row(stage: "VideoDataOutput→BGRA CPU/frame, conversion", size: size.name, oursMs: outputMs, memcpyMs: nil,
                             peer: "ffmpeg -pix_fmt bgra minus no conversion", peerMs: nil, check: .none, note: "")
        if Subprocess.find("ffmpeg") != nil {
            do {
                let peer = FFmpegLoop(raw: raw, size: size, scratch: bench.scratch)
                let theirs = try peer.convertOnce()
                let check = Check.difference(Compare.meanAbsoluteDifference(ours, packed: theirs), against: "ffmpeg")
                let timing = try peer.time(frames: bench.gstreamerFrames(size), launches: bench.gstreamerLaunches)
                ffmpegWhole.peerMs = timing.wholeCPUPerFrameMs
                ffmpegWhole.check = check
                ffmpegWhole.note = "CPU ms per frame, both sides. ours includes the test camera's own work (see the note below); "
                    + "ffmpeg's includes reading the raw file and its start-up, median of \(timing.launches) launches × \(timing.frames) frames "
                    + "(-stream_loop), \(Format.fixed(timing.fps, 0)) fps wall, CPU/wall \(Format.fixed(timing.cpuPerWall, 2))"
                ffmpegOnly.peerMs = timing.cpuPerFrameMs
                ffmpegOnly.check = check
                ffmpegOnly.note = "CPU ms per frame: ours = BGRA session − session with no output (conversion into a pooled buffer and delivery); "
                    + "ffmpeg = launches with -pix_fmt bgra − the same without (swscale, default flags); " + oursNote
            } catch {
                ffmpegWhole.note = "not measured: \(error)"
                ffmpegOnly.note = "not measured: \(error); " + oursNote
            }
        } else {
            ffmpegWhole.note = "not measured: ffmpeg not found (scripts/setup --bench installs it)"
            ffmpegOnly.note = ffmpegWhole.note + "; " + oursNote
        }
        rows += [ffmpegWhole, ffmpegOnly]

        // GStreamer: videoconvert to BGRA into fakesink, and the same pipeline without videoconvert.
        var gstWhole = Row(stage: "VideoDataOutput→BGRA CPU/frame, whole", size: size.name, oursMs: wholeMs, memcpyMs: nil,
                           peer: "gst-launch videoconvert ! BGRA ! fakesink, whole process", peerMs: nil, check: .none, note: "")
        var gstOnly = Row(stage: "VideoDataOutput→BGRA CPU/frame, conversion", size: size.name, oursMs: outputMs, memcpyMs: nil,
                          peer: "gst-launch videoconvert minus no videoconvert", peerMs: nil, check: .none, note: "")
        if let gstreamer = bench.gstreamer {
            do {
                let output = try gstreamer.convertOnce(file: raw, source: .yuyv, destination: .bgra, width: size.width, height: size.height)
                let check = Check.difference(Compare.meanAbsoluteDifference(ours, packed: output), against: "videoconvert")
                let timing = try gstreamer.time(file: raw, source: .yuyv, destination: .bgra, width: size.width, height: size.height,
                                                frames: bench.gstreamerFrames(size), launches: bench.gstreamerLaunches)
                gstWhole.peerMs = timing.wholeCPUPerFrameMs
                gstWhole.check = check
                gstWhole.note = "CPU ms per frame; gst-launch's includes multifilesrc re-reading the frame and its start-up, "
                    + "median of \(timing.launches) launches × \(timing.frames) frames"
                gstOnly.peerMs = timing.cpuPerFrameMs
                gstOnly.check = check
                gstOnly.note = "CPU ms per frame: ours as above; GStreamer = launches with videoconvert − the same without (n-threads=1, its default)"
            } catch {
                gstWhole.note = "not measured: \(error)"
                gstOnly.note = gstWhole.note
            }
        } else {
            gstWhole.note = "not measured: \(GStreamer.tool) not found (scripts/setup --bench installs it)"
            gstOnly.note = gstWhole.note
        }
        rows += [gstWhole, gstOnly]
        return rows
    }
}

/// FFmpeg's command line converting a raw YUYV frame, looped, to BGRA into the null muxer.
struct FFmpegLoop {
    /// The raw YUYV frame.
    let raw: String
    /// Its size.
    let size: FrameSize
    /// Where outputs go.
    let scratch: String

    /// CPU and wall time per frame from whole launches.
    struct Timing {
        /// CPU ms per frame of the launch with the conversion minus the launch without, per frame.
        let cpuPerFrameMs: Double
        /// CPU ms per frame of the launch with the conversion, whole.
        let wholeCPUPerFrameMs: Double
        /// Frames per wall second of the launch with the conversion.
        let fps: Double
        /// CPU time over wall time of the launch with the conversion (above 1: threads in parallel).
        let cpuPerWall: Double
        /// Frames per launch.
        let frames: Int
        /// Timed launches of each command.
        let launches: Int
    }

    /// The command: `frames` frames read from the file, converted to BGRA unless `convert` is false.
    func arguments(frames: Int, convert: Bool) -> [String] {
        ["ffmpeg", "-nostdin", "-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", "\(size.width)x\(size.height)",
         "-stream_loop", "\(frames - 1)", "-i", raw] + (convert ? ["-pix_fmt", "bgra"] : []) + ["-f", "null", "-"]
    }

    /// Converts the frame once and returns FFmpeg's BGRA bytes, for the check.
    func convertOnce() throws -> [UInt8] {
        let output = "\(scratch)/ffmpeg-bgra.raw"
        defer { unlink(output) }
        let arguments = ["ffmpeg", "-nostdin", "-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", "\(size.width)x\(size.height)", "-i", raw,
                         "-frames:v", "1", "-pix_fmt", "bgra", "-f", "rawvideo", output]
        let result = Subprocess.run(arguments, scratch: scratch)
        guard result.status == 0, let bytes = readBytes(output) else {
            throw CaptureBenchError(description: "ffmpeg exited with \(result.status): \(result.errors.trimmed.suffix(200))")
        }
        return bytes
    }

    /// Times `launches` launches of each command (after one untimed launch of each), interleaved.
    func time(frames: Int, launches: Int) throws -> Timing {
        var fullCPU: [Double] = [], fullWall: [Double] = [], baseCPU: [Double] = []
        for round in 0...launches {
            for convert in [false, true] {
                let arguments = arguments(frames: frames, convert: convert)
                let result = Subprocess.run(arguments, scratch: scratch)
                guard result.status == 0 else {
                    throw CaptureBenchError(description: "\(arguments.joined(separator: " ")) exited with \(result.status): \(result.errors.trimmed.suffix(200))")
                }
                guard round > 0 else { continue }
                if convert {
                    fullCPU.append(result.cpuSeconds)
                    fullWall.append(result.wallSeconds)
                } else {
                    baseCPU.append(result.cpuSeconds)
                }
            }
        }
        let cpu = Sample.median(fullCPU), wall = Sample.median(fullWall)
        return Timing(cpuPerFrameMs: (cpu - Sample.median(baseCPU)) / Double(frames) * 1000, wholeCPUPerFrameMs: cpu / Double(frames) * 1000,
                      fps: wall > 0 ? Double(frames) / wall : 0, cpuPerWall: wall > 0 ? cpu / wall : 0, frames: frames, launches: launches)
    }
}
