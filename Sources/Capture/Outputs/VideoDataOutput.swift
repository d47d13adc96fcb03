import Dispatch
import Media
import Synchronization

/// Receives frames from a `VideoDataOutput` on the queue it was registered with.
public protocol VideoDataOutputSampleBufferDelegate: AnyObject, Sendable {
    /// A new frame.
    func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection)
    /// A frame was dropped because the previous one was still being processed.
    func captureOutput(_ output: VideoDataOutput, didDropFrameFrom connection: CaptureConnection)
}

extension VideoDataOutputSampleBufferDelegate {
    /// Dropped frames are counted by the output; implementing this is optional.
    public func captureOutput(_ output: VideoDataOutput, didDropFrameFrom connection: CaptureConnection) {}
}

/// Live frames for code to process (previews, filters, QR codes): each camera frame is
/// converted once into a pooled buffer of the asked-for format and handed on by reference.
///
/// Delivery never stalls the camera: a consumer that is still busy with the previous frame
/// makes the new one drop (counted in `droppedFrameCount`) when `alwaysDiscardsLateVideoFrames`
/// is true (the default); otherwise frames queue up to the pool's size and then drop.
///
/// A consumer that uses frames at its own pace, slower than the camera's at times (a preview
/// whose screen paints less often than the camera sends), can take them on request instead
/// (`deliversOnRequest`, `requestFrame()`): a frame nobody asked for is let go before any
/// conversion, and costs only a count (`unrequestedFrameCount`).
public final class VideoDataOutput: FrameConsumer {
    /// The pixel format and largest size of delivered frames.
    public struct Settings: Sendable, Equatable {
        /// The format; nil keeps the camera's own (MJPEG frames then arrive as compressed payloads).
        public var pixelFormat: PixelFormat?
        /// The largest frame to deliver, after rotation: larger frames are scaled down (bilinear)
        /// to fit inside, aspect ratio kept, never up; nil delivers the camera's size. A preview
        /// asks for its size on screen, so the UI draws each frame 1:1 instead of scaling it on
        /// its own thread. Applies to BGRA, RGBA, RGB24, BGR24, I420 and GREY.
        public var maximumDimensions: CaptureDevice.Dimensions?
        /// Settings with `pixelFormat` (BGRA by default, as displays want), scaled to fit `maximumDimensions`.
        public init(pixelFormat: PixelFormat? = .bgra, maximumDimensions: CaptureDevice.Dimensions? = nil) {
            self.pixelFormat = pixelFormat
            self.maximumDimensions = maximumDimensions
        }

        /// The size a `width`×`height` frame is delivered at (already rotated).
        func deliveredSize(width: Int, height: Int) -> (width: Int, height: Int) {
            guard let limit = maximumDimensions, limit.width > 0, limit.height > 0,
                  width > limit.width || height > limit.height else { return (width, height) }
            let scale = min(Double(limit.width) / Double(width), Double(limit.height) / Double(height))
            return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
        }
    }

    private struct State {
        var settings = Settings()
        var discardsLate = true
        var delegate: (any VideoDataOutputSampleBufferDelegate)?
        var queue: DispatchQueue?
        var continuation: AsyncStream<SampleBuffer>.Continuation?
        /// Counts `sampleBuffers()` calls: which sequence `continuation` belongs to.
        var generation = 0
        var pool: PixelBufferPool?
        /// One reused intermediate buffer per step before the last (convert, scale, mirror).
        var scratch: [PixelBuffer?] = []
        var delivered = 0
        var dropped = 0
        /// Frames let go unconverted while delivering on request and none was asked for.
        var unrequested = 0
        /// Whether frames are converted only on request.
        var onRequest = false
    }
    private let state = Lock(State())
    private let inFlight = Atomic<Int>(0)
    /// A frame was asked for and not yet delivered (while delivering on request). Requests do
    /// not add up: a consumer asks for the next frame, not for a number of them.
    private let requested = Atomic<Bool>(false)
    private let converter = PixelConverter()
    /// The connection to the camera (front cameras mirrored by default, as a preview should be).
    public let connection = CaptureConnection(mirrorsFrontCameraByDefault: true)

    /// The buffers a pool may hold: frames in flight plus one being filled.
    static let poolSize = 4

    /// Makes an output delivering BGRA frames.
    public init() {}

    /// The format of delivered frames.
    public var videoSettings: Settings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue; $0.pool = nil } }
    }

    /// Drop a frame when the consumer is still busy (true), or queue a few (false).
    public var alwaysDiscardsLateVideoFrames: Bool {
        get { state.withLock { $0.discardsLate } }
        set { state.withLock { $0.discardsLate = newValue } }
    }

    /// Frames delivered so far.
    public var deliveredFrameCount: Int { state.withLock { $0.delivered } }

    /// Frames dropped because a consumer was late or every pooled buffer was held.
    public var droppedFrameCount: Int { state.withLock { $0.dropped } }

    /// Whether a frame is converted and delivered only after `requestFrame()` (false, the
    /// default: every frame is). Turned on, one frame is asked for at once, and every stream's
    /// start asks for one, so the first frame of a new camera always comes.
    public var deliversOnRequest: Bool {
        get { state.withLock { $0.onRequest } }
        set {
            state.withLock { $0.onRequest = newValue }
            requested.store(true, ordering: .releasing)
        }
    }

    /// Asks for the next frame while delivering on request (`deliversOnRequest`): the next one
    /// from the camera is converted and delivered; the ones after it wait for another request.
    /// Asking again before it came asks for nothing more.
    public func requestFrame() {
        requested.store(true, ordering: .releasing)
    }

    /// Frames let go unconverted because none was asked for (while delivering on request).
    public var unrequestedFrameCount: Int { state.withLock { $0.unrequested } }

    /// Delivers frames to `delegate` on `queue` (nil removes it).
    public func setSampleBufferDelegate(_ delegate: (any VideoDataOutputSampleBufferDelegate)?, queue: DispatchQueue?) {
        state.withLock {
            $0.delegate = delegate
            $0.queue = delegate == nil ? nil : (queue ?? DispatchQueue(label: "pinhole.video-data-output"))
        }
    }

    /// The frames as an async sequence; a new call ends the previous sequence. Only the newest
    /// frame waits for a slow reader; older ones are dropped and counted.
    public func sampleBuffers() -> AsyncStream<SampleBuffer> {
        let (stream, continuation) = AsyncStream<SampleBuffer>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let previous = state.withLock { state -> AsyncStream<SampleBuffer>.Continuation? in
            let old = state.continuation
            state.continuation = continuation
            state.generation += 1
            return old
        }
        previous?.finish()
        return stream
    }

    func streamWillStart(_ configuration: StreamConfiguration, device: CaptureDevice) throws(CaptureError) {
        state.withLock {
            $0.pool = nil
            $0.scratch = []
        }
        // A new stream's first frame is always delivered: the consumer may still be waiting on
        // a frame of the last one that never came.
        requested.store(true, ordering: .releasing)
    }

    func streamDidStop() {}

    /// Ends the async sequence (when the output leaves its session).
    func finish() {
        state.withLock { $0.continuation }?.finish()
    }

    func consume(_ frame: RawFrame, context: FrameContext) {
        guard connection.isEnabled else { return }
        let mirrored = connection.isVideoMirrored(for: context.device)
        let rotation = (try? Rotation(degrees: Int(connection.videoRotationAngle))) ?? .none
        let (settings, discardsLate, hasConsumer, onRequest) = state.withLock {
            ($0.settings, $0.discardsLate, $0.delegate != nil || $0.continuation != nil, $0.onRequest)
        }
        let target = settings.pixelFormat ?? frame.buffer.format
        guard hasConsumer else { return }
        // On request: the request is taken for this frame, and given back if the frame does not
        // reach the consumer after all (dropped below), so a consumer never waits forever.
        if onRequest, !requested.exchange(false, ordering: .acquiringAndReleasing) {
            state.withLock { $0.unrequested += 1 }
            return
        }
        if discardsLate, inFlight.load(ordering: .acquiring) > 0, state.withLock({ $0.delegate != nil }) {
            drop(givingBackRequest: onRequest)
            return
        }
        // Scaling, mirroring and rotation run in a working format libyuv transforms (`workingFormat`);
        // other YUV targets (NV12, YUYV, …) go at the camera's size as they are.
        let transformable = VideoDataOutput.reachesTransforms(target)
        let doMirror = mirrored && transformable, doRotate = rotation != .none && transformable
        let turned = doRotate && rotation.swapsDimensions
        let (outW, outH) = transformable
            ? settings.deliveredSize(width: turned ? frame.buffer.height : frame.buffer.width, height: turned ? frame.buffer.width : frame.buffer.height)
            : (frame.buffer.width, frame.buffer.height)
        guard let output = buffer(format: target, width: outW, height: outH, compressed: frame.buffer.format == .mjpeg ? frame.buffer.capacity : nil) else {
            drop(givingBackRequest: onRequest)
            return
        }
        do {
            if target == .mjpeg {
                guard frame.buffer.payloadSize <= output.capacity else { drop(givingBackRequest: onRequest); return }
                output.baseAddress.copyMemory(from: frame.buffer.baseAddress, byteCount: frame.buffer.payloadSize)
                output.payloadSize = frame.buffer.payloadSize
            } else {
                // Convert, then scale while the picture is still unturned (fewer pixels for the
                // rest), mirror, rotate, and convert to the target when the work was done in
                // another format: each step but the last into its own reused buffer.
                let (unturnedW, unturnedH) = turned ? (outH, outW) : (outW, outH)
                let scales = unturnedW != frame.buffer.width || unturnedH != frame.buffer.height
                let work = VideoDataOutput.workingFormat(source: frame.buffer.format, target: target, scales: scales,
                                                         transforms: scales || doMirror || doRotate)
                let steps = 1 + (scales ? 1 : 0) + (doMirror ? 1 : 0) + (doRotate ? 1 : 0) + (work != target ? 1 : 0)
                var step = 0, source = frame.buffer
                func next(_ width: Int, _ height: Int, _ format: PixelFormat) throws(MediaError) -> PixelBuffer {
                    defer { step += 1 }
                    return step == steps - 1 ? output : try scratchBuffer(step, format: format, width: width, height: height)
                }
                var into = try next(frame.buffer.width, frame.buffer.height, work)
                try converter.convert(source, into: into)
                source = into
                if scales {
                    into = try next(unturnedW, unturnedH, work)
                    try PixelTransform.scale(source, into: into)
                    into.yuvRange = source.yuvRange
                    source = into
                }
                if doMirror {
                    into = try next(source.width, source.height, work)
                    try PixelTransform.mirror(source, into: into)
                    into.yuvRange = source.yuvRange
                    source = into
                }
                if doRotate {
                    into = try next(outW, outH, work)
                    try PixelTransform.rotate(source, by: rotation, into: into)
                    into.yuvRange = source.yuvRange
                    source = into
                }
                if work != target {
                    try converter.convert(source, into: next(outW, outH, target))
                }
            }
        } catch {
            drop(givingBackRequest: onRequest)
            return
        }
        let sample = SampleBuffer(imageBuffer: output, presentationTimestampNanoseconds: frame.timestampNanoseconds, sequenceNumber: frame.sequence,
                                  rotationAngle: doRotate ? rotation.rawValue : 0, isMirrored: doMirror)
        deliver(sample)
    }

    private func deliver(_ sample: SampleBuffer) {
        let (delegate, queue, continuation, generation) = state.withLock { ($0.delegate, $0.queue, $0.continuation, $0.generation) }
        var delivered = false
        if let continuation {
            switch continuation.yield(sample) {
            case .enqueued: delivered = true
            case .dropped: drop()  // the previous, unread frame made room for this one
                delivered = true
            case .terminated:
                // Nobody reads that sequence any more: stop converting frames for it, unless a
                // new `sampleBuffers()` call has replaced it meanwhile (clearing that one would
                // starve its reader for good).
                state.withLock { if $0.generation == generation { $0.continuation = nil } }
            @unknown default: break
            }
        }
        if let delegate, let queue {
            inFlight.add(1, ordering: .acquiringAndReleasing)
            queue.async { [self] in
                delegate.captureOutput(self, didOutput: sample, from: connection)
                inFlight.subtract(1, ordering: .acquiringAndReleasing)
            }
            delivered = true
        }
        if delivered { state.withLock { $0.delivered += 1 } }
    }

    /// Drops the frame being handled, and gives back the request it took, if it took one.
    private func drop(givingBackRequest: Bool) {
        if givingBackRequest { requested.store(true, ordering: .releasing) }
        drop()
    }

    private func drop() {
        let (delegate, queue) = state.withLock { state -> ((any VideoDataOutputSampleBufferDelegate)?, DispatchQueue?) in
            state.dropped += 1
            return (state.delegate, state.queue)
        }
        // One notification block at most waits on the delegate's queue, however long it stalls:
        // it tells the delegate of every drop counted since it was queued.
        if let delegate, let queue, pendingDropNotices.add(1, ordering: .acquiringAndReleasing).newValue == 1 {
            queue.async { [self] in
                let count = pendingDropNotices.exchange(0, ordering: .acquiringAndReleasing)
                for _ in 0..<count { delegate.captureOutput(self, didDropFrameFrom: connection) }
            }
        }
    }

    /// Drops not yet told to the delegate (see `drop()`).
    private let pendingDropNotices = Atomic<Int>(0)

    /// Whether frames delivered in `format` can be scaled, mirrored and rotated: the RGB formats
    /// and the ones libyuv transforms (I420, GREY); other YUV layouts go as the camera sends them.
    static func reachesTransforms(_ format: PixelFormat) -> Bool {
        switch format {
        case .bgra, .rgba, .rgb24, .bgr24, .i420, .grey: true
        default: false
        }
    }

    /// The format a frame is scaled, mirrored and rotated in before its conversion to `target`.
    /// A YUV camera's picture that shrinks is worked on in I420: converting it at full size costs
    /// 1.5 bytes a pixel instead of BGRA's 4, the scale moves fewer bytes, and the RGB conversion
    /// then runs at the small size (about half the work for a 1080p preview shown at 960×540).
    /// Otherwise the target itself where libyuv transforms it, else BGRA (for 24-bit RGB).
    static func workingFormat(source: PixelFormat, target: PixelFormat, scales: Bool, transforms: Bool) -> PixelFormat {
        guard transforms else { return target }
        switch target {
        case .grey, .i420: return target
        default: break
        }
        if scales && (source.isYUV || source == .mjpeg) { return .i420 }
        return target == .bgra || target == .rgba ? target : .bgra
    }

    /// A free pooled buffer of this shape (the pool is rebuilt when the shape changes).
    private func buffer(format: PixelFormat, width: Int, height: Int, compressed: Int?) -> PixelBuffer? {
        state.withLock { state -> PixelBuffer? in
            if let pool = state.pool, pool.format == format, pool.width == width, pool.height == height {
                return pool.makeBuffer()
            }
            state.pool = try? PixelBufferPool(format: format, width: width, height: height, rowAlignment: 64,
                                              compressedCapacity: compressed, maximumCount: VideoDataOutput.poolSize, preallocate: 2)
            return state.pool?.makeBuffer()
        }
    }

    /// The reused intermediate buffer of step `index` (made again only when its shape changes).
    private func scratchBuffer(_ index: Int, format: PixelFormat, width: Int, height: Int) throws(MediaError) -> PixelBuffer {
        try state.withLock { state throws(MediaError) -> PixelBuffer in
            while state.scratch.count <= index { state.scratch.append(nil) }
            if let buffer = state.scratch[index], buffer.format == format, buffer.width == width, buffer.height == height { return buffer }
            let buffer = try PixelBuffer(format: format, width: width, height: height, rowAlignment: 64)
            state.scratch[index] = buffer
            return buffer
        }
    }
}
