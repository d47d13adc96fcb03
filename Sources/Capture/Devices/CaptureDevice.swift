import Glibc
import Media

/// A camera: a V4L2 node, a PipeWire camera node, or Pinhole's virtual test camera, with
/// AVFoundation's vocabulary.
///
/// Devices come from `DiscoverySession` or `CaptureDevice.default(for:position:)`. Their
/// description (ID, name, position, formats, controls) is read once; `activeFormat` and control
/// values change under `lockForConfiguration()` (a lock its caller holds: see there), and reach
/// the camera when a session runs it.
public final class CaptureDevice: Sendable, Identifiable, CustomStringConvertible {
    /// Where the camera looks.
    public enum Position: String, Sendable, CaseIterable {
        /// Towards the user (laptop webcams, phones' selfie cameras).
        case front
        /// Away from the user.
        case back
        /// A separate camera (USB webcam).
        case external
        /// Not known.
        case unspecified
    }

    /// What kind of camera it is.
    public enum DeviceType: String, Sendable, CaseIterable {
        /// Part of the machine.
        case builtIn
        /// Plugged in.
        case external
        /// Pinhole's test camera.
        case virtual
    }

    /// The media a device captures.
    public enum MediaType: Sendable {
        /// Pictures.
        case video
    }

    /// Width and height in pixels.
    public struct Dimensions: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Width.
        public var width: Int
        /// Height.
        public var height: Int
        /// Dimensions of `width`×`height`.
        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
        /// Pixel count.
        public var area: Int { width * height }
        /// "1920×1080".
        public var description: String { "\(width)×\(height)" }
        /// Ordered by area, then width.
        public static func < (a: Dimensions, b: Dimensions) -> Bool { (a.area, a.width) < (b.area, b.width) }
    }

    /// One way the camera can stream: pixel format, size and frame rates.
    public struct Format: Sendable, Hashable, CustomStringConvertible {
        /// The camera's pixel format.
        public let pixelFormat: PixelFormat
        /// Frame size.
        public let dimensions: Dimensions
        /// Frame intervals offered, shortest (fastest) first.
        public let frameIntervals: [FrameInterval]
        /// Photo sizes reachable from this format: its own size, and the camera's largest
        /// (reached by switching formats for the still when `.quality` is asked for).
        public let supportedMaxPhotoDimensions: [Dimensions]

        /// The highest frame rate.
        public var maxFrameRate: Double { frameIntervals.first?.framesPerSecond ?? 0 }

        /// "YUYV 1920×1080 (30, 15 fps)".
        public var description: String {
            let rates = frameIntervals.map { interval -> String in
                let fps = interval.framesPerSecond
                return fps == fps.rounded() ? String(Int(fps)) : String((fps * 100).rounded() / 100)
            }
            return "\(pixelFormat) \(dimensions) (\(rates.joined(separator: ", ")) fps)"
        }
    }

    /// What opens the camera.
    enum Source: Sendable, Equatable {
        /// A V4L2 node.
        case v4l2(path: String)
        /// A PipeWire camera node, by `node.name`; `v4l2Path` is the V4L2 node WirePlumber made it
        /// from (`api.v4l2.path`), whose controls it keeps; `portal`: reached through the camera
        /// portal's PipeWire remote (`CameraPortal`).
        case pipewire(node: String, v4l2Path: String?, portal: Bool)
        /// The virtual test camera.
        case virtual
    }

    /// Stable across replugging and reboots where the system gives one (/dev/v4l/by-id), else bus + card.
    public let uniqueID: String
    /// The camera's name, for people.
    public let localizedName: String
    /// Who made it (USB manufacturer string, else the driver's name), for EXIF Make.
    public let manufacturer: String?
    /// Where it looks.
    public let position: Position
    /// What kind of camera.
    public let deviceType: DeviceType
    /// Every format, grouped by pixel format, sizes ascending.
    public let formats: [Format]
    /// Every control the camera offers.
    public let controls: [DeviceControl]
    /// Whether this is an infrared camera: every format it offers is greyscale (GREY, Y10, Y16…),
    /// as with the face-login (Windows Hello) sensors beside a laptop's webcam. Such a camera is
    /// listed and can be opened by name, but `CaptureDevice.default(for:position:)` never picks it.
    public let isInfrared: Bool
    /// The device node, for cameras Pinhole opens through V4L2 directly.
    public var path: String? {
        if case let .v4l2(path) = source { return path }
        return nil
    }
    /// The PipeWire node (`node.name`), for cameras Pinhole streams through PipeWire.
    public var pipeWireNode: String? {
        if case let .pipewire(node, _, _) = source { return node }
        return nil
    }

    /// How Pinhole reaches a camera.
    public enum Route: String, Sendable, CaseIterable {
        /// Its V4L2 device node, opened directly.
        case v4l2
        /// A PipeWire camera node, on the session's PipeWire.
        case pipeWire
        /// A PipeWire camera node, through the desktop's camera portal (in a sandbox, or with PINHOLE_PORTAL=1).
        case portal
        /// Pinhole's virtual test camera.
        case virtual
    }

    /// How Pinhole reaches this camera.
    public var route: Route {
        switch source {
        case .v4l2: .v4l2
        case let .pipewire(_, _, portal): portal ? .portal : .pipeWire
        case .virtual: .virtual
        }
    }
    let source: Source
    /// The V4L2 controls as the description read them (nil when it could not open the node), so a
    /// session opening the camera does not enumerate them, and their menus, again.
    let v4l2Controls: [V4L2ControlInfo]?

    /// Mutable configuration, guarded.
    struct State {
        /// Who holds the configuration lock, and how many times (it is recursive).
        var lockOwner: LockOwner?
        var lockDepth = 0
        var activeFormat: Format?
        var activeFrameInterval: FrameInterval?
        var controlValues: [ControlID: Int64] = [:]
        var backend: BackendReference?
    }
    let state = Lock(State())

    init(uniqueID: String, localizedName: String, manufacturer: String? = nil, position: Position, deviceType: DeviceType, formats: [Format],
         controls: [DeviceControl], source: Source, isInfrared: Bool = false, v4l2Controls: [V4L2ControlInfo]? = nil) {
        self.uniqueID = uniqueID
        self.localizedName = localizedName
        self.manufacturer = manufacturer
        self.position = position
        self.deviceType = deviceType
        self.formats = formats
        self.controls = controls
        self.source = source
        self.isInfrared = isInfrared
        self.v4l2Controls = v4l2Controls
    }

    /// The identifier (`uniqueID`).
    public var id: String { uniqueID }

    /// "Integrated Camera (/dev/video0)", "Integrated Camera (pipewire:v4l2_input.pci-0000_00_14.0-usb-0_1_1.0)".
    public var description: String {
        (path ?? pipeWireNode.map { "pipewire:\($0)" }).map { "\(localizedName) (\($0))" } ?? localizedName
    }

    /// Whether the camera is still there.
    public var isConnected: Bool {
        switch source {
        case let .v4l2(path): return access(path, F_OK) == 0
        case let .pipewire(node, v4l2Path, _):
            // Its V4L2 device, when it has one, must still be there too (WirePlumber without udev
            // may keep listing a node whose device was unplugged).
            return PipeWireCameras.isPresent(name: node) && v4l2Path.map { access($0, F_OK) == 0 } ?? true
        case .virtual: return !VirtualCamera.faults(for: uniqueID).unplugged
        }
    }

    /// The largest size any format offers (the default photo size).
    public var maxPhotoDimensions: Dimensions {
        formats.map(\.dimensions).max() ?? Dimensions(width: 0, height: 0)
    }

    /// The format streams use: set explicitly, or the session preset's choice.
    public var activeFormat: Format? {
        state.withLock { $0.activeFormat }
    }

    /// The frame interval streams use (nil: the format's fastest).
    public var activeFrameInterval: FrameInterval? {
        state.withLock { $0.activeFrameInterval }
    }

    // MARK: - Configuration lock

    /// Who holds a configuration lock: a task (so the lock stays with it across `await`s and the
    /// threads it resumes on), else, outside any task, a thread.
    enum LockOwner: Hashable, Sendable {
        case task(Int)
        case thread(UInt)

        /// The caller.
        static var current: LockOwner {
            if let task = withUnsafeCurrentTask(body: { $0?.hashValue }) { return .task(task) }
            return .thread(UInt(pthread_self()))
        }
    }

    /// How long `lockForConfiguration()` waits for another holder to let go.
    static let lockPatience = 2.0

    /// Takes the configuration lock for the caller (the current task, or thread outside tasks);
    /// settings may change until the caller's `unlockForConfiguration()`. The lock is recursive
    /// (each lock needs its unlock) and exclusive: while another task or thread holds it, this
    /// waits for it (up to 2 s, then throws `.configurationLocked`), and settings made by others
    /// throw `.notLockedForConfiguration`. Throws when the camera is gone. Hold it briefly.
    public func lockForConfiguration() throws(CaptureError) {
        guard isConnected else { throw .deviceDisconnected(device: localizedName) }
        let me = LockOwner.current
        let deadline = SystemClock.monotonicNanoseconds() + Int64(CaptureDevice.lockPatience * 1e9)
        while true {
            let taken = state.withLock { state -> Bool in
                guard state.lockOwner == nil || state.lockOwner == me else { return false }
                state.lockOwner = me
                state.lockDepth += 1
                return true
            }
            if taken { return }
            guard SystemClock.monotonicNanoseconds() < deadline else { throw .configurationLocked(device: localizedName) }
            usleep(500)
        }
    }

    /// Gives the caller's configuration lock back (once per `lockForConfiguration()`). From
    /// anyone but the holder it does nothing: nobody can release a lock someone else holds.
    public func unlockForConfiguration() {
        let me = LockOwner.current
        state.withLock { state in
            guard state.lockOwner == me, state.lockDepth > 0 else { return }
            state.lockDepth -= 1
            if state.lockDepth == 0 { state.lockOwner = nil }
        }
    }

    /// Runs `change` if the caller holds the lock, else reports the programming error.
    private func whileLocked<R>(_ change: (inout State) throws(CaptureError) -> R) throws(CaptureError) -> R {
        let me = LockOwner.current
        return try state.withLock { state throws(CaptureError) -> R in
            guard state.lockOwner == me else { throw .notLockedForConfiguration(device: localizedName) }
            return try change(&state)
        }
    }

    /// Chooses the format (and optionally frame interval) streams will use (needs the lock).
    public func setActiveFormat(_ format: Format, frameInterval: FrameInterval? = nil) throws(CaptureError) {
        guard formats.contains(format) else { throw .unsupported("format \(format) on \(localizedName)") }
        if let frameInterval, !format.frameIntervals.contains(frameInterval) {
            throw .unsupported("\(frameInterval) at \(format.dimensions) on \(localizedName)")
        }
        try whileLocked { state throws(CaptureError) in
            state.activeFormat = format
            state.activeFrameInterval = frameInterval
        }
    }

    // MARK: - Controls

    /// The description of control `id`, if the camera has it.
    public func control(_ id: ControlID) -> DeviceControl? { controls.first { $0.id == id } }

    /// The control's current value (from the running camera, else the last value set, else its default).
    public func value(of id: ControlID) throws(CaptureError) -> Int64 {
        guard let description = control(id) else { throw .unsupported("control \(id) on \(localizedName)") }
        let (backend, stored) = state.withLock { ($0.backend, $0.controlValues[id]) }
        if let backend { return try backend.value(of: id) }
        return stored ?? description.defaultValue
    }

    /// Sets a control (needs the lock). Applied now when streaming, and again whenever a session
    /// opens the camera (a start, a return after an unplug). A button (`DeviceControl.Kind.button`:
    /// one-shot autofocus, a test driver's "Disconnect" or "inject a STREAMON error") is an action,
    /// not a setting: it is pressed once, now (on the running camera, or on the camera opened for
    /// the moment when none runs), and never kept to be pressed again at a later start.
    public func setValue(_ value: Int64, of id: ControlID) throws(CaptureError) {
        guard let description = control(id) else { throw .unsupported("control \(id) on \(localizedName)") }
        guard !description.isReadOnly else { throw .unsupported("\(id) is read-only on \(localizedName)") }
        guard (description.minimum...description.maximum).contains(value) else {
            throw .unsupported("\(id) = \(value) on \(localizedName) (range \(description.minimum)…\(description.maximum))")
        }
        let isButton = description.kind == .button
        let backend = try whileLocked { state throws(CaptureError) -> BackendReference? in
            if !isButton { state.controlValues[id] = value }
            return state.backend
        }
        if let backend {
            try backend.setValue(value, of: id)
        } else if isButton {
            try CaptureSession.makeBackend(for: self).setValue(value, of: id)
        }
    }

    /// Sets a control on the running camera for the library's own brief use (the photo path's
    /// flash), without the caller's lock and without keeping the value; nothing without a stream.
    func setTransientValue(_ value: Int64, of id: ControlID) throws(CaptureError) {
        try state.withLock { $0.backend }?.setValue(value, of: id)
    }

    /// Control values the program set (never buttons), applied whenever a session opens the camera.
    var pendingControlValues: [ControlID: Int64] { state.withLock { $0.controlValues } }

    /// Connects the running backend (or nil when it stops), so control changes reach the camera.
    func attach(_ backend: BackendReference?) { state.withLock { $0.backend = backend } }

    // MARK: - Focus, exposure, flash

    /// Focus behaviour.
    public enum FocusMode: Sendable {
        /// Fixed at the current position.
        case locked
        /// Focus once, then hold.
        case autoFocus
        /// Keep refocusing.
        case continuousAutoFocus
    }

    /// Whether the camera can focus in `mode`.
    public func isFocusModeSupported(_ mode: FocusMode) -> Bool {
        switch mode {
        case .continuousAutoFocus: control(.continuousAutoFocus) != nil
        case .autoFocus: control(.autoFocusStart) != nil || control(.continuousAutoFocus) != nil
        case .locked: control(.focusPosition) != nil || control(.continuousAutoFocus) != nil
        }
    }

    /// Sets the focus mode (needs the lock).
    public func setFocusMode(_ mode: FocusMode) throws(CaptureError) {
        guard isFocusModeSupported(mode) else { throw .unsupported("focus mode \(mode) on \(localizedName)") }
        switch mode {
        case .continuousAutoFocus: try setValue(1, of: .continuousAutoFocus)
        case .locked: if control(.continuousAutoFocus) != nil { try setValue(0, of: .continuousAutoFocus) }
        case .autoFocus:
            if control(.continuousAutoFocus) != nil { try setValue(0, of: .continuousAutoFocus) }
            if control(.autoFocusStart) != nil { try setValue(1, of: .autoFocusStart) }
        }
    }

    /// Whether the camera has a flash LED it can fire (V4L2 flash controls).
    public var hasFlash: Bool {
        control(.flashLEDMode)?.menu.contains { $0.label.lowercased().contains("flash") } ?? false
    }

    /// Whether the camera has a torch (its flash LED held on).
    public var hasTorch: Bool {
        control(.flashLEDMode)?.menu.contains { $0.label.lowercased().contains("torch") } ?? false
    }
}

/// A running backend, shared between a session's streaming thread and control calls.
/// V4L2 control ioctls may come from any thread; the virtual camera guards its values.
final class BackendReference: @unchecked Sendable {
    private let backend: CameraBackend
    private let lock = Lock(())

    init(_ backend: CameraBackend) { self.backend = backend }

    func value(of id: ControlID) throws(CaptureError) -> Int64 {
        try lock.withLock { _ throws(CaptureError) in try backend.value(of: id) }
    }

    func setValue(_ value: Int64, of id: ControlID) throws(CaptureError) {
        try lock.withLock { _ throws(CaptureError) in try backend.setValue(value, of: id) }
    }
}
