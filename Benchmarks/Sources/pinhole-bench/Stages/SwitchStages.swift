import Capture
import Dispatch
import Glibc
import Media
import PinholeTestSupport
import Synchronization

/// How long a running session takes to switch cameras. The test suite only checks that a switch
/// happens and the outputs get the new camera's frames; how fast is measured here, where the
/// machine's load is reported beside the number.
extension Stage {
    /// Switching a running session between the test cameras (front ↔ back), as an app's flip
    /// button does: from the new `CaptureDeviceInput` to the first frame of the new camera at a
    /// `VideoDataOutput` delegate. No peer: a script switches cameras by starting another process.
    static var cameraSwitch: Stage {
        Stage(name: "camera switch", sizes: [.hd1080]) { bench, size in
            bench.progress("camera switch at \(size.name)")
            return try CameraSwitch(bench: bench, size: size).rows()
        }
    }
}

/// The camera-switch measurement at one size.
struct CameraSwitch {
    /// The bench (options).
    let bench: Bench
    /// The stream size.
    let size: FrameSize

    /// Remembers when the output last handed over a frame of each camera (the front one's are mirrored).
    final class Watcher: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
        /// CLOCK_MONOTONIC nanoseconds of the newest front and back frames.
        let seen = Mutex<(front: Int64, back: Int64)>((0, 0))

        func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
            let now = MonotonicClock.nanoseconds()
            seen.withLock { if sampleBuffer.isMirrored { $0.front = now } else { $0.back = now } }
        }
    }

    /// Switches back and forth, untimed twice, then `bench.runs` times timed, and returns the row.
    func rows() throws -> [Row] {
        let front = try CaptureDevice.device(withID: "test-front"), back = try CaptureDevice.device(withID: "test-back")
        let session = CaptureSession()
        session.sessionPreset = size == .hd1080 ? .hd1920x1080 : .inputPriority
        session.addInput(try CaptureDeviceInput(device: back))
        let output = VideoDataOutput()
        let watcher = Watcher()
        output.setSampleBufferDelegate(watcher, queue: DispatchQueue(label: "pinhole-bench.camera-switch"))
        session.addOutput(output)
        try Blocking.run { try await session.start() }
        guard let stream = session.activeStream else { throw CaptureBenchError(description: "the test camera stopped as soon as it started") }
        defer { session.stopRunning() }
        var times: [Double] = []
        var onFront = false
        let warmup = 2
        for round in 0..<(warmup + bench.runs) {
            let target = onFront ? back : front
            let started = MonotonicClock.nanoseconds()
            let input = try CaptureDeviceInput(device: target)
            session.beginConfiguration()
            for old in session.inputs { session.removeInput(old) }
            session.addInput(input)
            try Blocking.run { await session.commitConfiguration() }
            let deadline = Clock.now() + 10
            var arrived: Int64 = 0
            while arrived < started {
                arrived = watcher.seen.withLock { onFront ? $0.back : $0.front }
                guard Clock.now() < deadline else {
                    throw CaptureBenchError(description: "no frame from \(target.localizedName) within 10 s of the switch")
                }
                Sleep.seconds(0.0005)
            }
            onFront.toggle()
            if round >= warmup { times.append(Double(arrived - started) / 1e6) }
        }
        let note = "front ↔ back test cameras, \(stream.pixelFormat) \(stream.width)×\(stream.height) at \(Format.fixed(stream.frameInterval.framesPerSecond, 0)) fps into a BGRA "
            + "VideoDataOutput with a delegate; from CaptureDeviceInput(device:) through begin/commitConfiguration (the old stream stopped, the new camera "
            + "configured and started) to the delegate getting its first frame; median of \(times.count) after \(warmup) untimed, "
            + "min \(Format.ms(times.min())) ms, max \(Format.ms(times.max())) ms"
        return [Row(stage: "camera switch → first frame", size: size.name, oursMs: Sample.median(times), memcpyMs: nil, peer: "—", peerMs: nil,
                    check: .none, note: note)]
    }
}
