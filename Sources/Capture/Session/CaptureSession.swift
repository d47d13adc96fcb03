import Dispatch
import Glibc
import Media
import Synchronization

/// Connects a camera to outputs and runs it, as AVFoundation's capture session does.
///
/// Configuration (inputs, outputs, preset) may change at any time, from any thread, and no
/// change is lost to another thread's: changes between `beginConfiguration()` and
/// `commitConfiguration()` apply together. Starting, stopping and reconfiguring run on the
/// session's own serial queue, in the order they were asked for; frames flow on a dedicated
/// streaming thread, so a slow consumer never stalls the camera.
///
/// Nothing here blocks the caller's thread except the two AVFoundation-named calls that say
/// so: `start()`, `stop()` and `commitConfiguration()` are async; a single change outside a
/// configuration group (`sessionPreset = …`, `addOutput(_:)`, …) returns at once and restarts
/// a running stream in the background; `startRunning()`/`stopRunning()` block until done.
public final class CaptureSession: Sendable {
    /// Quality levels that pick the stream's format.
    public enum Preset: String, Sendable, CaseIterable {
        /// The largest size (for photos), at 15 fps or more where offered.
        case photo
        /// Up to 1920×1080 at the highest rate.
        case high
        /// Up to 640×480.
        case medium
        /// Up to 320×240.
        case low
        /// Exactly 640×480.
        case vga640x480
        /// Exactly 1280×720.
        case hd1280x720
        /// Exactly 1920×1080.
        case hd1920x1080
        /// Exactly 3840×2160.
        case hd4K3840x2160
        /// The device's `activeFormat`.
        case inputPriority
    }

    /// Why a session stopped getting frames without being asked to.
    public enum InterruptionReason: String, Sendable {
        /// Another program holds the camera.
        case deviceInUseByAnotherClient
        /// The camera was unplugged.
        case deviceDisconnected
    }

    /// What happens to a session.
    public enum Event: Sendable, Equatable {
        /// Streaming started with this configuration.
        case started(StreamConfiguration)
        /// Streaming stopped.
        case stopped
        /// Streaming failed and the session stopped: a fatal driver error, or no frame for
        /// 10 s (`.timeout`). Start it again to retry.
        case runtimeError(CaptureError)
        /// Frames stopped for a reason outside the program.
        case interrupted(InterruptionReason)
        /// The interruption is over; frames flow again.
        case interruptionEnded
    }

    /// Frame counters since the session started.
    public struct Statistics: Sendable, Equatable {
        /// Good frames handed to outputs.
        public var framesDelivered = 0
        /// Frames the driver marked damaged (or truncated MJPEG): skipped.
        public var framesCorrupt = 0
        /// Frames the driver skipped (gaps in its sequence numbers).
        public var framesDroppedByDriver = 0
    }

    /// What the session is made of: its inputs, outputs and preset.
    struct Configuration {
        /// The camera inputs (one is used).
        var inputs: [CaptureDeviceInput] = []
        /// The outputs frames are handed to.
        var outputs: [any CaptureOutput] = []
        /// The preset that picks the stream.
        var preset: Preset = .high
    }

    /// The live configuration, the staged one of an open group and the group's depth, under one
    /// lock: a change from one thread and a commit from another never lose each other's work.
    private struct ConfigurationState {
        var live = Configuration()
        var staged: Configuration?
        var depth = 0
    }

    /// What is running: the backend, the streaming thread, its events and statistics.
    struct RunState {
        var running = false
        var interrupted = false
        var stopRequested = false
        var thread: pthread_t?
        /// Streaming threads started and joined (every one is joined: see `reapFailedStream`).
        var threadsStarted = 0
        var threadsJoined = 0
        var backend: CameraBackend?
        var stream: StreamConfiguration?
        var statistics = Statistics()
        var continuations: [Int: AsyncStream<Event>.Continuation] = [:]
        var nextContinuation = 0
    }

    /// The serial queue on which starting, stopping and reconfiguring run, in order.
    let queue = DispatchQueue(label: "pinhole.capture-session")
    /// The live configuration, a group's staged one and the group depth, under one lock.
    private let configurationState = Lock(ConfigurationState())
    /// What is running: the backend, the streaming thread, events and statistics.
    let run = Lock(RunStateBox())
    /// The stream a still capture switched to, while it holds it (nil: the preset's).
    let streamOverride = Lock<StreamConfiguration?>(nil)
    /// Seconds without a frame after which a running stream stops with `.timeout` (tests shorten it).
    let silenceLimit = Atomic<Double>(10)

    /// Makes an idle session.
    public init() {}

    // MARK: - Configuration

    /// The preset that picks the stream's format.
    public var sessionPreset: Preset {
        get { current.preset }
        set { change { $0.preset = newValue } }
    }

    /// Whether `preset` can be used with the current input.
    public func canSetSessionPreset(_ preset: Preset) -> Bool {
        guard let device = current.inputs.first?.device else { return true }
        return (try? CaptureSession.streamConfiguration(for: device, preset: preset)) != nil
    }

    /// The inputs.
    public var inputs: [CaptureDeviceInput] { current.inputs }

    /// The outputs.
    public var outputs: [any CaptureOutput] { current.outputs }

    /// True when `input` can be added (a session has one camera at a time).
    public func canAddInput(_ input: CaptureDeviceInput) -> Bool {
        current.inputs.isEmpty
    }

    /// Adds a camera (switching cameras: remove the old input and add the new one inside
    /// `beginConfiguration()`/`commitConfiguration()`; outputs stay).
    public func addInput(_ input: CaptureDeviceInput) {
        change { $0.inputs.append(input) }
    }

    /// Removes a camera.
    public func removeInput(_ input: CaptureDeviceInput) {
        change { $0.inputs.removeAll { $0 === input } }
    }

    /// True when `output` can be added (one of each kind, not already added).
    public func canAddOutput(_ output: any CaptureOutput) -> Bool {
        guard output is FrameConsumer else { return false }
        return !current.outputs.contains { $0 === output || type(of: $0) == type(of: output) }
    }

    /// Adds an output (returns at once; a running stream restarts with it in the background).
    public func addOutput(_ output: any CaptureOutput) {
        guard output is FrameConsumer else { return }
        (output as? PhotoOutput)?.attach(to: self)
        change({ $0.outputs.append(output) })
    }

    /// Removes an output (returns at once; a running stream restarts without it in the background,
    /// and the output's frames end then).
    public func removeOutput(_ output: any CaptureOutput) {
        change({ $0.outputs.removeAll { $0 === output } }) {
            (output as? VideoDataOutput)?.finish()
            (output as? PhotoOutput)?.attach(to: nil)
        }
    }

    /// Starts a group of changes that apply together at `commitConfiguration()`. Groups nest;
    /// changes from any thread while a group is open join it.
    public func beginConfiguration() {
        configurationState.withLock { state in
            if state.depth == 0 { state.staged = state.live }
            state.depth += 1
        }
    }

    /// Applies the changes since `beginConfiguration()` (the outermost commit of nested groups
    /// applies them); a running session restarts its stream with the new camera or format
    /// (outputs keep their state) and this returns once the new stream runs (or failed, which
    /// is reported as an event). Blocks no thread.
    public func commitConfiguration() async {
        let applied = configurationState.withLock { state -> Bool in
            guard state.depth > 0 else { return false }
            state.depth -= 1
            guard state.depth == 0, let staged = state.staged else { return false }
            state.live = staged
            state.staged = nil
            return true
        }
        guard applied, isRunning else { return }
        await onQueue { self.restartLocked() }
    }

    /// The configuration as it will be: staged changes while configuring, else the live one.
    private var current: Configuration {
        configurationState.withLock { $0.staged ?? $0.live }
    }

    /// The configuration that runs.
    var liveConfiguration: Configuration {
        configurationState.withLock { $0.live }
    }

    /// Makes one change: into the open group, or live (then a running stream restarts on the
    /// session's queue, after which `afterwards` runs; without a restart it runs at once).
    private func change(_ body: (inout Configuration) -> Void, afterwards: @escaping @Sendable () -> Void = {}) {
        let live = configurationState.withLock { state -> Bool in
            if state.depth > 0, state.staged != nil {
                body(&state.staged!)
                return false
            }
            body(&state.live)
            return true
        }
        if live && isRunning {
            queue.async {
                self.restartLocked()
                afterwards()
            }
        } else {
            afterwards()
        }
    }

    /// Runs `body` on the session's queue and waits for it without blocking a thread.
    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    // MARK: - Running

    /// Whether frames are flowing (or the session is running but interrupted).
    public var isRunning: Bool { run.withLock { $0.state.running } }

    /// Whether the session is running but the camera is unavailable (busy or unplugged).
    public var isInterrupted: Bool { run.withLock { $0.state.interrupted } }

    /// The stream format in use, while running.
    public var activeStream: StreamConfiguration? { run.withLock { $0.state.stream } }

    /// Frame counters.
    public var statistics: Statistics { run.withLock { $0.state.statistics } }

    /// Events from now on (started, stopped, errors, interruptions). Each call makes a new stream.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(32))
        let key = run.withLock { box -> Int in
            box.state.nextContinuation += 1
            box.state.continuations[box.state.nextContinuation] = continuation
            return box.state.nextContinuation
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.run.withLock { $0.state.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    func emit(_ event: Event) {
        for continuation in run.withLock({ Array($0.state.continuations.values) }) { continuation.yield(event) }
    }

    /// Starts streaming; returns once frames flow (`activeStream` says in which format), or throws
    /// what went wrong (busy, unplugged, access denied, unsupported), which is also reported as a
    /// `.runtimeError` or `.interrupted` event. Blocks no thread. Does nothing when running.
    public func start() async throws(CaptureError) {
        let result: Result<Void, CaptureError> = await onQueue {
            Result { () throws(CaptureError) in try self.startLocked() }
        }
        try result.get()
    }

    /// Stops streaming; returns once the camera is released. Blocks no thread.
    public func stop() async {
        await onQueue { self.stopLocked(emitStopped: true) }
    }

    /// AVFoundation's blocking form of `start()`: blocks the calling thread until the stream runs
    /// or failed (never call it on a UI thread). Failures are reported only as `.runtimeError` or
    /// `.interrupted` events; `isRunning` says whether it worked.
    public func startRunning() {
        queue.sync { _ = Result { () throws(CaptureError) in try startLocked() } }
    }

    /// AVFoundation's blocking form of `stop()`: blocks the calling thread until the camera is
    /// released (never call it on a UI thread; `defer` in tests and tools is its use).
    public func stopRunning() {
        queue.sync { stopLocked(emitStopped: true) }
    }

    /// Whether one of the session's movie outputs is recording (the stream must not change then).
    var isRecordingMovie: Bool {
        liveConfiguration.outputs.contains { ($0 as? MovieFileOutput)?.isRecording == true }
    }
}

/// Holds a session's run state; the backend inside is touched only on the session's queue or
/// its streaming thread, never both at once (the thread is joined before the queue touches it).
struct RunStateBox: @unchecked Sendable {
    var state = CaptureSession.RunState()
}
