import Media

/// An output a `CaptureSession` feeds: `VideoDataOutput`, `PhotoOutput`.
public protocol CaptureOutput: AnyObject, Sendable {
    /// The connection between the session's camera and this output.
    var connection: CaptureConnection { get }
}

/// The session-facing side of every output (internal, so outputs are made only here).
protocol FrameConsumer: CaptureOutput {
    /// Called on the session's queue before streaming starts (and after each reconfiguration).
    func streamWillStart(_ configuration: StreamConfiguration, device: CaptureDevice) throws(CaptureError)
    /// Called for every good frame, on the streaming thread or the driver's own (PipeWire's data
    /// thread), never two at once; must not block (copy or convert and return).
    func consume(_ frame: RawFrame, context: FrameContext)
    /// Called when streaming stops.
    func streamDidStop()
}

/// What an output knows about a frame besides its pixels.
struct FrameContext {
    /// The stream's format.
    var configuration: StreamConfiguration
    /// The camera.
    var device: CaptureDevice
    /// Frames the driver skipped right before this one (sequence gap).
    var gap: Int
}

/// The link between a session's camera and one output, with per-output orientation settings.
public final class CaptureConnection: Sendable {
    private struct State {
        var rotationAngle: Double = 0
        var mirrored: Bool? = nil
        var enabled = true
    }
    private let state = Lock(State())
    /// Whether a front camera is mirrored on this connection by default (previews yes, photos no).
    let mirrorsFrontCameraByDefault: Bool

    init(mirrorsFrontCameraByDefault: Bool) {
        self.mirrorsFrontCameraByDefault = mirrorsFrontCameraByDefault
    }

    /// Clockwise rotation, in degrees (0, 90, 180, 270), applied to frames (video data) or
    /// recorded as EXIF orientation (photos). Usually set from a `RotationCoordinator`.
    public var videoRotationAngle: Double {
        get { state.withLock { $0.rotationAngle } }
        set { state.withLock { $0.rotationAngle = newValue } }
    }

    /// Whether the angle is one the connection supports (multiples of 90°).
    public func isVideoRotationAngleSupported(_ angle: Double) -> Bool {
        angle.truncatingRemainder(dividingBy: 90) == 0
    }

    /// Explicit mirroring; nil (the default) follows the camera: front cameras are mirrored on
    /// preview connections and not on photo connections.
    public var isVideoMirroredOverride: Bool? {
        get { state.withLock { $0.mirrored } }
        set { state.withLock { $0.mirrored = newValue } }
    }

    /// Whether frames on this connection are mirrored for `device`.
    public func isVideoMirrored(for device: CaptureDevice) -> Bool {
        state.withLock { $0.mirrored } ?? (mirrorsFrontCameraByDefault && device.position == .front)
    }

    /// Whether frames flow on this connection.
    public var isEnabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }
}

/// A frame delivered to code: pooled pixels plus timing. Holding it keeps its buffer out of
/// the pool; let go promptly so the next frame can reuse it.
public struct SampleBuffer: Sendable {
    /// The pixels, in the output's format, mirrored/rotated as its connection says.
    public let imageBuffer: PixelBuffer
    /// Capture time on CLOCK_MONOTONIC, in nanoseconds (the driver's timestamp).
    public let presentationTimestampNanoseconds: Int64
    /// The camera's frame counter.
    public let sequenceNumber: UInt32
    /// Clockwise rotation applied to the pixels.
    public let rotationAngle: Int
    /// Whether the pixels are mirrored.
    public let isMirrored: Bool
}
