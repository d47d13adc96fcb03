@testable import Capture
import CV4L2
import Glibc
import Testing

/// What Pinhole makes of a driver's damaged answers (the `v4l2` fuzz target's findings): a node
/// is described without trapping, and what cannot be a camera's is left out.
@Suite("A driver's damaged answers")
struct DriverAnswersTests {
    /// A stand-in driver for a YUYV camera offering `sizes` at 30 fps and `controls` (as
    /// VIDIOC_QUERY_EXT_CTRL answers, with no menu entries).
    static func driver(sizes: [(UInt32, UInt32)], controls: [v4l2_query_ext_ctrl]) -> V4L2Driver {
        V4L2Driver { _, request, argument in
            /// Fails the request as the end of an enumeration.
            func end() -> Int32 {
                errno = EINVAL
                return -1
            }
            switch request {
            case PINHOLE_VIDIOC_QUERYCAP:
                let caps = argument.assumingMemoryBound(to: v4l2_capability.self)
                caps.pointee.capabilities = UInt32(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
                return 0
            case PINHOLE_VIDIOC_ENUM_FMT:
                let format = argument.assumingMemoryBound(to: v4l2_fmtdesc.self)
                guard format.pointee.index == 0 else { return end() }
                format.pointee.pixelformat = V4L2PlanarCodes.code("YUYV")
                return 0
            case PINHOLE_VIDIOC_ENUM_FRAMESIZES:
                let size = argument.assumingMemoryBound(to: v4l2_frmsizeenum.self)
                guard Int(size.pointee.index) < sizes.count else { return end() }
                size.pointee.type = V4L2_FRMSIZE_TYPE_DISCRETE.rawValue
                (size.pointee.discrete.width, size.pointee.discrete.height) = sizes[Int(size.pointee.index)]
                return 0
            case PINHOLE_VIDIOC_ENUM_FRAMEINTERVALS:
                let interval = argument.assumingMemoryBound(to: v4l2_frmivalenum.self)
                guard interval.pointee.index == 0 else { return end() }
                interval.pointee.type = V4L2_FRMIVAL_TYPE_DISCRETE.rawValue
                interval.pointee.discrete = v4l2_fract(numerator: 1, denominator: 30)
                return 0
            case PINHOLE_VIDIOC_QUERY_EXT_CTRL:
                let query = argument.assumingMemoryBound(to: v4l2_query_ext_ctrl.self)
                let next = query.pointee.id & ~(UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND))
                guard let control = controls.first(where: { $0.id > next }) else { return end() }
                query.pointee = control
                return 0
            default:
                return end()
            }
        }
    }

    /// A menu control (id `id`) from `minimum` to `maximum`.
    static func menu(_ id: UInt32, _ minimum: Int64, _ maximum: Int64) -> v4l2_query_ext_ctrl {
        var control = v4l2_query_ext_ctrl()
        control.id = id
        control.type = V4L2_CTRL_TYPE_MENU.rawValue
        control.minimum = minimum
        control.maximum = maximum
        return control
    }

    @Test("a frame size of 4294967295×4294967295 (whose area overflows) and a zero one are left out; the camera's real size is kept")
    func impossibleSizes() throws {
        let device = try V4L2Device(path: "/dev/null", driver: Self.driver(sizes: [(.max, .max), (0, 480), (640, 480)], controls: []))
        let described = try #require(DeviceScanner.describe(device, path: "/dev/video-test"))
        #expect(described.formats.map(\.dimensions) == [CaptureDevice.Dimensions(width: 640, height: 480)])
    }

    @Test("menu controls whose range is reversed or spans more than Int64 holds are listed without entries instead of trapping")
    func damagedMenus() throws {
        let controls = [Self.menu(0x0098_0901, 5, 2), Self.menu(0x0098_0902, .min, .max), Self.menu(0x0098_0903, 0, 1)]
        let device = try V4L2Device(path: "/dev/null", driver: Self.driver(sizes: [(640, 480)], controls: controls))
        let described = try #require(DeviceScanner.describe(device, path: "/dev/video-test"))
        #expect(described.controls.map(\.id.rawValue) == controls.map(\.id))
        #expect(described.controls.allSatisfy { $0.menu.isEmpty })
    }

    @Test("formats from any source (a PipeWire node declares its sizes as freely) leave out sizes no picture can have, and the largest photo is the largest real size")
    func groupedFormatsLeaveOutImpossibleSizes() {
        let rate = [FrameInterval(framesPerSecond: 30)]
        let formats = DeviceScanner.groupedFormats([(.yuyv, 4_294_967_295, 4_294_967_295, rate), (.yuyv, 1280, 720, rate), (.yuyv, 0, 0, rate)])
        #expect(formats.map(\.dimensions) == [CaptureDevice.Dimensions(width: 1280, height: 720)])
        #expect(formats.first?.supportedMaxPhotoDimensions == [CaptureDevice.Dimensions(width: 1280, height: 720)])
    }
}
