import Capture
import Dispatch
import Glibc
import Media
import PinholeTestSupport
import Synchronization

/// A capture stage that could not run, with the reason.
struct CaptureBenchError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}

/// Runs async library calls (`PhotoOutput.capturePhoto`) from the bench's synchronous stages.
enum Blocking {
    /// Where the task leaves its outcome for the blocked thread.
    private final class Outcome<Value: Sendable>: Sendable {
        /// The value or error, once the task has finished.
        let result = Mutex<Result<Value, any Error>?>(nil)
        /// Signalled when `result` is set.
        let done = DispatchSemaphore(value: 0)
    }

    /// Runs `operation` in a new task and blocks the calling thread until it returns or throws.
    /// The caller must not be a thread the task needs (the bench's main thread is not one: tasks
    /// run on the global concurrent executor).
    static func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let outcome = Outcome<Value>()
        Task {
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.result.withLock { $0 = result }
            outcome.done.signal()
        }
        outcome.done.wait()
        guard let result = outcome.result.withLock({ $0 }) else {
            throw CaptureBenchError(description: "the task ended without a result")
        }
        return try result.get()
    }
}

/// Pinhole's virtual back camera ("test-back") streaming YUYV at one size, at its fastest rate,
/// in a session with the given outputs: the same set-up as `pinhole snap` (the device's active
/// format set under the configuration lock, the session's preset `.inputPriority`).
final class TestCameraRun {
    /// The running session.
    let session: CaptureSession
    /// The virtual camera.
    let device: CaptureDevice
    /// The stream the session runs.
    let stream: StreamConfiguration

    /// Configures the camera for YUYV at `size`, adds `outputs` and starts streaming (blocking).
    init(size: FrameSize, outputs: [any CaptureOutput]) throws {
        let device = try CaptureDevice.device(withID: "test-back")
        let wanted = CaptureDevice.Dimensions(width: size.width, height: size.height)
        guard let format = device.formats.first(where: { $0.pixelFormat == .yuyv && $0.dimensions == wanted }) else {
            throw CaptureBenchError(description: "the test camera offers no YUYV \(wanted)")
        }
        try device.lockForConfiguration()
        do {
            try device.setActiveFormat(format, frameInterval: format.frameIntervals.first)
            device.unlockForConfiguration()
        } catch {
            device.unlockForConfiguration()
            throw error
        }
        let session = CaptureSession()
        session.sessionPreset = .inputPriority
        session.addInput(try CaptureDeviceInput(device: device))
        for output in outputs { session.addOutput(output) }
        try Blocking.run { try await session.start() }
        guard let stream = session.activeStream else { throw CaptureBenchError(description: "the test camera stopped as soon as it started") }
        self.stream = stream
        self.device = device
        self.session = session
    }

    /// Blocks until the session has delivered `count` frames in all; throws after `timeout` seconds.
    func waitForFrames(_ count: Int, timeout: Double = 10) throws {
        let deadline = Clock.now() + timeout
        while session.statistics.framesDelivered < count {
            guard Clock.now() < deadline, session.isRunning else {
                throw CaptureBenchError(description: "the test camera delivered \(session.statistics.framesDelivered) of \(count) frames in \(Format.fixed(timeout, 0)) s")
            }
            Sleep.seconds(0.002)
        }
    }

    /// Stops streaming and releases the camera.
    func stop() {
        session.stopRunning()
    }
}

/// Counts the frames a `VideoDataOutput` delivers to code, and keeps the bytes of one of them
/// when asked (to hand the same frame to the peers).
final class FrameCounter: VideoDataOutputSampleBufferDelegate {
    /// Frames received.
    let received = Atomic<Int>(0)
    /// Whether to copy the next frame's pixels into `kept`.
    private let wantsCopy: Bool
    /// One frame's pixel bytes, packed without padding (when `wantsCopy`).
    let kept = Mutex<[UInt8]?>(nil)

    /// A counter that keeps a copy of its first frame when `keepFirstFrame`.
    init(keepFirstFrame: Bool) {
        wantsCopy = keepFirstFrame
    }

    /// Counts the frame (and copies the first one when asked).
    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
        received.add(1, ordering: .relaxed)
        if wantsCopy, kept.withLock({ $0 == nil }) {
            let bytes = sampleBuffer.imageBuffer.packedBytes()
            kept.withLock { $0 = $0 ?? bytes }
        }
    }
}
