@testable import Capture
import Media
import Testing

/// Infrared (face-login) cameras, the choice of the multi-planar API and the V4L2 codes of
/// multi-planar formats, without a device.
@Suite("Infrared cameras and multi-planar format codes")
struct InfraredTests {
    /// A V4L2 camera description streaming `format`, as the scanner would make it.
    func camera(_ id: String, _ format: PixelFormat, position: CaptureDevice.Position, infrared: Bool = false) -> CaptureDevice {
        let formats = DeviceScanner.groupedFormats([(format, 640, 360, [FrameInterval(framesPerSecond: 30)])])
        return CaptureDevice(uniqueID: id, localizedName: id, position: position, deviceType: .builtIn, formats: formats, controls: [],
                             source: .v4l2(path: "/dev/" + id), isInfrared: infrared)
    }

    @Test("a camera is infrared when every format it offers is greyscale, at any depth")
    func infraredFormats() {
        let code = V4L2PlanarCodes.code
        #expect(V4L2PlanarCodes.isInfrared([code("GREY")]))
        #expect(V4L2PlanarCodes.isInfrared([code("GREY"), code("Y16 ")]))
        #expect(V4L2PlanarCodes.isInfrared([code("Y10 ")]))
        #expect(V4L2PlanarCodes.isInfrared([code("Y8I "), code("Y12I")]))  // a stereo infrared pair
        #expect(!V4L2PlanarCodes.isInfrared([code("GREY"), code("YUYV")]))
        #expect(!V4L2PlanarCodes.isInfrared([code("MJPG"), code("YUYV")]))
        #expect(!V4L2PlanarCodes.isInfrared([]))
    }

    @Test("the default camera is never an infrared one, even when it is the only one facing the user")
    func neverDefault() {
        let hello = camera("video2", .grey, position: .front, infrared: true)
        let webcam = camera("video0", .yuyv, position: .external)
        let virtual = DeviceScanner.virtualDevices()
        #expect(CaptureDevice.preferred(among: [hello, webcam] + virtual, position: .unspecified, allowVirtual: true) === webcam)
        #expect(CaptureDevice.preferred(among: [hello, webcam], position: .front, allowVirtual: false) == nil)
        #expect(CaptureDevice.preferred(among: [hello] + virtual, position: .unspecified, allowVirtual: true)?.deviceType == .virtual)
        #expect(CaptureDevice.preferred(among: [hello], position: .unspecified, allowVirtual: false) == nil)
        // A front webcam beside it is still chosen for the front.
        let front = camera("video4", .nv12, position: .front)
        #expect(CaptureDevice.preferred(among: [hello, front], position: .front, allowVirtual: false) === front)
        #expect(!virtual.contains { $0.isInfrared } && !webcam.isInfrared && hello.isInfrared)
    }

    @Test("a node is driven multi-planar only when it offers no single-planar capture; either API streams")
    func planarChoice() {
        func caps(_ bits: UInt32) -> V4L2Capabilities {
            V4L2Capabilities(driver: "d", card: "c", busInfo: "platform:x", deviceCaps: bits)
        }
        // V4L2_CAP_VIDEO_CAPTURE, _VIDEO_CAPTURE_MPLANE, _VIDEO_OUTPUT_MPLANE, _STREAMING.
        let (V4L2_CAP_VIDEO_CAPTURE, V4L2_CAP_VIDEO_CAPTURE_MPLANE, V4L2_CAP_VIDEO_OUTPUT_MPLANE, V4L2_CAP_STREAMING): (UInt32, UInt32, UInt32, UInt32) =
            (0x1, 0x1000, 0x2000, 0x0400_0000)
        let single = caps(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING)
        let multi = caps(V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_STREAMING)
        let both = caps(V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_VIDEO_CAPTURE_MPLANE | V4L2_CAP_STREAMING)
        #expect(single.isStreamingCapture && !single.isMultiplanar)
        #expect(multi.isStreamingCapture && multi.isMultiplanar)
        #expect(both.isStreamingCapture && !both.isMultiplanar)
        #expect(!caps(V4L2_CAP_VIDEO_CAPTURE_MPLANE).isStreamingCapture)  // read() only
        #expect(!caps(V4L2_CAP_VIDEO_OUTPUT_MPLANE | V4L2_CAP_STREAMING).isStreamingCapture)
    }

    @Test("separate-plane codes (NV12M, YUV420M…) name the layouts their planes make together")
    func separatePlaneCodes() {
        let code = V4L2PlanarCodes.code
        #expect(V4L2PlanarCodes.pixelFormat(code("NM12")) == .nv12)
        #expect(V4L2PlanarCodes.pixelFormat(code("NM21")) == .nv21)
        #expect(V4L2PlanarCodes.pixelFormat(code("YM12")) == .i420)
        #expect(V4L2PlanarCodes.pixelFormat(code("YM21")) == .yv12)
        #expect(V4L2PlanarCodes.pixelFormat(code("YM16")) == .i422)
        #expect(V4L2PlanarCodes.pixelFormat(code("YM24")) == .i444)
        #expect(V4L2PlanarCodes.pixelFormat(code("NM16")) == nil)  // NV16M: no 4:2:2 semi-planar layout in Pinhole
        #expect(V4L2PlanarCodes.pixelFormat(code("YUYV")) == .yuyv)
        #expect(V4L2PlanarCodes.separateCode(of: .nv12) == code("NM12") && V4L2PlanarCodes.separateCode(of: .yuyv) == nil)
    }
}
