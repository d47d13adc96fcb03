import Foundation
import Testing

/// Makes a test movie with FFmpeg (an independent encoder): `seconds` of its moving test pattern
/// at `size` and `rate`, with a 440 Hz tone unless `audio` is nil. `codec` picks the streams:
/// "h264" (+ AAC) for .mp4/.mov/.mkv, "vp9" (+ Opus) for .webm. Extra arguments go before the output.
public func makeTestMovie(_ path: String, seconds: Double = 1, size: String = "320x240", rate: Int = 25,
                          codec: String = "h264", audio: Bool = true, extra: [String] = []) throws {
    var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=\(rate):duration=\(seconds)"]
    if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)"] }
    switch codec {
    case "vp9": arguments += ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k"] + (audio ? ["-c:a", "libopus"] : [])
    default: arguments += ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"] + (audio ? ["-c:a", "aac"] : [])
    }
    let result = try runTool("ffmpeg", arguments + extra + [path])
    #expect(result.status == 0, "ffmpeg could not make \(path): \(result.stderr)")
}
