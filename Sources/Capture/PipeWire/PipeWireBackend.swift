import CPipeWire
import Glibc
import Media
import Synchronization

/// A PipeWire camera node as a `CameraBackend`: a capture stream on the process's PipeWire
/// connection (`PipeWireCameras`). Frames are lent to the session's frame callback on PipeWire's
/// data thread as they arrive, while the session's streaming thread sleeps in `nextFrame` (which
/// lends every frame of its wait): a frame wakes PipeWire's thread only, as a V4L2 frame wakes
/// only the streaming thread.
///
/// The format is always asked for exactly (layout, size and rate: without one PipeWire picks the
/// node's first format, 320×180 at 1 fps on vivid). Frames are lent straight from the stream's
/// mapped buffers (memfd or plain memory); the wrappers around them are made once per buffer and
/// remade only when PipeWire moves a buffer's data (new buffers after a renegotiation), so
/// streaming allocates nothing per frame. A camera WirePlumber made from a V4L2 node keeps that
/// node's controls, set on the node directly (V4L2 allows it while PipeWire streams from it).
final class PipeWireBackend: CameraBackend {
    /// How many frame wrappers to keep (PipeWire's buffer counts stay far below).
    static let maxBuffers = 32

    /// The node's `node.name`.
    let nodeName: String
    /// The camera's name, for errors.
    let name: String
    /// The process's PipeWire connection, kept alive while the camera is open.
    private let connection: PipeWireCameras.MonitorBox
    /// The node's serial when the camera was opened (a replugged node has a new one: a new backend).
    private let serial: UInt64
    /// What `configure` was asked for, asked of PipeWire at `start`.
    private var configuration: StreamConfiguration?
    /// The shim's stream while streaming.
    private var stream: OpaquePointer?
    /// One wrapper per buffer index, with the address, capacity and stride it was made for.
    private var frames: [(buffer: PixelBuffer, address: UnsafeMutableRawPointer, capacity: Int, stride: Int)?] = []
    /// The frame counter for producers that attach no header.
    private var counter: UInt32 = 0
    /// The V4L2 node behind the camera, for its controls.
    private let controlNode: V4L2Device?
    /// That node's path (nil for a camera without one): when it goes, the camera was unplugged,
    /// whether or not PipeWire has noticed yet.
    private let v4l2Path: String?
    /// That node's controls by ID, as its description read them.
    private let controlInfo: [UInt32: V4L2ControlInfo]
    /// Why a wait failed, read from the shim (allocated once).
    private var message = [CChar](repeating: 0, count: 256)
    /// The callback of the `nextFrame` under way (nil between calls), what it was lent, and what it threw.
    private var receiver: ((RawFrame) throws(CaptureError) -> Void)?
    private var handled = (delivered: 0, corrupt: 0)
    private var failure: CaptureError?
    /// Ends a `nextFrame` wait from another thread (`interrupt`).
    private let wake: WakeSignal
    /// Where the last frame's bytes lived (a `Memory`'s raw value), read from any thread.
    private let lastMemory = Atomic<UInt32>(Memory.process.rawValue)
    /// Ask PipeWire for DMA-BUF buffers only (tests: the DMA-BUF path on a producer that offers
    /// both); normally shared memory comes first and DMA-BUF second.
    static let dmaBufOnly = Atomic<Bool>(false)

    /// Finds the node called `nodeName` now (a replugged camera has a new serial, the same name);
    /// throws `.deviceDisconnected` when it is not in the graph. `controls` are the V4L2 node's
    /// controls as the description read them, for a camera made from a V4L2 node (`v4l2Path`).
    init(nodeName: String, name: String, v4l2Path: String?, controls: [V4L2ControlInfo]?) throws(CaptureError) {
        connection = try PipeWireCameras.connected()
        guard let camera = PipeWireCameras.cameras(of: connection).first(where: { $0.name == nodeName }) else {
            throw .deviceDisconnected(device: name)
        }
        self.nodeName = nodeName
        self.name = name
        wake = WakeSignal()
        self.v4l2Path = v4l2Path
        serial = camera.serial
        if let v4l2Path, let controls, !controls.isEmpty, let node = try? V4L2Device(path: v4l2Path) {
            controlNode = node
            controlInfo = Dictionary(controls.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        } else {
            controlNode = nil
            controlInfo = [:]
        }
    }

    deinit { stop() }

    func configure(_ request: StreamConfiguration) throws(CaptureError) -> StreamConfiguration {
        // PipeWire agrees a format only when the stream connects: `start` asks for exactly this one
        // and fails when the node settles on anything else.
        guard request.frameInterval.numerator > 0, request.frameInterval.denominator > 0 else {
            throw .unsupported("frame interval \(request.frameInterval) on \(name)")
        }
        configuration = request
        return request
    }

    func start() throws(CaptureError) {
        guard let configuration else { throw .invalidConfiguration("\(name) was started before being configured") }
        stop()
        var code: Int32 = 0
        let interval = configuration.frameInterval
        let made = message.withUnsafeMutableBufferPointer { text in
            // A rate is frames per second: the interval's denominator over its numerator.
            pinhole_pw_stream_new(connection.pointer, serial, configuration.pixelFormat.fourCC, UInt32(configuration.width),
                                  UInt32(configuration.height), UInt32(interval.denominator), UInt32(interval.numerator),
                                  PipeWireBackend.dmaBufOnly.load(ordering: .relaxed), Int32(PipeWireCameras.streamTimeout * 1000), &code, text.baseAddress!, text.count)
        }
        guard let made else {
            throw PipeWireErrno.error("starting \(configuration)", camera: name, code: code, message: message.nulTerminatedString)
        }
        stream = made
        frames = Array(repeating: nil, count: PipeWireBackend.maxBuffers)
        counter = 0
    }

    func stop() {
        // The wrappers go before the buffers they point into.
        frames.removeAll()
        if let stream { pinhole_pw_stream_free(stream) }
        stream = nil
    }

    func nextFrame(timeout: Double, _ body: (RawFrame) throws(CaptureError) -> Void) throws(CaptureError) -> FrameWait {
        guard let stream, configuration != nil else { throw .invalidConfiguration("\(name) is not streaming") }
        handled = (0, 0)
        failure = nil
        // Every frame of the wait is lent on PipeWire's data thread as it comes (`lend`), while
        // this thread sleeps: no thread wakes up per frame but the one PipeWire wakes anyway.
        let end = withoutActuallyEscaping(body) { body -> pinhole_pw_wait in
            receiver = body
            defer { receiver = nil }
            return pinhole_pw_stream_deliver(stream, Int32(max(1, timeout * 1000)), wake.descriptor, { context, frame in
                Unmanaged<PipeWireBackend>.fromOpaque(context!).takeUnretainedValue().lend(frame.pointee)
            }, Unmanaged.passUnretained(self).toOpaque())
        }
        if let failure { throw failure }
        switch end {
        case PINHOLE_PW_GONE:
            throw .deviceDisconnected(device: name)
        case PINHOLE_PW_FAILED:
            message.withUnsafeMutableBufferPointer { pinhole_pw_stream_error(stream, $0.baseAddress!, $0.count) }
            throw .streamFailed(device: name, reason: "PipeWire: \(message.nulTerminatedString)")
        default:
            break
        }
        if handled == (0, 0) {
            if let v4l2Path, access(v4l2Path, F_OK) != 0 { throw .deviceDisconnected(device: name) }
            return .timeout
        }
        return .handled(delivered: handled.delivered, corrupt: handled.corrupt)
    }

    /// Where a frame's bytes live.
    enum Memory: UInt32 {
        /// Memory of the producer's own (a producer in this process).
        case process = 0
        /// A shared-memory descriptor: a memfd, or a V4L2 buffer spa's V4L2 source exported as one.
        case sharedMemory = 1
        /// A DMA-BUF, which the shim maps and reads between DMA_BUF_IOCTL_SYNC calls.
        case dmaBuf = 2
    }

    /// Where the last frame lived.
    var memory: Memory? { Memory(rawValue: lastMemory.load(ordering: .relaxed)) }

    func interrupt() {
        wake.signal()
    }

    /// Lends one frame to the waiting `nextFrame`'s callback (on PipeWire's data thread, while
    /// `nextFrame` sleeps in the shim); false stops the delivery, with the error kept for `nextFrame`.
    private func lend(_ frame: pinhole_pw_frame) -> Bool {
        guard let receiver, let configuration else { return false }
        lastMemory.store(frame.memory, ordering: .relaxed)
        guard !frame.corrupt, let data = frame.data, frame.size > 0 else {
            handled.corrupt += 1
            return true
        }
        do throws(CaptureError) {
            let index = Int(frame.buffer_index)
            guard frames.indices.contains(index) else {
                throw .streamFailed(device: name, reason: "PipeWire lent buffer \(index), beyond the \(frames.count) Pinhole keeps")
            }
            let address = UnsafeMutableRawPointer(data), capacity = Int(frame.capacity), stride = Int(frame.stride)
            let buffer: PixelBuffer
            if let kept = frames[index], kept.address == address, kept.capacity == capacity, kept.stride == stride {
                buffer = kept.buffer
            } else {
                // A buffer not seen yet, or moved: its wrapper is made now, once.
                buffer = try wrap(UnsafeMutableRawBufferPointer(start: address, count: capacity), stride: stride, configuration: configuration)
                frames[index] = (buffer, address, capacity, stride)
            }
            if buffer.format == .mjpeg {
                buffer.payloadSize = Int(frame.size)
                guard JPEGBytes.looksComplete(buffer.payload) else {
                    handled.corrupt += 1
                    return true
                }
            }
            counter &+= 1
            let now = SystemClock.monotonicNanoseconds()
            // The producer's time stamp when it is on the monotonic clock (spa's V4L2 source passes the
            // driver's); a producer on another clock (GStreamer's running time) gets the arrival time.
            let stamped = frame.has_header && abs(frame.pts - now) < 10_000_000_000
            try receiver(RawFrame(buffer: buffer, timestampNanoseconds: stamped ? frame.pts : now,
                                  sequence: frame.has_header ? UInt32(truncatingIfNeeded: frame.sequence) : counter))
            handled.delivered += 1
            return true
        } catch {
            failure = error
            return false
        }
    }

    /// A wrapper around a mapped buffer as a frame of `configuration`, its planes one after another
    /// from the start with rows `stride` bytes apart (0: as narrow as the format allows).
    private func wrap(_ memory: UnsafeMutableRawBufferPointer, stride: Int, configuration: StreamConfiguration) throws(CaptureError) -> PixelBuffer {
        let format = configuration.pixelFormat
        let strides: [Int]? = switch format {
        case _ where stride <= 0, .mjpeg: nil
        case .nv12, .nv21: [stride, stride]
        case .i420, .yv12, .i422: [stride, stride / 2, stride / 2]
        case .i444: [stride, stride, stride]
        default: [stride]
        }
        do throws(MediaError) {
            let buffer = try PixelBuffer(wrapping: memory, format: format, width: configuration.width, height: configuration.height,
                                         bytesPerRow: strides) { _ in }
            buffer.yuvRange = .video
            return buffer
        } catch {
            throw .media(error)
        }
    }

    func value(of control: ControlID) throws(CaptureError) -> Int64 {
        guard let controlNode, let info = controlInfo[control.rawValue] else { throw .unsupported("control \(control) on \(name)") }
        return try controlNode.value(of: control.rawValue, is64Bit: info.is64Bit)
    }

    func setValue(_ value: Int64, of control: ControlID) throws(CaptureError) {
        guard let controlNode, let info = controlInfo[control.rawValue] else { throw .unsupported("control \(control) on \(name)") }
        guard !info.isReadOnly else { throw .unsupported("\(control) is read-only on \(name)") }
        guard (info.minimum...info.maximum).contains(value) else {
            throw .unsupported("\(control) = \(value) on \(name) (range \(info.minimum)…\(info.maximum))")
        }
        try controlNode.setValue(value, of: control.rawValue, is64Bit: info.is64Bit)
    }
}
