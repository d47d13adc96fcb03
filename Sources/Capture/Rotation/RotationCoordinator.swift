import Glibc
import Media
import Synchronization

/// The rotation that keeps a camera's picture level with the horizon as the device turns, for
/// the preview and for captures, as AVFoundation's rotation coordinator gives them.
///
/// The device's orientation comes from the accelerometer through iio-sensor-proxy (D-Bus);
/// without one the angles stay 0. Cameras that turn with the device (built-in ones, and the test
/// cameras standing in for them) follow it; external webcams do not. A sensor mounted rotated
/// (V4L2's camera_sensor_rotation) is corrected for. Front cameras' previews are mirrored, so
/// their preview angle turns the other way. Set the angles on connections yourself from
/// `angles()`, or let `attach(preview:capture:)` keep connections updated.
///
/// `make(device:)` returns a coordinator whose angles are right from the start (it awaits the
/// sensor's first reading, up to 0.5 s, without blocking a thread); `init(device:)` returns at
/// once, with the angles at 0 until that reading arrives (`angles()` delivers it).
public final class RotationCoordinator: Sendable {
    /// The two angles, in degrees clockwise.
    public struct Angles: Sendable, Equatable {
        /// For a preview (mirrored for front cameras).
        public let preview: Double
        /// For photos and videos (recorded as EXIF orientation, never mirrored).
        public let capture: Double

        /// Angles as given.
        public init(preview: Double, capture: Double) {
            self.preview = preview
            self.capture = capture
        }
    }

    private struct State {
        var orientation: DeviceOrientation = .undefined
        var hasSensor = false
        var continuations: [Int: AsyncStream<Angles>.Continuation] = [:]
        var nextKey = 0
        var preview: CaptureConnection?
        var capture: CaptureConnection?
    }

    /// The camera whose picture is levelled.
    public let device: CaptureDevice
    private let state = Lock(State())
    private let stopped = Atomic<Bool>(false)
    private let ready = Atomic<Bool>(false)

    /// Starts following the accelerometer for `device`; returns at once (the first reading
    /// follows within moments: see `make(device:)`).
    public init(device: CaptureDevice) {
        self.device = device
        let thread = StreamingThread.start { [weak self] in RotationCoordinator.follow { self } }
        pthread_detach(thread)
    }

    /// Starts following the accelerometer for `device` and returns once the first reading is in
    /// (or after 0.5 s without a sensor answering), so the angles are right from the start. It
    /// waits by suspending, never blocking the caller's thread.
    public static func make(device: CaptureDevice) async -> RotationCoordinator {
        let coordinator = RotationCoordinator(device: device)
        for _ in 0..<100 where !coordinator.ready.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return coordinator
    }

    deinit { stopped.store(true, ordering: .releasing) }

    /// Stops following the accelerometer.
    public func stop() { stopped.store(true, ordering: .releasing) }

    /// Whether an accelerometer is being followed.
    public var hasSensor: Bool { state.withLock { $0.hasSensor } }

    /// How the device is held now.
    public var deviceOrientation: DeviceOrientation { state.withLock { $0.orientation } }

    /// The angle for a preview of this camera, in degrees clockwise.
    public var videoRotationAngleForHorizonLevelPreview: Double { currentAngles.preview }

    /// The angle for captures from this camera, in degrees clockwise.
    public var videoRotationAngleForHorizonLevelCapture: Double { currentAngles.capture }

    /// Both angles now.
    public var currentAngles: Angles { RotationCoordinator.angles(for: deviceOrientation, device: device) }

    /// The angles now and after every change.
    public func angles() -> AsyncStream<Angles> {
        let (stream, continuation) = AsyncStream<Angles>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = state.withLock { state -> Int in
            state.nextKey += 1
            state.continuations[state.nextKey] = continuation
            return state.nextKey
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.continuations.removeValue(forKey: key) } }
        continuation.yield(currentAngles)
        return stream
    }

    /// Keeps `preview` and `capture` connections' rotation angles updated from now on.
    public func attach(preview: CaptureConnection?, capture: CaptureConnection?) {
        state.withLock {
            $0.preview = preview
            $0.capture = capture
        }
        apply(currentAngles)
    }

    private func apply(_ angles: Angles) {
        let (preview, capture) = state.withLock { ($0.preview, $0.capture) }
        preview?.videoRotationAngle = angles.preview
        capture?.videoRotationAngle = angles.capture
    }

    /// The thread's work: connect, read, wait for changes; reconnect if the service restarts.
    /// It holds the coordinator only for one step at a time, so dropping the coordinator ends it.
    private static func follow(_ weakCoordinator: () -> RotationCoordinator?) {
        var sensor = SensorProxy()
        do {
            guard let coordinator = weakCoordinator() else { return }
            coordinator.update(sensor?.orientation() ?? .undefined, hasSensor: sensor != nil)
            coordinator.ready.store(true, ordering: .releasing)
        }
        while true {
            if weakCoordinator()?.stopped.load(ordering: .acquiring) != false { return }
            guard let current = sensor else {
                usleep(1_000_000)
                sensor = SensorProxy()
                if let sensor { weakCoordinator()?.update(sensor.orientation(), hasSensor: true) }
                continue
            }
            switch current.waitForChange(milliseconds: 250) {
            case true?: weakCoordinator()?.update(current.orientation(), hasSensor: true)
            case false?: break
            case nil:
                sensor = nil
                weakCoordinator()?.update(.undefined, hasSensor: false)
            }
        }
    }

    private func update(_ orientation: DeviceOrientation, hasSensor: Bool) {
        let continuations = state.withLock { state -> [AsyncStream<Angles>.Continuation]? in
            guard state.orientation != orientation || state.hasSensor != hasSensor else { return nil }
            state.orientation = orientation
            state.hasSensor = hasSensor
            return Array(state.continuations.values)
        }
        guard let continuations else { return }
        let angles = currentAngles
        apply(angles)
        for continuation in continuations { continuation.yield(angles) }
    }

    /// The angles for `device` held in `orientation`.
    static func angles(for orientation: DeviceOrientation, device: CaptureDevice) -> Angles {
        // The sensor's mounting: V4L2 gives the counter-clockwise correction.
        let mounting = device.control(.sensorRotation).map { (360 - Int($0.defaultValue) % 360) % 360 } ?? 0
        let turns = device.deviceType == .external || device.position == .external ? 0 : (orientation.clockwiseDegrees ?? 0)
        // A back camera sees the world turn against the device; a front camera, looking the
        // other way, sees it turn with the device.
        let capture = device.position == .front ? (mounting - turns + 360) % 360 : (mounting + turns) % 360
        let mirroredPreview = device.position == .front
        let preview = mirroredPreview ? (360 - capture) % 360 : capture
        return Angles(preview: Double(preview), capture: Double(capture))
    }
}
