import CV4L2
import Media

/// A V4L2 camera as a `CameraBackend`: S_FMT/S_PARM, mmap buffers, poll + DQBUF.
///
/// Frames are lent to the callback straight from the driver's mmap'd buffer (no copy) and the
/// buffer goes back to the driver as soon as the callback returns. The wrappers around the
/// mapped buffers are made once per stream start, so streaming allocates nothing per frame.
final class V4L2Backend: CameraBackend {
    /// How many buffers to ask the driver for: enough to ride out a slow callback.
    static let bufferCount = 4

    let device: V4L2Device
    let name: String
    private var configuration: StreamConfiguration?
    private var pixFormat: V4L2PixFormat?
    private var frames: [PixelBuffer] = []
    private var streaming = false
    private let controlInfo: [UInt32: V4L2ControlInfo]

    /// Opens the node at `path`.
    init(path: String, name: String) throws(CaptureError) {
        device = try V4L2Device(path: path)
        self.name = name
        controlInfo = Dictionary(device.controls().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    deinit { stop() }

    func configure(_ request: StreamConfiguration) throws(CaptureError) -> StreamConfiguration {
        let set = try device.setFormat(fourCC: request.pixelFormat.fourCC, width: request.width, height: request.height)
        guard let format = PixelFormat(fourCC: set.fourCC), format == request.pixelFormat,
              set.width == request.width, set.height == request.height else {
            throw .unsupported("\(request.pixelFormat) at \(request.width)×\(request.height) (the driver offered \(set.width)×\(set.height))")
        }
        // The rate the driver runs at, which may not be the one asked for (it refused, or took
        // the nearest it has): that is what the session reports. Only a driver that tells no
        // rate at all leaves the request standing.
        var result = request
        result.frameInterval = device.setFrameInterval(request.frameInterval) ?? request.frameInterval
        pixFormat = set
        configuration = result
        return result
    }

    func start() throws(CaptureError) {
        guard let configuration, let pixFormat else { throw .invalidConfiguration("\(name) was started before being configured") }
        stop()
        let count = try device.allocateBuffers(count: V4L2Backend.bufferCount)
        var made: [PixelBuffer] = []
        for index in 0..<count {
            let memory = device.memory(ofBuffer: index)
            let strides: [Int]? = switch configuration.pixelFormat {
            case .mjpeg: nil
            case .nv12, .nv21: [pixFormat.bytesPerLine, pixFormat.bytesPerLine]
            case .i420, .yv12, .i422: [pixFormat.bytesPerLine, pixFormat.bytesPerLine / 2, pixFormat.bytesPerLine / 2]
            case .i444: [pixFormat.bytesPerLine, pixFormat.bytesPerLine, pixFormat.bytesPerLine]
            default: [pixFormat.bytesPerLine]
            }
            do {
                let buffer = try PixelBuffer(wrapping: UnsafeMutableRawBufferPointer(mutating: memory), format: configuration.pixelFormat,
                                             width: configuration.width, height: configuration.height, bytesPerRow: strides) { _ in }
                // V4L2 YUV defaults to limited range unless the driver says full.
                buffer.yuvRange = pixFormat.quantization == UInt32(V4L2_QUANTIZATION_FULL_RANGE.rawValue) ? .full : .video
                made.append(buffer)
            } catch {
                device.unmapBuffers()
                throw .media(error)
            }
            try device.queueBuffer(index)
        }
        frames = made
        // Drivers that can change format on their own (HDMI grabbers, some phones) say so with an
        // event; most webcams do not support the subscription, which is fine.
        try? device.subscribe(event: UInt32(V4L2_EVENT_SOURCE_CHANGE))
        try device.streamOn()
        streaming = true
    }

    func stop() {
        if streaming { device.streamOff() }
        streaming = false
        frames.removeAll()
        device.unmapBuffers()
    }

    func nextFrame(timeout: Double, _ body: (RawFrame) throws(CaptureError) -> Void) throws(CaptureError) -> FrameWait {
        guard streaming else { throw .invalidConfiguration("\(name) is not streaming") }
        switch device.poll(milliseconds: Int32(max(1, timeout * 1000))) {
        case .timeout:
            return .timeout
        case .hangup:
            throw .deviceDisconnected(device: name)
        case .error:
            // POLLERR: DQBUF tells why (ENODEV: unplugged; EIO: fatal streaming error).
            _ = try device.dequeueBuffer()
            throw .streamFailed(device: name, reason: "the driver reported an error")
        case .event:
            // Drain events (a pending one keeps poll() returning at once).
            while let event = device.dequeueEvent() {
                if event == .sourceChanged { throw .streamFailed(device: name, reason: "the camera changed its picture format") }
            }
            return .timeout
        case .frameReady:
            break
        }
        guard let dequeued = try device.dequeueBuffer() else { return .timeout }
        // What the kernel says is input: a buffer index we never mapped is the driver's fault,
        // reported as such (and never used to index, nor given back).
        guard frames.indices.contains(dequeued.index) else {
            throw .streamFailed(device: name, reason: "the driver returned buffer \(dequeued.index) of \(frames.count)")
        }
        let handled = Result { () throws(CaptureError) -> FrameWait in
            let buffer = frames[dequeued.index]
            if dequeued.hasError { return .corrupt }
            if buffer.format == .mjpeg {
                buffer.payloadSize = dequeued.bytesUsed  // clamped to the mapping
                guard JPEGBytes.looksComplete(buffer.payload) else { return .corrupt }
            }
            try body(RawFrame(buffer: buffer, timestampNanoseconds: dequeued.timestampNanoseconds, sequence: dequeued.sequence))
            return .delivered
        }
        try giveBack(dequeued.index)
        return try handled.get()
    }

    /// Queues buffer `index` again. A buffer the driver does not take back is lost to the stream,
    /// which starves after a few such losses and then only times out: so it ends the stream at
    /// once, with the reason (an unplug stays an unplug).
    private func giveBack(_ index: Int) throws(CaptureError) {
        do {
            try device.queueBuffer(index)
        } catch {
            if case .deviceDisconnected = error { throw error }
            throw .streamFailed(device: name, reason: "the driver did not take buffer \(index) back (\(error))")
        }
    }

    func value(of control: ControlID) throws(CaptureError) -> Int64 {
        guard let info = controlInfo[control.rawValue] else { throw .unsupported("control \(control) on \(name)") }
        return try device.value(of: control.rawValue, is64Bit: info.is64Bit)
    }

    func setValue(_ value: Int64, of control: ControlID) throws(CaptureError) {
        guard let info = controlInfo[control.rawValue] else { throw .unsupported("control \(control) on \(name)") }
        guard !info.isReadOnly else { throw .unsupported("\(control) is read-only on \(name)") }
        guard (info.minimum...info.maximum).contains(value) else {
            throw .unsupported("\(control) = \(value) on \(name) (range \(info.minimum)…\(info.maximum))")
        }
        try device.setValue(value, of: control.rawValue, is64Bit: info.is64Bit)
    }
}
