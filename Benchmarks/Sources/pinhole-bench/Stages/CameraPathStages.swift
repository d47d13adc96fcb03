import Capture
import Dispatch
import Glibc
import Media
import PinholeTestSupport
import Synchronization

/// The same camera through PipeWire and through V4L2 directly: what taking it the way the desktop
/// shares it costs. It needs a real camera that a PipeWire session offers too, which this machine
/// does not have: `scripts/vm/path-bench` runs it on vivid under QEMU with PipeWire and
/// WirePlumber; elsewhere it says why it measured nothing and adds no row.
extension Stage {
    /// PipeWire against direct V4L2 on one camera at 640×480 and 1280×720: CPU per frame (this
    /// process, and with the PipeWire daemon's), the latency PipeWire adds between the driver's
    /// time stamp and the delegate, and from starting the session to its first frame.
    static var cameraPath: Stage {
        Stage(name: "camera path", sizes: [CameraPaths.vga, CameraPaths.hd720]) { bench, size in
            try CameraPaths(bench: bench, size: size).rows()
        }
    }
}

/// The PipeWire-against-V4L2 measurement at one size.
struct CameraPaths {
    /// The bench (options).
    let bench: Bench
    /// The stream size.
    let size: FrameSize

    /// 640×480.
    static let vga = FrameSize(name: "640×480", width: 640, height: 480)
    /// 1280×720.
    static let hd720 = FrameSize(name: "720p", width: 1280, height: 720)

    /// Streams per path: in turns, PipeWire first, then direct, and so on.
    var rounds: Int { bench.options.quick ? 1 : 3 }
    /// Seconds each stream is measured, after its first second.
    var seconds: Double { bench.options.quick ? 4 : 8 }

    /// One way to the camera.
    enum Path: String, CaseIterable {
        case pipeWire = "PipeWire"
        case direct = "V4L2"
    }

    /// What one stream measured.
    struct Stream {
        /// From `start()` to the delegate's first frame, in ms.
        let firstFrameMs: Double
        /// Frames delivered in the window.
        let frames: Int
        /// This process's CPU time over the window, in ms.
        let cpuMs: Double
        /// The PipeWire daemon's and WirePlumber's CPU time over the window, in ms.
        let daemonsMs: Double
        /// Each delivered frame's latency, driver time stamp to delegate, in ms.
        let latenciesMs: [Double]
        /// The window's length, in seconds.
        let windowSeconds: Double
        /// The stream's format and rate, as the session chose them.
        let format: String
    }

    /// Keeps every frame's latency and counts them, without allocating per frame (the array's
    /// room is made before the stream starts).
    final class Watcher: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
        /// Latencies in ns of the frames since `reset`, their count, and the first frame's arrival.
        let state: Mutex<(latencies: [Int64], count: Int, first: Int64)>

        init(room: Int) {
            var latencies: [Int64] = []
            latencies.reserveCapacity(room)
            state = Mutex((latencies, 0, 0))
        }

        func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
            let now = MonotonicClock.nanoseconds()
            state.withLock { state in
                if state.first == 0 { state.first = now }
                state.count += 1
                if state.latencies.count < state.latencies.capacity { state.latencies.append(now - sampleBuffer.presentationTimestampNanoseconds) }
            }
        }

        /// Starts a new window: the count and latencies so far let go.
        func reset() {
            state.withLock { state in
                state.latencies.removeAll(keepingCapacity: true)
                state.count = 0
            }
        }
    }

    /// Measures both paths in turns and returns the rows (none, with a note on standard error,
    /// when no camera is offered by PipeWire and V4L2 both).
    func rows() throws -> [Row] {
        let offered = CaptureDevice.DiscoverySession(deviceTypes: [.builtIn, .external]).devices
        guard let shared = offered.first(where: { $0.pipeWireNode != nil }) else {
            bench.progress("camera path: nothing measured: no camera that a PipeWire session offers (scripts/vm/path-bench measures vivid through both)")
            return []
        }
        guard let direct = (0..<64).lazy.compactMap({ try? CaptureDevice.device(withID: "/dev/video\($0)") }).first(where: { $0.uniqueID == shared.uniqueID }) else {
            throw CaptureBenchError(description: "PipeWire offers \(shared.localizedName), but no /dev/video node is the same camera")
        }
        let devices: [Path: CaptureDevice] = [.pipeWire: shared, .direct: direct]
        var streams: [Path: [Stream]] = [:]
        for round in 0..<rounds {
            for path in Path.allCases {
                bench.progress("camera path: \(size.name) through \(path.rawValue), stream \(round + 1) of \(rounds)")
                streams[path, default: []].append(try measure(devices[path]!, path: path))
            }
        }
        return rows(streams, camera: shared)
    }

    /// One stream of `device` at the stage's size in YUYV at its fastest rate, into a
    /// `VideoDataOutput` that keeps the camera's format (no conversion: the path's own cost).
    func measure(_ device: CaptureDevice, path: Path) throws -> Stream {
        guard let format = device.formats.first(where: { $0.pixelFormat == .yuyv && $0.dimensions == .init(width: size.width, height: size.height) }) else {
            throw CaptureBenchError(description: "\(device.localizedName) through \(path.rawValue) offers no YUYV \(size.width)×\(size.height)")
        }
        try device.lockForConfiguration()
        try device.setActiveFormat(format, frameInterval: format.frameIntervals.first)
        device.unlockForConfiguration()
        let fps = format.maxFrameRate
        let watcher = Watcher(room: Int((seconds + 2) * max(fps, 1) * 2))
        let output = VideoDataOutput()
        output.videoSettings = .init(pixelFormat: nil)
        output.setSampleBufferDelegate(watcher, queue: DispatchQueue(label: "pinhole-bench.camera-path"))
        let session = CaptureSession()
        session.sessionPreset = .inputPriority
        session.addInput(try CaptureDeviceInput(device: device))
        session.addOutput(output)
        // The other path may still hold the camera: PipeWire lets it go when WirePlumber suspends
        // the idle node, 5 s after its last stream (a direct stream lets go when it stops).
        let started = MonotonicClock.nanoseconds()
        // The start that got the camera: the first frame is timed from it.
        var attempt = started, busy = false
        while true {
            do {
                attempt = MonotonicClock.nanoseconds()
                try Blocking.run { try await session.start() }
                if busy { bench.progress("camera path: the camera was busy for \(Format.fixed(Double(attempt - started) / 1e9, 1)) s first") }
                break
            } catch CaptureError.deviceBusy {
                busy = true
                guard MonotonicClock.nanoseconds() - started < 30_000_000_000 else { throw CaptureBenchError(description: "\(device.localizedName) stayed busy for 30 s") }
                Sleep.seconds(0.25)
            }
        }
        defer { session.stopRunning() }
        let opened = MonotonicClock.nanoseconds()
        var first: Int64 = 0
        while first == 0 {
            first = watcher.state.withLock { $0.first }
            guard MonotonicClock.nanoseconds() - opened < 20_000_000_000 else { throw CaptureBenchError(description: "no frame through \(path.rawValue) in 20 s") }
            Sleep.seconds(0.001)
        }
        // The stream's start (buffers, the first frames' own work) is not the steady cost.
        Sleep.seconds(1)
        watcher.reset()
        let cpu0 = Self.ownCPU(), daemons0 = Self.daemonsCPU(), window0 = MonotonicClock.nanoseconds()
        Sleep.seconds(seconds)
        let cpu1 = Self.ownCPU(), daemons1 = Self.daemonsCPU(), window1 = MonotonicClock.nanoseconds()
        let (latencies, count) = watcher.state.withLock { ($0.latencies.map { Double($0) / 1e6 }, $0.count) }
        let stream = session.activeStream.map { "\($0.pixelFormat) \($0.width)×\($0.height) at \(Format.fixed($0.frameInterval.framesPerSecond, 1)) fps" } ?? "?"
        return Stream(firstFrameMs: Double(first - attempt) / 1e6, frames: count, cpuMs: cpu1 - cpu0, daemonsMs: daemons1 - daemons0,
                      latenciesMs: latencies, windowSeconds: Double(window1 - window0) / 1e9, format: stream)
    }

    /// The table's rows: CPU per frame (this process; with the daemons) and start to first frame,
    /// PipeWire as "ours" and direct V4L2 as the peer, and the latency PipeWire adds.
    func rows(_ streams: [Path: [Stream]], camera: CaptureDevice) -> [Row] {
        let pw = streams[.pipeWire] ?? [], v4l2 = streams[.direct] ?? []
        /// CPU ms per frame over all streams of one path.
        func perFrame(_ runs: [Stream], _ value: (Stream) -> Double) -> Double {
            let frames = runs.reduce(0) { $0 + $1.frames }
            return frames == 0 ? 0 : runs.reduce(0.0) { $0 + value($1) } / Double(frames)
        }
        let own = (perFrame(pw, \.cpuMs), perFrame(v4l2, \.cpuMs))
        let whole = (perFrame(pw) { $0.cpuMs + $0.daemonsMs }, perFrame(v4l2) { $0.cpuMs + $0.daemonsMs })
        let latency = (pw.flatMap(\.latenciesMs), v4l2.flatMap(\.latenciesMs))
        let first = (Sample.median(pw.map(\.firstFrameMs)), Sample.median(v4l2.map(\.firstFrameMs)))
        let rate = { (runs: [Stream]) in
            Format.fixed(Double(runs.reduce(0) { $0 + $1.frames }) / max(runs.reduce(0.0) { $0 + $1.windowSeconds }, 1e-9), 1)
        }
        let peer = "direct V4L2 (/dev/video, the same camera)"
        let setting = "\(camera.localizedName), \(pw.first?.format ?? "?") through PipeWire (\(rate(pw)) fps delivered), \(v4l2.first?.format ?? "?") "
            + "direct (\(rate(v4l2)) fps); \(rounds) streams per path in turns, each measured for \(Format.fixed(seconds, 0)) s after its first second; "
            + "a VideoDataOutput keeping the camera's format (no conversion) with a delegate"
        let aim = own.1 > 0 ? own.0 / own.1 : 0
        return [
            Row(stage: "camera path: PipeWire, CPU ms per frame (this process)", size: size.name, oursMs: own.0, memcpyMs: nil, peer: peer, peerMs: own.1,
                check: Check(text: "\(Format.fixed(aim, 2))× the direct path's; aim ≤ 1.2×: \(aim <= 1.2 ? "met" : "not met")", failed: false),
                note: "user + system CPU time of this process (getrusage) over the windows ÷ frames delivered in them; " + setting),
            Row(stage: "camera path: PipeWire, CPU ms per frame (with the PipeWire daemon and WirePlumber)", size: size.name, oursMs: whole.0, memcpyMs: nil,
                peer: peer, peerMs: whole.1, check: .none,
                note: "as above plus the pipewire and wireplumber processes' CPU time over the same windows (/proc/PID/stat): through PipeWire the daemon "
                    + "reads the camera and hands each buffer over; direct, the daemon idles"),
            Row(stage: "camera path: PipeWire, latency added, median", size: size.name,
                oursMs: Sample.median(latency.0) - Sample.median(latency.1), memcpyMs: nil, peer: "—", peerMs: nil, check: .none,
                note: "each frame's delivery to the delegate minus the driver's time stamp (CLOCK_MONOTONIC, the V4L2 buffer's, which spa's V4L2 "
                    + "source passes on in the buffer's header), the PipeWire path's median minus the direct path's: what PipeWire adds; "
                    + "medians \(Format.ms(Sample.median(latency.0))) and \(Format.ms(Sample.median(latency.1))) ms, 99th percentiles "
                    + "\(Format.ms(GalleryBenchmark.percentile(latency.0, 0.99))) and \(Format.ms(GalleryBenchmark.percentile(latency.1, 0.99))) ms over "
                    + "\(latency.0.count) and \(latency.1.count) frames (a driver that stamps a frame with its ideal time rather than its arrival, as vivid "
                    + "does, makes both negative: the difference is what counts)"),
            Row(stage: "camera path: PipeWire, start → first frame", size: size.name, oursMs: first.0, memcpyMs: nil, peer: peer, peerMs: first.1,
                check: .none,
                note: "from CaptureSession.start() to the delegate's first frame (the format chosen before), median of \(pw.count) and \(v4l2.count); "
                    + "PipeWire: connecting the stream, WirePlumber linking it and resuming the suspended node, which opens the camera; "
                    + "each start: " + pw.map { Format.ms($0.firstFrameMs) }.joined(separator: ", ") + " and "
                    + v4l2.map { Format.ms($0.firstFrameMs) }.joined(separator: ", ") + " ms"),
        ]
    }

    /// This process's user and system CPU time, in ms.
    static func ownCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000 + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000
    }

    /// The CPU time, in ms, of every process named pipewire or wireplumber (`ProcessFacts`).
    static func daemonsCPU() -> Double {
        FileSystem.names(in: "/proc").compactMap { pid_t($0) }
            .filter { ["pipewire", "wireplumber"].contains(ProcessFacts.name(of: $0)) }
            .reduce(0.0) { $0 + (ProcessFacts.cpuSeconds($1) ?? 0) * 1000 }
    }
}
