import Foundation
import Glibc
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

/// ffprobe's `entries` ("stream=codec_name,width" or "format=duration") for the streams `select`
/// picks (nil: all), as key=value pairs; frames are counted (`-count_frames`) when asked for.
public func ffprobe(_ path: String, select: String? = "v:0", _ entries: String) throws -> [String: String] {
    let counting = entries.contains("nb_read_frames") ? ["-count_frames"] : []
    let result = try runTool("ffprobe", ["-v", "error"] + counting + (select.map { ["-select_streams", $0] } ?? [])
                             + ["-show_entries", entries, "-of", "default=noprint_wrappers=1", path])
    #expect(result.status == 0, "\(result.stderr)")
    var values: [String: String] = [:]
    for line in result.stdout.split(separator: "\n") {
        let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
        if parts.count == 2 { values[parts[0]] = parts[1] }
    }
    return values
}

/// FFmpeg decodes the whole file without a single complaint (every frame as it is: no frame-rate
/// conversion, the stream's own time base, so variable frame timing is not reported).
/// What FFmpeg said is recorded with the test's issue.
public func decodesCleanly(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Bool {
    let result = try runTool("ffmpeg", ["-v", "error", "-i", path, "-fps_mode", "passthrough", "-enc_time_base", "-1", "-f", "null", "-"])
    let clean = result.status == 0 && result.stderr.isEmpty
    if !clean { Issue.record("ffmpeg decoding \(path) (exit \(result.status)): \(result.stderr)", sourceLocation: sourceLocation) }
    return clean
}

/// The file's sound decoded by FFmpeg to mono 16-bit samples at 48 kHz.
public func decodedSound(_ path: String) throws -> [Int16] {
    let raw = path + ".sound.raw"
    defer { unlink(raw) }
    let result = try runTool("ffmpeg", ["-v", "error", "-y", "-i", path, "-map", "0:a:0", "-f", "s16le", "-ac", "1", "-ar", "48000", raw])
    #expect(result.status == 0, "\(result.stderr)")
    let bytes = [UInt8]((try? Data(contentsOf: URL(fileURLWithPath: raw))) ?? Data())
    return stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
}
