import Capture
import Glibc
import Media
import PinholeTestSupport
import Synchronization

/// The recording stage; `--only recording` runs it.
extension Stage {
    /// Recording 1080p30 from the test camera for `--record-seconds` (60 s; 10 s with `--quick`):
    /// the release `pinhole record` as a child process against `ffmpeg -re … -c:v libx264` with the
    /// same encoder settings on raw frames of the same test pattern, paced to real time; each side
    /// measured whole (CPU per recorded second from `wait4`, its own peak memory from `VmHWM`: see
    /// `ChildProcess`) and its file checked with `ffprobe -count_frames`.
    static var recording: Stage {
        Stage(name: "recording 1080p30", sizes: [.hd1080]) { bench, size in
            try RecordingBenchmark(bench: bench, size: size).rows()
        }
    }
}

/// The recording measurement at one size: one run of each side for the whole duration, one after
/// the other (two recorders at once would share the two cores), whole process.
struct RecordingBenchmark {
    /// The bench (options, scratch directory).
    let bench: Bench
    /// The movie's size.
    let size: FrameSize

    /// Frames per second on both sides.
    static let fps = 30
    /// Distinct frames of the test pattern the peer loops: two seconds' worth.
    static let distinctFrames = 60
    /// Frames of the peer's short and long input-only runs, whose difference prices reading a frame.
    static let readFrames = (short: 30, long: 330)

    /// Seconds recorded on each side.
    var seconds: Int { bench.recordSeconds }
    /// Frames a recording without drops holds: a duration limit of D s keeps the frames taken in [0, D).
    var expectedFrames: Int { RecordingBenchmark.fps * seconds }
    /// The encoder settings both sides use: `MovieFileOutput`'s defaults (x264 preset and CRF;
    /// a key frame, and so a fragment, every `movieFragmentInterval`).
    var encoder: (preset: String, crf: Int, gop: Int) {
        let options = MovieFileOutput.Options()
        let crf: Int
        if case let .constantRateFactor(value) = options.quality { crf = value } else { crf = 23 }
        let gop = Int((Double(RecordingBenchmark.fps) * MovieFileOutput().movieFragmentInterval).rounded())
        return (options.preset, crf, max(1, gop))
    }

    /// `pinhole record` from the test camera into `output`, silent, with the encoder's CRF given explicitly.
    func oursArguments(pinhole: String, output: String) -> [String] {
        [pinhole, "record", "--device", "test", "--size", "\(size.width)x\(size.height)", "--fps", "\(RecordingBenchmark.fps)",
         "--duration", "\(seconds)", "--quality", "\(encoder.crf)", "--no-audio", "-o", output]
    }

    /// FFmpeg reading the raw frames in a loop at their frame rate (`-re`) and encoding them the way
    /// `MovieWriter` does: libx264 with the same preset and CRF, no B-frames, the same GOP, threads
    /// auto (FFmpeg's default and ours), fragmented MP4 with the same movflags.
    func peerArguments(raw: String, output: String) -> [String] {
        ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-re", "-stream_loop", "-1"] + rawInput(raw)
            + ["-t", "\(seconds)", "-c:v", "libx264", "-preset", encoder.preset, "-crf", "\(encoder.crf)", "-bf", "0", "-g", "\(encoder.gop)",
               "-pix_fmt", "yuv420p", "-movflags", "frag_keyframe+empty_moov+default_base_moof", output]
    }

    /// FFmpeg's options for the raw YUYV file `raw` as its input.
    func rawInput(_ raw: String) -> [String] {
        ["-f", "rawvideo", "-pix_fmt", "yuyv422", "-video_size", "\(size.width)x\(size.height)", "-framerate", "\(RecordingBenchmark.fps)", "-i", raw]
    }

    /// The command line as a reader would type it, with paths shortened to their file names.
    func shown(_ arguments: [String]) -> String {
        arguments.map { $0.hasPrefix("/") ? LibraryPhotos.name(of: $0) : $0 }.joined(separator: " ")
    }

    /// Measures both sides and returns the table rows.
    func rows() throws -> [Row] {
        guard let pinhole = RecordingBenchmark.pinholeBinary() else {
            throw CaptureBenchError(description: "no `pinhole` next to this program: build it with `swift build -c release --product pinhole` "
                                    + "(scripts/bench does)")
        }
        let frameBytes = Frames.payloadBytes(.yuyv, size)
        let needed = RecordingBenchmark.distinctFrames * frameBytes + (64 << 20)
        let free = FileSpace.available(at: bench.scratch)
        guard free >= needed else {
            throw CaptureBenchError(description: "needs \(Format.bytes(needed)) free in \(bench.scratch) for the raw frames, has \(Format.bytes(free))")
        }
        let raw = bench.scratch + "/recording-\(size.width)x\(size.height).yuyv"
        let ours = bench.scratch + "/recording-pinhole.mp4", theirs = bench.scratch + "/recording-ffmpeg.mp4"
        defer { for path in [raw, ours, theirs] { unlink(path) } }

        bench.progress("recording: \(RecordingBenchmark.distinctFrames) raw frames of the test camera for ffmpeg")
        try dumpFrames(to: raw)
        bench.progress("recording: the test camera's own cost, streaming with no output")
        let camera = try cameraCost()
        let hasFFmpeg = Subprocess.find("ffmpeg") != nil && Subprocess.find("ffprobe") != nil
        let reading = hasFFmpeg ? try peerReadCost(raw: raw) : nil

        bench.progress("recording: \(seconds) s with pinhole record")
        let oursRun = RecordingRun(process: Subprocess.run(oursArguments(pinhole: pinhole, output: ours), scratch: bench.scratch),
                                   path: ours, scratch: bench.scratch, countsDrops: true)
        var peerRun: RecordingRun?
        if hasFFmpeg {
            bench.progress("recording: \(seconds) s with ffmpeg -re … -c:v libx264")
            peerRun = RecordingRun(process: Subprocess.run(peerArguments(raw: raw, output: theirs), scratch: bench.scratch),
                                   path: theirs, scratch: bench.scratch, countsDrops: false)
        }

        let oursCheck = oursRun.verdict(size: size, expected: expectedFrames, who: "ours")
        let peerCheck = peerRun?.verdict(size: size, expected: expectedFrames, who: "ffmpeg")
        let check = Check(text: [oursCheck.text, peerCheck?.text].compactMap { $0 }.joined(separator: "; "),
                          failed: oursCheck.failed || peerCheck?.failed == true)
        let oursMs = oursRun.cpuMsPerRecordedSecond(fps: RecordingBenchmark.fps)
        let peerMs = peerRun?.cpuMsPerRecordedSecond(fps: RecordingBenchmark.fps)
        let settings = "libx264 \(encoder.preset), CRF \(encoder.crf), no B-frames, GOP \(encoder.gop), threads auto"
        let stage = "recording \(size.name)\(RecordingBenchmark.fps) \(seconds) s, CPU ms per recorded s"
        let peerName = "ffmpeg -re rawvideo → libx264 \(encoder.preset) CRF \(encoder.crf), whole process"
        let oursNote = "ours: `\(shown(oursArguments(pinhole: "pinhole", output: "FILE")))`: \(oursRun.summary(expected: expectedFrames)); "
            + "start-up, the test camera (draws its pattern, converts it to YUYV), YUYV→I420 on the camera's thread, \(settings), "
            + "fragmented MP4 fdatasynced each second, remuxed to a regular MP4 at the end"
        let aim = "CPU per recorded second = user+sys CPU of the whole process and its threads (wait4) ÷ recorded seconds (frames ÷ "
            + "\(RecordingBenchmark.fps)), one run each, one after the other; aim ≤ 1.1× ffmpeg's (Peer/ours ≥ 0.91×)"
        guard let peerRun, let reading else {
            return [Row(stage: stage, size: size.name, oursMs: oursMs, memcpyMs: nil, peer: "— (ffmpeg or ffprobe not installed)", peerMs: nil,
                        check: check, note: aim + "; " + oursNote + "; the test camera alone: \(camera.description)")]
        }
        let peerNote = "ffmpeg: `\(shown(peerArguments(raw: raw, output: "OUT.mp4")))`: \(peerRun.summary(expected: expectedFrames)); "
            + "its input: \(RecordingBenchmark.distinctFrames) distinct frames of the same test pattern taken from the test camera in YUYV "
            + "(a native VideoDataOutput), looped from the page cache; swscale yuyv422→yuv420p, no fsync, no remux"
        let whole = Row(stage: stage, size: size.name, oursMs: oursMs, memcpyMs: nil, peer: peerName, peerMs: peerMs, check: check,
                        note: aim + "; " + oursNote + "; " + peerNote + "; reading a cached frame costs ffmpeg less than drawing one costs "
                            + "the test camera, which favours ffmpeg here (see the next row)")
        let sourceless = Row(stage: stage + ", frame source subtracted", size: size.name, oursMs: oursMs.map { $0 - camera.cpuMsPerSecond },
                             memcpyMs: nil, peer: peerName + " − reading its input", peerMs: peerMs.map { $0 - reading.cpuMsPerSecond },
                             check: .none,
                             note: "what is left on both sides is conversion to I420, encoding and muxing (and, ours, the fsyncs and the remux): "
                                + "ours − the test camera alone, \(camera.description), work a real camera's DMA does not cost; "
                                + "ffmpeg − reading and demuxing the raw file, \(reading.description)")
        return [whole, sourceless]
    }

    /// Writes `distinctFrames` consecutive frames of the test camera's YUYV stream at `size` to
    /// `path`, packed, through a `VideoDataOutput` in the camera's own format (the frames ours records).
    func dumpFrames(to path: String) throws {
        let dump = try FrameDump(path: path, frames: RecordingBenchmark.distinctFrames)
        defer { dump.close() }
        let output = VideoDataOutput()
        output.videoSettings = VideoDataOutput.Settings(pixelFormat: nil)
        output.setSampleBufferDelegate(dump, queue: nil)
        let camera = try TestCameraRun(size: size, outputs: [output])
        defer { camera.stop() }
        let deadline = Clock.now() + Double(RecordingBenchmark.distinctFrames) / Double(RecordingBenchmark.fps) + 10
        while dump.remaining > 0 {
            if let failure = dump.failure { throw CaptureBenchError(description: "writing the raw frames: \(failure)") }
            guard Clock.now() < deadline else {
                throw CaptureBenchError(description: "the test camera gave \(RecordingBenchmark.distinctFrames - dump.remaining) of "
                                        + "\(RecordingBenchmark.distinctFrames) frames for ffmpeg")
            }
            Sleep.seconds(0.01)
        }
    }

    /// The test camera's own CPU cost at `size`: a session with no output streaming for a few
    /// seconds (drawing the pattern in BGRA and converting it to YUYV, on the streaming thread).
    func cameraCost() throws -> SourceCost {
        let window = bench.options.quick ? 3.0 : 10.0
        let camera = try TestCameraRun(size: size, outputs: [])
        defer { camera.stop() }
        try camera.waitForFrames(3)
        Sleep.seconds(0.5)
        let before = (camera.session.statistics.framesDelivered, Clock.processCPUSeconds(), Clock.now())
        Sleep.seconds(window)
        let after = (camera.session.statistics.framesDelivered, Clock.processCPUSeconds(), Clock.now())
        let frames = after.0 - before.0
        guard frames > 0 else { throw CaptureBenchError(description: "the test camera delivered no frame in \(Format.fixed(window, 1)) s") }
        let perFrame = (after.1 - before.1) / Double(frames)
        return SourceCost(cpuMsPerFrame: perFrame * 1000, fps: RecordingBenchmark.fps,
                          how: "a session with no output, \(frames) frames in \(Format.fixed(after.2 - before.2, 1)) s, process CPU (getrusage)")
    }

    /// What reading the raw file costs FFmpeg per frame: `-f null` runs (no conversion, not paced)
    /// of `readFrames.long` and `readFrames.short` frames, the difference per frame (start-up
    /// cancels), median of 3 launches each, interleaved, after one untimed launch of each.
    func peerReadCost(raw: String) throws -> SourceCost {
        bench.progress("recording: ffmpeg reading the raw frames alone")
        let counts = [RecordingBenchmark.readFrames.short, RecordingBenchmark.readFrames.long]
        var cpu: [[Double]] = [[], []]
        for round in 0...3 {
            for (index, frames) in counts.enumerated() {
                let arguments = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-stream_loop", "-1"] + rawInput(raw)
                    + ["-frames:v", "\(frames)", "-f", "null", "-"]
                let result = Subprocess.run(arguments, scratch: bench.scratch)
                guard result.status == 0 else {
                    throw CaptureBenchError(description: "ffmpeg -f null exited with \(result.status): \(result.errors.trimmed.suffix(200))")
                }
                if round > 0 { cpu[index].append(result.cpuSeconds) }
            }
        }
        let perFrame = max(0, Sample.median(cpu[1]) - Sample.median(cpu[0])) / Double(counts[1] - counts[0])
        return SourceCost(cpuMsPerFrame: perFrame * 1000, fps: RecordingBenchmark.fps,
                          how: "`-stream_loop -1 -f rawvideo … -frames:v N -f null -` for N = \(counts[1]) minus N = \(counts[0]), median of 3")
    }

    /// The `pinhole` built next to this program (so in the same configuration), or nil.
    static func pinholeBinary() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let program = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = program.lastIndex(of: "/") else { return nil }
        let candidate = String(program[..<slash]) + "/pinhole"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }
}

/// What producing the frames costs one side, apart from recording them.
struct SourceCost {
    /// CPU milliseconds per frame.
    let cpuMsPerFrame: Double
    /// Frames per second recorded.
    let fps: Int
    /// How it was measured, for the note.
    let how: String

    /// CPU milliseconds per recorded second.
    var cpuMsPerSecond: Double { cpuMsPerFrame * Double(fps) }

    /// "33.1 ms per second (1.10 ms a frame; how)".
    var description: String {
        "\(Format.ms(cpuMsPerSecond)) ms CPU per second (\(Format.ms(cpuMsPerFrame)) ms a frame; \(how))"
    }
}

/// One side's recording, measured whole, and what its file holds.
struct RecordingRun {
    /// How the process went: CPU, wall time, peak memory, its messages.
    let process: Subprocess.Result
    /// What ffprobe found in the file, or why there is nothing.
    let movie: Result<MovieProbe, CaptureBenchError>
    /// Frames the recorder said it dropped: pinhole's "N frames were dropped"; nil for a recorder
    /// that reads a file and cannot fall behind its source (ffmpeg -re waits for the encoder).
    let reportedDrops: Int?

    /// Probes the file at `path` after a run; `countsDrops` reads pinhole's drop message.
    init(process: Subprocess.Result, path: String, scratch: String, countsDrops: Bool) {
        self.process = process
        movie = process.status == 0 ? MovieProbe.probe(path, scratch: scratch)
            : .failure(CaptureBenchError(description: "exited with \(process.status): \(process.errors.trimmed.suffix(200))"))
        reportedDrops = countsDrops ? RecordingRun.drops(in: process.errors) : nil
    }

    /// The count in pinhole's "N frames were dropped: …" line, or 0 without one.
    static func drops(in errors: String) -> Int {
        for line in errors.split(separator: "\n") {
            guard let range = line.firstRange(of: " frames were dropped") else { continue }
            return Int(line[..<range.lowerBound].split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    /// CPU milliseconds per recorded second (recorded seconds = frames ÷ `fps`), or nil without a good file.
    func cpuMsPerRecordedSecond(fps: Int) -> Double? {
        guard case let .success(movie) = movie, movie.frames > 0 else { return nil }
        return process.cpuSeconds * 1000 / (Double(movie.frames) / Double(fps))
    }

    /// The file check: h264 at `size` with a frame count within 2% of `expected`.
    func verdict(size: FrameSize, expected: Int, who: String) -> Check {
        switch movie {
        case let .failure(error): return Check(text: "\(who) FAILED: \(error.description)", failed: true)
        case let .success(movie):
            var problems: [String] = []
            if movie.codec != "h264" { problems.append("codec \(movie.codec), not h264") }
            if movie.width != size.width || movie.height != size.height { problems.append("\(movie.width)×\(movie.height), not \(size.width)×\(size.height)") }
            if Double(abs(movie.frames - expected)) > 0.02 * Double(expected) { problems.append("\(movie.frames) frames, not \(expected) ± 2%") }
            let text = "\(who) \(movie.codec) \(movie.width)×\(movie.height) \(movie.frames)/\(expected) frames"
            return problems.isEmpty ? Check(text: text, failed: false) : Check(text: text + " FAILED: " + problems.joined(separator: ", "), failed: true)
        }
    }

    /// Frames, drops, wall and CPU time, peak memory and file size, for the note.
    func summary(expected: Int) -> String {
        // The process's own high-water mark (VmHWM, read while it ran: ChildProcess), not ru_maxrss,
        // which a child of this large process inherits from it at exec.
        let resident = Format.fixed(Double(process.peakResidentBytes) / Double(1 << 20), 1)
        let times = "wall \(Format.fixed(process.wallSeconds, 1)) s, CPU \(Format.fixed(process.cpuSeconds, 2)) s, peak RSS (VmHWM) \(resident) MiB"
        guard case let .success(movie) = movie else { return times }
        let drops = reportedDrops.map { "\($0) dropped (its own count)" } ?? "no drops possible (file input)"
        let rate = movie.duration > 0 ? Format.fixed(Double(movie.bytes) * 8 / movie.duration / 1000, 0) + " kb/s" : "?"
        return "\(movie.frames)/\(expected) frames, \(drops), \(Format.fixed(movie.duration, 3)) s in the file, \(times), "
            + "\(Format.bytes(movie.bytes)) (\(rate))"
    }
}

/// What `ffprobe -count_frames` finds in a movie's first video stream.
struct MovieProbe {
    /// The codec's name, "h264".
    let codec: String
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// Frames decoded.
    let frames: Int
    /// The container's duration in seconds.
    let duration: Double
    /// The file's size in bytes.
    let bytes: Int

    /// Runs ffprobe on `path` (decoding every frame to count them).
    static func probe(_ path: String, scratch: String) -> Result<MovieProbe, CaptureBenchError> {
        let result = Subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                                     "-show_entries", "stream=codec_name,width,height,nb_read_frames:format=duration,size",
                                     "-of", "default=noprint_wrappers=1", path], scratch: scratch, captureOutput: true)
        guard result.status == 0 else {
            return .failure(CaptureBenchError(description: "ffprobe exited with \(result.status): \(result.errors.trimmed.suffix(200))"))
        }
        var fields: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]).trimmed }
        }
        guard let codec = fields["codec_name"], let width = fields["width"].flatMap({ Int($0) }), let height = fields["height"].flatMap({ Int($0) }),
              let frames = fields["nb_read_frames"].flatMap({ Int($0) }) else {
            return .failure(CaptureBenchError(description: "ffprobe found no video stream: \(result.output.trimmed.prefix(200))"))
        }
        return .success(MovieProbe(codec: codec, width: width, height: height, frames: frames,
                                   duration: fields["duration"].flatMap { Double($0) } ?? 0, bytes: fields["size"].flatMap { Int($0) } ?? 0))
    }
}

/// Writes the first frames a `VideoDataOutput` delivers to a file, packed without padding, one
/// after the other: the peer's raw input.
final class FrameDump: VideoDataOutputSampleBufferDelegate {
    /// The open file, the frames still wanted, and the first write error.
    private let state: Mutex<(fd: Int32, remaining: Int, failure: String?)>

    /// Creates `path` for `frames` frames.
    init(path: String, frames: Int) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CaptureBenchError(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        state = Mutex((fd, frames, nil))
    }

    /// Frames still to be written.
    var remaining: Int { state.withLock { $0.remaining } }

    /// The first write error, if any.
    var failure: String? { state.withLock { $0.failure } }

    /// Appends the frame while more are wanted.
    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        guard state.withLock({ $0.remaining > 0 && $0.failure == nil && $0.fd >= 0 }) else { return }
        let bytes = sampleBuffer.imageBuffer.packedBytes()
        state.withLock { state in
            guard state.remaining > 0, state.failure == nil, state.fd >= 0 else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(state.fd, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    state.failure = String(cString: strerror(written < 0 ? errno : ENOSPC))
                    return
                }
                offset += written
            }
            state.remaining -= 1
        }
    }

    /// Closes the file; later frames are ignored.
    func close() {
        state.withLock { state in
            if state.fd >= 0 { Glibc.close(state.fd) }
            state.fd = -1
        }
    }
}
