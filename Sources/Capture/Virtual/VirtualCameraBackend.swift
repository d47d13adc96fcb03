import Glibc
import Media

/// The streaming side of a virtual camera: renders the test pattern into the camera's pixel
/// format at the configured rate.
final class VirtualCameraBackend: CameraBackend {
    let id: String
    let name: String
    private var configuration: StreamConfiguration?
    private var pattern: TestPattern?
    private var canvas: PixelBuffer?
    /// Whether `canvas` and `frame` hold a complete earlier frame (so only changes are drawn).
    private var drawn = false
    private var frame: PixelBuffer?
    private var converter = PixelConverter()
    private var encoder = JPEGEncoder()
    private var startTime: Int64 = 0
    private var frameIndex: UInt32 = 0
    private var sequence: UInt32 = 0
    private var claimed = false
    private var controlValues: [ControlID: Int64] = [:]
    /// How many due frames the camera holds for a late reader, as a V4L2 driver holds its queued
    /// buffers (`V4L2Backend.bufferCount`); beyond that, older frames are lost.
    static let waitingFrames = 4

    /// Opens the virtual camera `id` (fails when it is "unplugged").
    init(id: String, name: String) throws(CaptureError) {
        guard !VirtualCamera.faults(for: id).unplugged else { throw .deviceDisconnected(device: name) }
        self.id = id
        self.name = name
        for control in VirtualCameraBackend.controls(forID: id) { controlValues[control.id] = control.defaultValue }
    }

    deinit { stop() }

    /// The controls the test camera offers (values are checked against their ranges, stored and
    /// read back). The back camera also has a flash LED, as phones' back cameras do.
    static func controls(forID id: String) -> [DeviceControl] {
        var controls: [DeviceControl] = [
            DeviceControl(id: .brightness, name: "Brightness", kind: .integer, minimum: -64, maximum: 64, step: 1, defaultValue: 0, menu: [], isReadOnly: false),
            DeviceControl(id: .contrast, name: "Contrast", kind: .integer, minimum: 0, maximum: 100, step: 1, defaultValue: 50, menu: [], isReadOnly: false),
            DeviceControl(id: .continuousAutoFocus, name: "Focus, Automatic Continuous", kind: .boolean, minimum: 0, maximum: 1, step: 1, defaultValue: 1, menu: [], isReadOnly: false),
            DeviceControl(id: .focusPosition, name: "Focus (absolute)", kind: .integer, minimum: 0, maximum: 250, step: 5, defaultValue: 0, menu: [], isReadOnly: false),
            DeviceControl(id: .exposureMode, name: "Auto Exposure", kind: .menu, minimum: 1, maximum: 3, step: 1, defaultValue: 3,
                          menu: [.init(value: 1, label: "Manual Mode"), .init(value: 3, label: "Aperture Priority Mode")], isReadOnly: false),
            DeviceControl(id: .exposureTime, name: "Exposure Time, Absolute", kind: .integer, minimum: 3, maximum: 2047, step: 1, defaultValue: 250, menu: [], isReadOnly: false),
            DeviceControl(id: .autoWhiteBalance, name: "White Balance, Automatic", kind: .boolean, minimum: 0, maximum: 1, step: 1, defaultValue: 1, menu: [], isReadOnly: false),
            DeviceControl(id: .whiteBalanceTemperature, name: "White Balance Temperature", kind: .integer, minimum: 2800, maximum: 6500, step: 10, defaultValue: 4600, menu: [], isReadOnly: false),
            DeviceControl(id: .zoom, name: "Zoom, Absolute", kind: .integer, minimum: 100, maximum: 400, step: 1, defaultValue: 100, menu: [], isReadOnly: false),
            DeviceControl(id: .powerLineFrequency, name: "Power Line Frequency", kind: .menu, minimum: 0, maximum: 2, step: 1, defaultValue: 1,
                          menu: [.init(value: 0, label: "Disabled"), .init(value: 1, label: "50 Hz"), .init(value: 2, label: "60 Hz")], isReadOnly: false),
        ]
        if VirtualCamera.isBack(id) {
            controls.append(DeviceControl(id: .flashLEDMode, name: "LED Mode", kind: .menu, minimum: 0, maximum: 2, step: 1, defaultValue: 0,
                                          menu: [.init(value: 0, label: "Off"), .init(value: 1, label: "Flash"), .init(value: 2, label: "Torch")], isReadOnly: false))
        }
        return controls
    }

    /// The formats the test camera offers.
    static func formats() -> [(PixelFormat, Int, Int, [FrameInterval])] {
        var result: [(PixelFormat, Int, Int, [FrameInterval])] = []
        for format in [PixelFormat.yuyv, .nv12, .mjpeg] {
            for (w, h) in VirtualCamera.sizes where !(format == .mjpeg && w > 1920) {
                let rates = w <= 1280 ? [60, 30, 15] : [30, 15]
                result.append((format, w, h, rates.map { FrameInterval(framesPerSecond: $0) }))
            }
        }
        return result
    }

    func configure(_ request: StreamConfiguration) throws(CaptureError) -> StreamConfiguration {
        let offered = VirtualCameraBackend.formats()
        guard let match = offered.first(where: { $0.0 == request.pixelFormat && $0.1 == request.width && $0.2 == request.height }) else {
            throw .unsupported("\(request.pixelFormat) at \(request.width)×\(request.height) on \(name)")
        }
        let interval = match.3.min { abs($0.seconds - request.frameInterval.seconds) < abs($1.seconds - request.frameInterval.seconds) } ?? match.3[0]
        var set = request
        set.frameInterval = interval
        do {
            pattern = try TestPattern(width: set.width, height: set.height,
                                      squareColour: VirtualCamera.isBack(id) ? (230, 110, 30) : (40, 220, 250))
            canvas = try PixelBuffer(format: .bgra, width: set.width, height: set.height, rowAlignment: 64)
            frame = try PixelBuffer(format: set.pixelFormat, width: set.width, height: set.height, rowAlignment: 64,
                                    compressedCapacity: set.width * set.height * 2)
        } catch {
            throw .media(error)
        }
        configuration = set
        drawn = false
        return set
    }

    func start() throws(CaptureError) {
        let faults = VirtualCamera.faults(for: id)
        if faults.unplugged { throw .deviceDisconnected(device: name) }
        if faults.accessDenied { throw .accessDenied(device: name, group: "video") }
        if faults.busy { throw .deviceBusy(device: name) }
        var failOnce = false
        if faults.failingStarts > 0 {
            VirtualCamera.updateFaults(for: id) { $0.failingStarts = max(0, $0.failingStarts - 1) }
            failOnce = true
        }
        if faults.failStart || failOnce { throw .streamFailed(device: name, reason: "VIDIOC_STREAMON: input/output error") }
        guard configuration != nil else { throw .invalidConfiguration("the test camera was started before being configured") }
        guard VirtualCamera.claim(id) else { throw .deviceBusy(device: name) }
        claimed = true
        startTime = SystemClock.monotonicNanoseconds()
        frameIndex = 0
        sequence = 0
    }

    func stop() {
        if claimed { VirtualCamera.release(id) }
        claimed = false
    }

    func nextFrame(timeout: Double, _ body: (RawFrame) throws(CaptureError) -> Void) throws(CaptureError) -> FrameWait {
        guard claimed, let configuration, let pattern, let canvas, let frame else {
            throw .invalidConfiguration("the test camera is not streaming")
        }
        if VirtualCamera.faults(for: id).silent {
            var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&pause, nil)
            return .timeout
        }
        // Frame n is due n intervals after the start, exactly (1/30 s is no whole number of
        // nanoseconds: rounding the interval would add up over frames).
        let numerator = Int64(configuration.frameInterval.numerator), denominator = Int64(max(1, configuration.frameInterval.denominator))
        func dueTime(_ index: Int64) -> Int64 { startTime + index * 1_000_000_000 * numerator / denominator }
        var due = dueTime(Int64(frameIndex))
        let now = SystemClock.monotonicNanoseconds()
        if due > now {
            let deadline = now + min(due - now, Int64(timeout * 1e9))
            var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
            if due - now > Int64(timeout * 1e9) { return .timeout }
        } else if numerator > 0 {
            // Called so late that more frames are due than a driver has buffers for: as a real
            // camera does, it loses the older ones (a gap in sequence numbers) and goes on with
            // the newest, instead of handing over a burst of stale frames.
            let newest = (now - startTime) * denominator / (1_000_000_000 * numerator)
            if newest - Int64(frameIndex) >= Int64(VirtualCameraBackend.waitingFrames) {
                sequence &+= UInt32(truncatingIfNeeded: newest - Int64(frameIndex))
                frameIndex = UInt32(truncatingIfNeeded: newest)
                due = dueTime(newest)
            }
        }
        let faults = VirtualCamera.faults(for: id)
        if faults.unplugged { throw .deviceDisconnected(device: name) }
        if faults.fatalError {
            VirtualCamera.updateFaults(for: id) { $0.fatalError = false }
            throw .streamFailed(device: name, reason: "fatal streaming error")
        }
        frameIndex += 1
        sequence += 1
        if faults.dropEvery > 0, sequence % UInt32(faults.dropEvery) == 0 {
            sequence += 1  // the driver skipped a frame: a gap in sequence numbers
        }
        if faults.corruptEvery > 0, sequence % UInt32(faults.corruptEvery) == 0 {
            return .corrupt
        }
        // The moment of "exposure": when the frame was due, as a sensor's timestamp is, however
        // late this thread got to run (a busy machine delays the drawing, not the frame's time).
        let captured = due
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        var local = tm()
        var seconds = wall.tv_sec
        localtime_r(&seconds, &local)
        let wallClock = (Int(local.tm_hour) * 3600 + Int(local.tm_min) * 60 + Int(local.tm_sec)) * 1000 + wall.tv_nsec / 1_000_000
        // After the first frame, only the label and the square's band change: they alone are
        // redrawn and converted (the output buffer keeps the rest from the frame before).
        let rows = pattern.draw(frame: sequence, wallClockMilliseconds: wallClock, into: canvas, full: !drawn)
        do {
            if configuration.pixelFormat == .mjpeg {
                let size = try encoder.encode(canvas, quality: 85, subsampling: .s422) { bytes throws(MediaError) in
                    frame.baseAddress.copyMemory(from: bytes.baseAddress!, byteCount: min(bytes.count, frame.capacity))
                    return bytes.count
                }
                frame.payloadSize = size
            } else if drawn {
                for range in rows { try converter.convert(canvas, into: frame, rows: range) }
            } else {
                try converter.convert(canvas, into: frame)
            }
            drawn = true
        } catch {
            throw .media(error)
        }
        try body(RawFrame(buffer: frame, timestampNanoseconds: captured, sequence: sequence))
        return .delivered
    }

    func value(of control: ControlID) throws(CaptureError) -> Int64 {
        guard let value = controlValues[control] else { throw .unsupported("control \(control) on \(name)") }
        return value
    }

    func setValue(_ value: Int64, of control: ControlID) throws(CaptureError) {
        guard let description = VirtualCameraBackend.controls(forID: id).first(where: { $0.id == control }) else {
            throw .unsupported("control \(control) on \(name)")
        }
        guard (description.minimum...description.maximum).contains(value) else {
            throw .unsupported("\(control) = \(value) (range \(description.minimum)…\(description.maximum))")
        }
        controlValues[control] = value
    }
}
