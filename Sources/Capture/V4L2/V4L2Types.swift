import CV4L2
import Media

/// What VIDIOC_QUERYCAP says about a node.
struct V4L2Capabilities: Sendable, Equatable {
    /// Driver name, e.g. "uvcvideo" or "vivid".
    var driver: String
    /// The card's name, e.g. "Integrated Camera: Integrated C".
    var card: String
    /// Where it sits, e.g. "usb-0000:00:14.0-8" or "platform:vivid-000".
    var busInfo: String
    /// The node's own capabilities (V4L2_CAP_* of device_caps).
    var deviceCaps: UInt32

    /// A video capture node that streams, through the single-planar or the multi-planar API.
    var isStreamingCapture: Bool {
        deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE) != 0 && deviceCaps & UInt32(V4L2_CAP_STREAMING) != 0
    }

    /// Whether the node is driven through the multi-planar API (`V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE`):
    /// only when it offers no single-planar capture, which stays the choice of nodes that offer both.
    var isMultiplanar: Bool {
        deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE_MPLANE) != 0 && deviceCaps & UInt32(V4L2_CAP_VIDEO_CAPTURE) == 0
    }
}

/// Four-character codes of formats whose planes lie in separate buffers ("N-C", non-contiguous:
/// one `v4l2_plane` each), and the contiguous layout each one's planes make together.
enum V4L2PlanarCodes {
    /// NV12M (NM12), NV21M (NM21), YUV420M (YM12), YVU420M (YM21), YUV422M (YM16), YUV444M (YM24).
    static let separate: [(fourCC: UInt32, format: PixelFormat)] = [
        (code("NM12"), .nv12), (code("NM21"), .nv21), (code("YM12"), .i420), (code("YM21"), .yv12), (code("YM16"), .i422), (code("YM24"), .i444),
    ]

    /// The greyscale codes, 4 to 16 bits, packed or not (GREY, Y4, Y6, Y10, Y12, Y14, Y16, Y16-BE,
    /// Y10BPACK, Y10P, Y12P, Y14P, IPU3 Y10), and the interleaved left/right greyscale pairs of
    /// stereo infrared cameras (Y8I, Y12I, Y16I): what infrared (face-login, depth) sensors stream.
    static let greyscale: Set<UInt32> = [
        code("GREY"), code("Y10 "), code("Y12 "), code("Y14 "), code("Y16 "), code("Y16 ") | 1 << 31, code("Y10B"), code("Y10P"),
        code("Y12P"), code("Y14P"), code("ip3y"), code("Y04 "), code("Y06 "), code("Y8I "), code("Y12I"), code("Y16I"),
    ]

    /// The format of `fourCC` in Pinhole's terms, separate-plane codes included.
    static func pixelFormat(_ fourCC: UInt32) -> PixelFormat? {
        PixelFormat(fourCC: fourCC) ?? separate.first { $0.fourCC == fourCC }?.format
    }

    /// The separate-plane code of `format`, if V4L2 has one Pinhole takes.
    static func separateCode(of format: PixelFormat) -> UInt32? {
        separate.first { $0.format == format }?.fourCC
    }

    /// Whether a camera offering only `fourCCs` is an infrared one: every format it has is
    /// greyscale (Windows Hello sensors offer GREY, Y10 or Y16 and nothing in colour).
    static func isInfrared(_ fourCCs: [UInt32]) -> Bool {
        !fourCCs.isEmpty && fourCCs.allSatisfy { greyscale.contains($0) }
    }

    /// A four-character code from its text.
    static func code(_ text: StaticString) -> UInt32 {
        let p = text.utf8Start
        return UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
    }
}

/// A frame size the driver offers for one pixel format.
enum V4L2FrameSize: Sendable, Equatable {
    /// One exact size.
    case discrete(width: Int, height: Int)
    /// A range of sizes.
    case stepwise(minWidth: Int, maxWidth: Int, stepWidth: Int, minHeight: Int, maxHeight: Int, stepHeight: Int)
}

/// A time per frame as a fraction of seconds (1/30 means 30 fps).
public struct FrameInterval: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Numerator in seconds.
    public var numerator: Int
    /// Denominator.
    public var denominator: Int

    /// An interval of `numerator`/`denominator` seconds.
    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The interval of `fps` frames per second.
    public init(framesPerSecond fps: Int) { self.init(numerator: 1, denominator: fps) }

    /// Frames per second.
    public var framesPerSecond: Double { numerator == 0 ? 0 : Double(denominator) / Double(numerator) }

    /// Seconds per frame.
    public var seconds: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }

    /// "30 fps" or "7.5 fps".
    public var description: String {
        let fps = framesPerSecond
        return fps == fps.rounded() ? "\(Int(fps)) fps" : "\((fps * 100).rounded() / 100) fps"
    }

    /// Shorter intervals (higher rates) sort first.
    public static func < (a: FrameInterval, b: FrameInterval) -> Bool { a.seconds < b.seconds }
}

/// The format the driver actually set (VIDIOC_S_FMT/G_FMT).
struct V4L2PixFormat: Sendable, Equatable {
    /// The pixel format's four-character code.
    var fourCC: UInt32
    /// Width in pixels.
    var width: Int
    /// Height in pixels.
    var height: Int
    /// The row stride of the first (or only) memory plane.
    var bytesPerLine: Int
    /// The bytes of the first (or only) memory plane.
    var sizeImage: Int
    /// V4L2 quantization (0 default, 1 full range, 2 limited range).
    var quantization: UInt32
    /// Every memory plane (a multi-planar format's `plane_fmt`; one for single-planar formats).
    var memoryPlanes: [V4L2PlaneFormat]
}

/// One memory plane of a format: its row stride and its size.
struct V4L2PlaneFormat: Sendable, Equatable {
    /// Bytes from one row to the next.
    var bytesPerLine: Int
    /// Bytes the plane needs.
    var sizeImage: Int
}

/// A control as VIDIOC_QUERY_EXT_CTRL describes it.
struct V4L2ControlInfo: Sendable, Equatable {
    var id: UInt32
    var type: UInt32
    var name: String
    var minimum: Int64
    var maximum: Int64
    var step: UInt64
    var defaultValue: Int64
    var flags: UInt32
    /// Menu entries (index → name or integer value) for menu controls.
    var menu: [(index: Int64, label: String)]

    static func == (a: V4L2ControlInfo, b: V4L2ControlInfo) -> Bool {
        a.id == b.id && a.type == b.type && a.name == b.name && a.minimum == b.minimum && a.maximum == b.maximum
            && a.step == b.step && a.defaultValue == b.defaultValue && a.flags == b.flags && a.menu.map(\.index) == b.menu.map(\.index)
            && a.menu.map(\.label) == b.menu.map(\.label)
    }

    var isDisabled: Bool { flags & UInt32(V4L2_CTRL_FLAG_DISABLED) != 0 }
    var isReadOnly: Bool { flags & UInt32(V4L2_CTRL_FLAG_READ_ONLY) != 0 }
    var isInactive: Bool { flags & UInt32(V4L2_CTRL_FLAG_INACTIVE) != 0 }
    var is64Bit: Bool { type == V4L2_CTRL_TYPE_INTEGER64.rawValue }
}

/// A buffer taken back from the driver with VIDIOC_DQBUF.
struct V4L2DequeuedBuffer: Sendable {
    /// Which of the mapped buffers.
    var index: Int
    /// Bytes of payload.
    var bytesUsed: Int
    /// The driver's frame counter (gaps mean dropped frames).
    var sequence: UInt32
    /// Capture time on CLOCK_MONOTONIC, in nanoseconds.
    var timestampNanoseconds: Int64
    /// The driver flagged the data as damaged (V4L2_BUF_FLAG_ERROR).
    var hasError: Bool
    /// Where the data starts in each of the first four memory planes (`data_offset`; zero for
    /// single-planar buffers), kept in a vector so that a dequeue allocates nothing.
    var dataOffsets: SIMD4<UInt32> = .zero
}

/// What `poll` saw.
enum V4L2PollResult: Sendable, Equatable {
    /// A frame is ready.
    case frameReady
    /// An event is pending (and perhaps a frame).
    case event
    /// Nothing within the timeout.
    case timeout
    /// The device reported an error (POLLERR) — fatal streaming error or unplug.
    case error
    /// The device hung up (unplugged).
    case hangup
}

/// An event from VIDIOC_DQEVENT.
enum V4L2Event: Sendable, Equatable {
    /// The source changed its format, e.g. a new resolution (V4L2_EVENT_SOURCE_CHANGE).
    case sourceChanged
    /// Any other event type.
    case other(type: UInt32)
}

/// Reads a fixed-size C char array (imported as a tuple) as a string.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
