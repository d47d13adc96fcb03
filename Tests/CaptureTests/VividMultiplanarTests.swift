@testable import Capture
import Foundation
import Media
import Testing
import TestSupport

extension VirtualCameraSuites {
    /// vivid as a multi-planar camera (`multiplanar=2`: V4L2_CAP_VIDEO_CAPTURE_MPLANE only, as SoC
    /// cameras are), with the webcam preset's sizes and rates: the checks of `VividTests` that
    /// apply, and the formats whose planes lie in separate buffers.
    @Suite("vivid as a multi-planar camera (inside scripts/vm)", .enabled(if: vividAvailable))
    struct VividMultiplanarTests {
        init() throws { try reloadVivid(["1", "multiplanar=2"]) }

        /// The one multi-planar vivid camera.
        func camera() throws -> CaptureDevice { try CaptureDevice.device(withID: "/dev/video0") }

        @Test("the node speaks only the multi-planar API, and discovery lists it with its sizes, rates and controls")
        func discovery() throws {
            let caps = try V4L2Device(path: "/dev/video0").capabilities()
            #expect(caps.isMultiplanar && caps.isStreamingCapture, "device caps \(String(caps.deviceCaps, radix: 16))")
            let real = CaptureDevice.DiscoverySession(deviceTypes: [.builtIn, .external]).devices
            #expect(real.compactMap(\.path) == ["/dev/video0"])
            let device = try #require(real.first)
            #expect(device.localizedName.hasPrefix("vivid") && !device.isInfrared)
            let formats = Set(device.formats.map(\.pixelFormat))
            // I444 is offered only with its planes apart (YUV444M); NV12 and the rest both ways, listed once.
            for format in [PixelFormat.yuyv, .nv12, .nv21, .i420, .yv12, .i422, .i444, .rgb24, .grey] { #expect(formats.contains(format), "\(format)") }
            let nv12 = device.formats.filter { $0.pixelFormat == .nv12 }.map(\.dimensions)
            #expect(nv12.count == Set(nv12).count, "NV12 sizes listed twice: \(nv12)")
            let vga = try #require(device.formats.first { $0.pixelFormat == .yuyv && $0.dimensions == .init(width: 640, height: 480) })
            #expect(vga.maxFrameRate == 25)
            #expect(device.maxPhotoDimensions == .init(width: 3840, height: 2160))
            #expect(device.control(.brightness) != nil && device.control(VividControl.disconnect)?.kind == .button)
            #expect(CaptureDevice.default(for: .video, position: .unspecified, allowVirtual: false)?.path == "/dev/video0")
        }

        @Test("every raw format streams through the multi-planar API, and its pixels show vivid's colour bars")
        func everyRawFormat() async throws {
            try await expectEveryRawFormatShowsBars(try camera(), atLeast: 11)
        }

        @Test("formats with planes in separate buffers (NV12M, NV21M, YUV420M, YVU420M, YUV422M, YUV444M) are read in place, with the right pixels")
        func separatePlanes() throws {
            let rgb = try V4L2Backend(path: "/dev/video0", name: "vivid")
            let reference = try #require(try barsStreamed(rgb, .rgb24), "no RGB24 frame")
            expectVividBars(reference.bars)
            for format in [PixelFormat.nv12, .nv21, .i420, .yv12, .i422, .i444] {
                let backend = try V4L2Backend(path: "/dev/video0", name: "vivid")
                backend.prefersSeparatePlanes = true
                let set = try backend.configure(StreamConfiguration(pixelFormat: format, width: 320, height: 180, frameInterval: .init(framesPerSecond: 30)))
                #expect(set.pixelFormat == format)
                let format4CC = try backend.device.format().fourCC
                #expect(format4CC == V4L2PlanarCodes.separateCode(of: format), "\(format): the driver set \(String(format4CC, radix: 16))")
                guard let streamed = try barsStreamed(backend, format, configured: true) else {
                    Issue.record("no \(format) frame")
                    continue
                }
                expectVividBars(streamed.bars, match: reference.bars, format: "\(format) in separate buffers")
                // In place: the frame's planes are the driver's buffers, each on its own pages.
                #expect(streamed.inPlace, "\(format): planes at \(streamed.offsets)")
            }
        }

        /// Streams `format` at 320×180 from `backend` (configuring it unless `configured`) until a
        /// frame arrives: its bars, its plane offsets, and whether it lay in the driver's mapping.
        func barsStreamed(_ backend: V4L2Backend, _ format: PixelFormat, configured: Bool = false) throws
            -> (bars: [(UInt8, UInt8, UInt8)], offsets: [Int], inPlace: Bool)? {
            if !configured {
                _ = try backend.configure(StreamConfiguration(pixelFormat: format, width: 320, height: 180, frameInterval: .init(framesPerSecond: 30)))
            }
            try backend.start()
            defer { backend.stop() }
            var result: (bars: [(UInt8, UInt8, UInt8)], offsets: [Int], inPlace: Bool)?
            for _ in 0..<20 where result == nil {
                _ = try backend.nextFrame(timeout: patience) { frame in
                    let mapped = (0..<V4L2Backend.bufferCount).map { backend.device.memory(ofBuffer: $0).baseAddress }
                    let offsets = frame.buffer.planes.map(\.offset)
                    let pages = offsets.dropFirst().allSatisfy { $0 % 4096 == 0 } || frame.buffer.planes.count == 1
                    result = (vividBars(frame.buffer), offsets, mapped.contains { $0 == UnsafeRawPointer(frame.buffer.baseAddress) } && pages)
                }
            }
            return result
        }

        @Test("pinhole devices lists the camera; pinhole snap writes JPEGs of the size asked for, the largest included")
        func cli() throws {
            let devices = try runTool(pinholeBinary, ["devices"])
            #expect(devices.status == 0, "\(devices.stderr)")
            #expect(devices.stdout.contains("Node: /dev/video0") && !devices.stdout.contains("No camera found"), "\(devices.stdout)")
            #expect(!devices.stdout.contains("Infrared"))
            let folder = try TemporaryDirectory()
            for (size, width, height) in [("640x480", 640, 480), ("max", 3840, 2160)] {
                let result = try runTool(pinholeBinary, ["snap", "--device", "/dev/video0", "--size", size, "--warmup", "0", "-o", folder.path("\(size).jpg")])
                #expect(result.status == 0, "\(size): \(result.stderr)")
                let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                let tags = try ExifTool.locate().tags(URL(fileURLWithPath: path))
                #expect(jsonNumber(tags["File:ImageWidth"]) == Double(width) && jsonNumber(tags["File:ImageHeight"]) == Double(height), "\(size)")
                #expect(jsonText(tags["EXIF:Make"]) == "vivid")
                let pixels = try JPEGDecoder().decode(try folder.read(URL(fileURLWithPath: path)), scale: .eighth)
                let red = pixels.bgraPixel(x: 5 * pixels.width / 8 + pixels.width / 16, y: pixels.height * 2 / 3)
                #expect(red.r > 120 && red.g < 60 && red.b < 60, "\(size): red bar \(red)")
            }
            // Without --device, the multi-planar camera is the default one.
            let plain = try runTool(pinholeBinary, ["snap", "--size", "320x180", "--warmup", "0", "-o", folder.path("default.jpg")])
            #expect(plain.status == 0 && !plain.stderr.contains("test camera"), "\(plain.stderr)")
            let tags = try ExifTool.locate().tags(URL(fileURLWithPath: folder.path("default.jpg")))
            #expect(jsonText(tags["EXIF:Make"]) == "vivid" && jsonNumber(tags["File:ImageWidth"]) == 320)
        }

        @Test("controls are set and read back, before and while streaming")
        func controls() async throws {
            try await VividScenario.controls(try camera(), format: .nv12)
        }

        @Test("Disconnect while streaming: an interruption, the camera let go, frames again when vivid reconnects")
        func disconnect() async throws {
            let session = try await VividScenario.disconnect(try camera(), format: .i444)
            session.stopRunning()
        }

        @Test("buffer errors are skipped and counted while the stream goes on")
        func damaged() async throws {
            let device = try camera()
            let (session, output) = try await vividSession(device, format: .yuyv)
            defer { session.stopRunning() }
            #expect(await frames(from: output, count: 2, seconds: patience).infos.count == 2)
            try press(VividControl.injectBufferError, on: device)
            #expect(await frames(from: output, count: 4, seconds: patience).infos.count == 4)
            #expect(session.statistics.framesCorrupt >= 1, "\(session.statistics)")
        }
    }
}
