import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// `pinhole` with PipeWire cameras: a private PipeWire daemon and WirePlumber (`PrivatePipeWire`),
/// and a camera node published by GStreamer's pipewiresink (SMPTE colour bars). Only PipeWire
/// offers cameras here (the environment's /dev is empty), so every frame comes through the
/// PipeWire driver: its registry discovery, EnumFormat reading, exact format negotiation and
/// buffers.
/// Expects the 640×480 JPEG at `path` to show videotestsrc's SMPTE pattern: seven 75% bars
/// across the top two thirds (`label` names the case in failures).
func expectColourBars(in path: String, label: String) throws {
    let image = try JPEGDecoder().decode(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    #expect(image.width == 640 && image.height == 480)
    let lit: [(Bool, Bool, Bool)] = [(true, true, true), (true, true, false), (false, true, true), (false, true, false),
                                     (true, false, true), (true, false, false), (false, false, true)]
    for (index, expected) in lit.enumerated() {
        let pixel = image.bgraPixel(x: (2 * index + 1) * 640 / 14, y: 160)
        #expect((pixel.r > 120, pixel.g > 120, pixel.b > 120) == expected, "\(label) bar \(index): \(pixel)")
    }
}

@Suite("pinhole with a PipeWire camera", .serialized)
struct PipeWireCameraTests {
    /// The environment for `pinhole`: isolated (private HOME, empty /dev) with the private PipeWire.
    func environment(_ folder: TemporaryDirectory, _ server: PrivatePipeWire) throws -> [String: String] {
        var environment = try isolatedEnvironment(folder).merging(server.environment) { _, new in new }
        environment["PINHOLE_PIPEWIRE"] = nil
        return environment
    }

    @Test("devices lists the camera node once, as pipewire:<node.name>, with the format its EnumFormat offers; PINHOLE_PIPEWIRE=0 hides it")
    func listed() throws {
        let server = try PrivatePipeWire()
        let camera = try server.provideCamera(name: "pw-listed-cam", width: 640, height: 480, fps: 30)
        defer { camera.stop() }
        let folder = try TemporaryDirectory()
        let env = try environment(folder, server)
        let result = try pinhole(["devices", "--json"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let found = list.filter { ($0["pipewireNode"] as? String) == "pw-listed-cam" }
        try #require(found.count == 1, "\(result.stdout)")
        #expect(found[0]["id"] as? String == "pipewire:pw-listed-cam")
        #expect(found[0]["path"] == nil)
        let formats = try #require(found[0]["formats"] as? [[String: Any]])
        let described = formats.map { "\($0["pixelFormat"] ?? "?") \($0["width"] ?? 0)x\($0["height"] ?? 0) \($0["frameRates"] ?? [])" }
        #expect(described == ["YUYV 640x480 [30]"], "\(formats)")
        let text = try pinhole(["devices"], environment: env)
        #expect(text.stdout.contains("PipeWire node: pw-listed-cam"), "\(text.stdout)")
        var off = env
        off["PINHOLE_PIPEWIRE"] = "0"
        let hidden = try pinhole(["devices", "--json"], environment: off)
        #expect(hidden.status == 0, "\(hidden.stderr)")
        #expect(!hidden.stdout.contains("pw-listed-cam") && !hidden.stdout.contains("pipewireNode"), "\(hidden.stdout)")
    }

    @Test("snap --device pipewire:<node> takes a 640×480 photo of the colour bars, from raw YUYV and from MJPEG", arguments: ["YUY2", "MJPG"])
    func snap(format: String) throws {
        let server = try PrivatePipeWire()
        let camera = try server.provideCamera(name: "pinhole-snap-cam", format: format)
        defer { camera.stop() }
        let folder = try TemporaryDirectory()
        let output = folder.path("photo.jpg")
        let result = try pinhole(["snap", "--device", "pipewire:pinhole-snap-cam", "--warmup", "1", "-o", output], environment: environment(folder, server))
        try #require(result.status == 0, "\(result.stderr)")
        let listed = try pinhole(["devices"], environment: environment(folder, server))
        #expect(listed.stdout.contains(format == "MJPG" ? "MJPEG: 640×480 (30 fps)" : "YUYV: 640×480 (30 fps)"), "\(listed.stdout)")
        try expectColourBars(in: output, label: format)
    }

    @Test("record --device pipewire:<node> writes a 640×480 H.264 movie at the camera's 30 fps")
    func record() throws {
        let server = try PrivatePipeWire()
        let camera = try server.provideCamera(name: "pinhole-record-cam")
        defer { camera.stop() }
        let folder = try TemporaryDirectory()
        let output = folder.path("movie.mp4")
        let result = try pinhole(["record", "--device", "pipewire:pinhole-record-cam", "--duration", "2", "--no-audio", "-o", output],
                                 environment: environment(folder, server))
        try #require(result.status == 0, "\(result.stderr)")
        let video = try ffprobe(output, "stream=codec_name,width,height,nb_frames")
        #expect(video["codec_name"] == "h264" && video["width"] == "640" && video["height"] == "480", "\(video)")
        // 2 s at 30 fps; a busy machine may lose a few, never most.
        let frames = Int(video["nb_frames"] ?? "") ?? 0
        #expect(frames >= 40 && frames <= 62, "\(frames) frames")
        #expect(try decodesCleanly(output))
    }

    @Test("a camera node that goes away while recording: the session waits for it as for an unplugged V4L2 camera, and record ends after 10 s without a picture, the file kept")
    func unplugWhileRecording() throws {
        let server = try PrivatePipeWire()
        let camera = try server.provideCamera(name: "pinhole-unplug-cam")
        let folder = try TemporaryDirectory()
        let output = folder.path("movie.mp4")
        let recording = try BackgroundProcess([pinholeBinary, "record", "--device", "pipewire:pinhole-unplug-cam", "--duration", "20", "--no-audio", "-o", output],
                                              environment: environment(folder, server))
        defer { recording.stop() }
        let started = blockUntil { (playableUntil(output) ?? 0) > 0.5 }
        try #require(started, "nothing recorded: \(recording.errors)")
        camera.stop()
        let status = recording.waitForExit(seconds: 20)
        #expect(status != nil && status != 0, "record went on after the camera left (status \(String(describing: status)))")
        #expect(recording.errors.contains("sent no picture for 10 s"), "\(recording.errors)")
        #expect(recording.output.contains(output), "the file was not reported: \(recording.output)")
        #expect(try decodesCleanly(output))
    }
}
