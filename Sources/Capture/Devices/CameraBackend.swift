import Media

/// A frame as a driver hands it over: valid only during the callback that receives it.
struct RawFrame {
    /// The pixels (a driver's mmap'd buffer or a virtual camera's canvas), borrowed.
    var buffer: PixelBuffer
    /// Capture time on CLOCK_MONOTONIC, in nanoseconds.
    var timestampNanoseconds: Int64
    /// The driver's frame counter.
    var sequence: UInt32
}

/// What waiting for a frame gave.
enum FrameWait {
    /// A frame was delivered to the callback.
    case delivered
    /// The driver marked the frame as damaged (or an MJPEG frame was truncated): skipped.
    case corrupt
    /// Nothing arrived within the timeout.
    case timeout
    /// A driver that hands frames over on its own thread while the streaming thread waits
    /// (PipeWire's data thread) gave this many to the callback and skipped this many damaged ones.
    case handled(delivered: Int, corrupt: Int)
}

/// A camera driver seen from a session: one open camera, configured and started on the session's
/// queue and streamed by its streaming thread (never both at once). libcamera-style explicit
/// lifetime: making one opens the camera, `start`/`stop` allocate and free the buffers, and
/// deinit releases the device.
protocol CameraBackend: AnyObject {
    /// Sets the stream format; returns what the camera actually set.
    func configure(_ request: StreamConfiguration) throws(CaptureError) -> StreamConfiguration
    /// Allocates buffers and starts streaming.
    func start() throws(CaptureError)
    /// Stops streaming and frees buffers (idempotent, never fails: used on unplug too).
    func stop()
    /// Waits up to `timeout` seconds for the next frame and lends it to `body`; a driver with a
    /// thread of its own may instead lend every frame that comes within `timeout` (`.handled`),
    /// calling `body` on that thread while the caller waits, never two at once.
    func nextFrame(timeout: Double, _ body: (RawFrame) throws(CaptureError) -> Void) throws(CaptureError) -> FrameWait
    /// Ends a `nextFrame` wait early (from any thread): the session wants to stop.
    func interrupt()
    /// Reads a control value.
    func value(of control: ControlID) throws(CaptureError) -> Int64
    /// Sets a control value.
    func setValue(_ value: Int64, of control: ControlID) throws(CaptureError)
}

extension CameraBackend {
    /// Drivers whose waits end with each frame need no interruption.
    func interrupt() {}
}

/// A stream's format: pixel layout, size and frame interval.
public struct StreamConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The camera's pixel format.
    public var pixelFormat: PixelFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Time per frame.
    public var frameInterval: FrameInterval

    /// A configuration.
    public init(pixelFormat: PixelFormat, width: Int, height: Int, frameInterval: FrameInterval) {
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.frameInterval = frameInterval
    }

    /// "YUYV 1920×1080 @ 30 fps".
    public var description: String { "\(pixelFormat) \(width)×\(height) @ \(frameInterval)" }
}
