import CV4L2
import Media

/// A V4L2 camera as a `CameraBackend`: S_FMT/S_PARM, mmap buffers, poll + DQBUF, through the
/// single-planar API or, for nodes that only speak it (SoC cameras), the multi-planar one.
///
/// Frames are lent to the callback straight from the driver's mmap'd buffer (no copy) and the
/// buffer goes back to the driver as soon as the callback returns. The wrappers around the
/// mapped buffers are made once per stream start, so streaming allocates nothing per frame.
/// Formats whose planes lie in separate driver buffers (NV12M, YUV420M…) are wrapped the same
/// way: `V4L2Device` maps a buffer's planes side by side, and the wrapper knows where each
/// starts. A driver that moves the data inside a plane (`data_offset`, as vivid does in
/// multi-planar mode) gets that buffer's wrapper remade once, when the offset first changes.
final class V4L2Backend: CameraBackend {
    /// How many buffers to ask the driver for: enough to ride out a slow callback.
    static let bufferCount = 4

    let device: V4L2Device
    let name: String
    private var configuration: StreamConfiguration?
    private var pixFormat: V4L2PixFormat?
    private var frames: [PixelBuffer] = []
    /// The `data_offset`s each of `frames` was made for.
    private var frameDataOffsets: [SIMD4<UInt32>] = []
    private var streaming = false
    private let controlInfo: [UInt32: V4L2ControlInfo]
    /// On a multi-planar node offering both, asks for a format's separate-plane variant (NV12M for
    /// NV12) first; the contiguous one is the default. For tests of the separate-plane path.
    var prefersSeparatePlanes = false

    /// Opens the node at `path`; throws `.unsupported` when it is no video capture node. `controls`
    /// are the node's controls as its description already read them (nil: enumerated here).
    convenience init(path: String, name: String, controls: [V4L2ControlInfo]? = nil) throws(CaptureError) {
        try self.init(device: V4L2Device(path: path), name: name, controls: controls)
    }

    /// Streams from the open node `device` (the fuzz target's has a stand-in driver).
    init(device: V4L2Device, name: String, controls: [V4L2ControlInfo]? = nil) throws(CaptureError) {
        self.device = device
        self.name = name
        let path = device.path
        // QUERYCAP chooses the single- or multi-planar API for everything that follows.
        guard try device.capabilities().isStreamingCapture else { throw .unsupported("\(path) is not a video capture device") }
        controlInfo = Dictionary((controls ?? device.controls()).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    deinit { stop() }

    func configure(_ request: StreamConfiguration) throws(CaptureError) -> StreamConfiguration {
        // A multi-planar node may offer a layout only with its planes in separate buffers (NV12M):
        // asked for NV12, it then sets something else, and the separate-plane code is asked next.
        let separate = device.isMultiplanar ? V4L2PlanarCodes.separateCode(of: request.pixelFormat) : nil
        let codes = [request.pixelFormat.fourCC] + (separate.map { [$0] } ?? [])
        var set = try device.setFormat(fourCC: prefersSeparatePlanes ? codes.last! : codes[0], width: request.width, height: request.height)
        if codes.count == 2, V4L2PlanarCodes.pixelFormat(set.fourCC) != request.pixelFormat || (prefersSeparatePlanes && set.fourCC != codes[1]) {
            set = try device.setFormat(fourCC: prefersSeparatePlanes ? codes[0] : codes[1], width: request.width, height: request.height)
        }
        guard let format = V4L2PlanarCodes.pixelFormat(set.fourCC), format == request.pixelFormat,
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
            do throws(CaptureError) {
                made.append(try wrap(buffer: index, configuration: configuration, pixFormat: pixFormat, dataOffsets: .zero))
            } catch {
                device.unmapBuffers()
                throw error
            }
            try device.queueBuffer(index)
        }
        frames = made
        frameDataOffsets = Array(repeating: .zero, count: count)
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
        frameDataOffsets.removeAll()
        device.unmapBuffers()
    }

    /// A wrapper around mapped buffer `index` as a frame of `configuration`, its planes where
    /// `pixFormat` and the driver's `dataOffsets` put them (no copy).
    private func wrap(buffer index: Int, configuration: StreamConfiguration, pixFormat: V4L2PixFormat,
                      dataOffsets: SIMD4<UInt32>) throws(CaptureError) -> PixelBuffer {
        let format = configuration.pixelFormat
        let (width, height) = (configuration.width, configuration.height)
        let memory = UnsafeMutableRawBufferPointer(mutating: device.memory(ofBuffer: index))
        let memoryPlanes = device.planes(ofBuffer: index)
        let buffer: PixelBuffer
        if memoryPlanes.count == 1 {
            // One memory plane: the frame's planes follow one another in it, from its data offset.
            let start = min(Int(dataOffsets[0]), memoryPlanes[0].length)
            let strides: [Int]? = switch format {
            case .mjpeg: nil
            case .nv12, .nv21: [pixFormat.bytesPerLine, pixFormat.bytesPerLine]
            case .i420, .yv12, .i422: [pixFormat.bytesPerLine, pixFormat.bytesPerLine / 2, pixFormat.bytesPerLine / 2]
            case .i444: [pixFormat.bytesPerLine, pixFormat.bytesPerLine, pixFormat.bytesPerLine]
            default: [pixFormat.bytesPerLine]
            }
            let region = UnsafeMutableRawBufferPointer(rebasing: memory[start..<memoryPlanes[0].length])
            do throws(MediaError) {
                buffer = try PixelBuffer(wrapping: region, format: format, width: width, height: height, bytesPerRow: strides) { _ in }
            } catch {
                throw .media(error)
            }
        } else {
            // One memory plane per frame plane (NV12M, YUV420M…), each mapped on its own pages.
            guard memoryPlanes.count == format.planeCount, pixFormat.memoryPlanes.count == format.planeCount, memoryPlanes.count <= 4 else {
                throw .unsupported("\(format) in \(memoryPlanes.count) separate buffers on \(name)")
            }
            let geometry = format.planeGeometry(width: width, height: height)
            var offsets: [Int] = []
            for plane in 0..<memoryPlanes.count {
                let offset = Int(dataOffsets[plane]), stride = pixFormat.memoryPlanes[plane].bytesPerLine
                // Each plane must fit its own buffer, not run on into the next one's pages.
                let needed = offset + stride * (geometry[plane].rows - 1) + geometry[plane].rowBytes
                guard needed <= memoryPlanes[plane].length else { throw .media(.bufferTooShort(needed: needed, actual: memoryPlanes[plane].length)) }
                offsets.append(memoryPlanes[plane].offset + offset)
            }
            do throws(MediaError) {
                buffer = try PixelBuffer(wrapping: memory, format: format, width: width, height: height, planeOffsets: offsets,
                                         bytesPerRow: pixFormat.memoryPlanes.map(\.bytesPerLine)) { _ in }
            } catch {
                throw .media(error)
            }
        }
        // V4L2 YUV defaults to limited range unless the driver says full.
        buffer.yuvRange = pixFormat.quantization == UInt32(V4L2_QUANTIZATION_FULL_RANGE.rawValue) ? .full : .video
        return buffer
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
            if dequeued.hasError { return .corrupt }
            if dequeued.dataOffsets != frameDataOffsets[dequeued.index], let configuration, let pixFormat {
                // The driver put the data elsewhere in the planes than last time: a new wrapper, once.
                frames[dequeued.index] = try wrap(buffer: dequeued.index, configuration: configuration, pixFormat: pixFormat,
                                                  dataOffsets: dequeued.dataOffsets)
                frameDataOffsets[dequeued.index] = dequeued.dataOffsets
            }
            let buffer = frames[dequeued.index]
            if buffer.format == .mjpeg {
                buffer.payloadSize = dequeued.bytesUsed - Int(dequeued.dataOffsets[0])  // clamped to the mapping
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
