import Media
import Synchronization

/// Pinhole's test camera: always present, listed after real cameras, as a front/back pair.
///
/// It streams a moving test pattern (colour bars, a moving square, the frame number and the
/// time) at common sizes and rates, in YUYV, NV12 and MJPEG, paced by the monotonic clock.
/// Tests can make it fail the ways real cameras do: unplugged, busy, access denied, damaged or dropped frames,
/// a failing stream start, a fatal streaming error, silence.
public enum VirtualCamera {
    /// The faults a test can inject into a virtual camera (testing only: `@_spi(Testing) import Capture`).
    @_spi(Testing) public struct Faults: Sendable, Equatable {
        /// The camera is unplugged: opening fails and a running stream ends with a disconnect.
        public var unplugged = false
        /// Another program holds the camera: starting a stream fails with "busy".
        public var busy = false
        /// The user may not open the camera: starting fails with "access denied", as a node of
        /// the group 'video' does for a user outside it.
        public var accessDenied = false
        /// Starting a stream fails (like VIDIOC_STREAMON returning an error).
        public var failStart = false
        /// The next this many stream starts fail, then starts work again (one failed switch).
        public var failingStarts = 0
        /// The next frame fails with a fatal streaming error (cleared when it fires).
        public var fatalError = false
        /// Every n-th frame is marked damaged (0: never).
        public var corruptEvery = 0
        /// Every n-th frame is dropped, leaving a gap in sequence numbers (0: never).
        public var dropEvery = 0
        /// The camera sends nothing, and every wait for a frame wakes at once without one (as a
        /// V4L2 poll woken by a driver event does).
        public var silent = false

        /// Faults as given (none by default).
        public init(unplugged: Bool = false, busy: Bool = false, accessDenied: Bool = false, failStart: Bool = false, failingStarts: Int = 0,
                    fatalError: Bool = false, corruptEvery: Int = 0, dropEvery: Int = 0, silent: Bool = false) {
            self.unplugged = unplugged
            self.busy = busy
            self.accessDenied = accessDenied
            self.failStart = failStart
            self.failingStarts = failingStarts
            self.fatalError = fatalError
            self.corruptEvery = corruptEvery
            self.dropEvery = dropEvery
            self.silent = silent
        }
    }

    /// The ID of the front test camera.
    public static let frontID = "pinhole-test-camera-front"
    /// The ID of the back test camera.
    public static let backID = "pinhole-test-camera-back"

    /// Whether the test camera `id` is a back one (the pair's back camera, or a back camera of a
    /// test's own pair): it has a flash LED, and its square is orange.
    static func isBack(_ id: String) -> Bool { id == backID || id.hasPrefix(backID + "-") }

    /// The frame sizes offered (MJPEG up to 1920×1080).
    static let sizes: [(Int, Int)] = [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]

    /// Faults by camera ID: the pair's, and those of every `Pair` a test made.
    private static let faults = Lock<[String: Faults]>([:])
    /// How many times faults changed.
    private static let changes = Atomic<Int>(0)

    /// Bumped whenever faults change, so device watchers notice simulated unplugging.
    static var generation: Int { changes.load(ordering: .acquiring) }
    /// The IDs of the test cameras streaming in this process.
    private static let streaming = Lock<Set<String>>([])

    /// The faults currently set on camera `id`.
    @_spi(Testing) public static func faults(for id: String) -> Faults {
        faults.withLock { $0[id] ?? Faults() }
    }

    /// Replaces the faults of camera `id` (tests call this; `Faults()` clears them).
    @_spi(Testing) public static func setFaults(_ value: Faults, for id: String) {
        faults.withLock { $0[id] = value }
        changes.add(1, ordering: .releasing)
    }

    /// Changes the faults of camera `id` in place.
    @_spi(Testing) public static func updateFaults(for id: String, _ change: (inout Faults) -> Void) {
        faults.withLock { all in
            var value = all[id] ?? Faults()
            change(&value)
            all[id] = value
        }
        changes.add(1, ordering: .releasing)
    }

    /// Claims the camera for a stream; false if another stream in this process holds it.
    static func claim(_ id: String) -> Bool { streaming.withLock { $0.insert(id).inserted } }

    /// Releases a claim.
    static func release(_ id: String) { _ = streaming.withLock { $0.remove(id) } }

    /// Whether a test camera is streaming in this process now.
    static var isStreaming: Bool { streaming.withLock { !$0.isEmpty } }

    /// A front/back pair of test cameras of a test's own (testing only: `@_spi(Testing) import
    /// Capture`). Faults are kept by camera ID, and no other pair has these IDs: tests that run at
    /// once, each with its own pair, do not see each other's faults or claims. The cameras are not
    /// listed by discovery; a test hands them to the code it tests, with `deviceEvents()` for
    /// their coming and going.
    @_spi(Testing) public struct Pair: Sendable {
        /// The front camera ("Pinhole Test Camera (front)", streaming as the pair's front one does).
        public let front: CaptureDevice
        /// The back camera (with the flash LED of the pair's back one).
        public let back: CaptureDevice

        /// How many pairs were made in this process (their IDs' suffix).
        private static let made = Atomic<Int>(0)

        /// A new pair, its cameras without faults.
        public init() {
            let number = Pair.made.add(1, ordering: .relaxed).newValue
            let devices = DeviceScanner.virtualDevices(suffix: "-\(number)")
            front = devices[0]
            back = devices[1]
        }

        /// The front camera, then the back one (as discovery lists the pair).
        public var devices: [CaptureDevice] { [front, back] }

        /// Changes the faults of `camera` (one of this pair's) in place.
        public func updateFaults(of camera: CaptureDevice, _ change: (inout Faults) -> Void) {
            VirtualCamera.updateFaults(for: camera.uniqueID, change)
        }

        /// Connect and disconnect events for this pair's cameras from now on, as
        /// `DiscoverySession.deviceEvents()` gives them for the discovered ones: the unplugged
        /// fault set or cleared is a camera going or coming.
        public func deviceEvents() -> AsyncStream<DeviceEvent> {
            let devices = self.devices
            return DeviceWatcher.events { devices }
        }
    }
}
