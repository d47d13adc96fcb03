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

/// The video frames' presentation times in a movie, in seconds, in decoding order (FFmpeg's
/// decoder reads every frame: a file that does not play yields fewer or none).
public func videoFrameTimes(_ path: String) throws -> [Double] {
    let result = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ","))) }
}

/// What a recording from a camera with a fixed frame interval must account for, on a fast machine
/// or a slow one. The frames in the file carry the driver's timestamps: strictly increasing, the
/// first at zero, never bunched up as times taken when the recorder got round to a frame would be
/// under load. The frame times missing between the
/// first and the last (from the span they cover) are the ones the recorder reported dropped or
/// skipped; the container's duration ends one interval after the last frame; and the file plus
/// the reported losses cover the recording's frame times.
///
/// Drivers stamp a frame when they fill it (vivid under QEMU: whenever its thread gets to run), so
/// single gaps are not whole numbers of intervals; counting over the whole span is. Pinhole's test
/// camera stamps each frame with the time it was due, so its recordings are checked `onGrid`:
/// every gap is a whole number of intervals, however late the machine ran the camera's thread.
public struct RecordingAccount: CustomStringConvertible {
    /// Frame times read back from the file (seconds).
    public let times: [Double]
    /// The container's duration (seconds).
    public let duration: Double
    /// The camera's frame interval (seconds).
    public let interval: Double
    /// Frames the recorder reported as lost (dropped by the encoder plus skipped by the camera).
    public let reportedLost: Int

    /// How far a frame time may be off the camera's grid: containers round times (WebM to the
    /// millisecond), so two neighbours may be off by up to a millisecond between them.
    public static let gridTolerance = 0.0015

    /// Reads `path` back with ffprobe; the reported losses are read from `pinhole record`'s
    /// standard error ("N frames were dropped…", "N frames were skipped…"), or given directly.
    public init(path: String, frameInterval: Double, report: String? = nil, reportedLost: Int? = nil) throws {
        times = try videoFrameTimes(path)
        duration = Double(try ffprobe(path, select: nil, "format=duration")["duration"] ?? "") ?? 0
        interval = frameInterval
        if let reportedLost {
            self.reportedLost = reportedLost
        } else {
            var lost = 0
            for line in (report ?? "").split(separator: "\n") where line.contains(" frames were dropped") || line.contains(" frames were skipped") {
                lost += Int(line.prefix { $0.isNumber }) ?? 0
            }
            self.reportedLost = lost
        }
    }

    /// Frame times the span from the first to the last frame holds but the file does not.
    public var missingBetween: Int {
        guard let first = times.first, let last = times.last else { return 0 }
        return max(0, Int(((last - first) / interval).rounded()) + 1 - times.count)
    }

    /// Frame times the file and the reported losses account for together.
    public var accountedSlots: Int { times.count + reportedLost }

    /// The middle gap between frames (seconds).
    public var medianGap: Double {
        let gaps = zip(times, times.dropFirst()).map { $1 - $0 }.sorted()
        return gaps.isEmpty ? 0 : gaps[gaps.count / 2]
    }

    /// Neighbouring frame times (seconds) whose gap is not a whole number of intervals.
    public var offGridGaps: [(Double, Double)] {
        zip(times, times.dropFirst()).filter { a, b in
            let gap = b - a
            return abs(gap - (gap / interval).rounded() * interval) > RecordingAccount.gridTolerance
        }
    }

    public var description: String {
        "\(times.count) frames from \(times.first ?? -1) to \(times.last ?? -1) s (median gap \(medianGap) s, \(offGridGaps.count) off the grid), duration \(duration) s, \(missingBetween) missing between, \(reportedLost) reported lost"
    }

    /// The shortest gap between two frames, in intervals, that a camera's own timing gives (the
    /// default of `checkTiming` and `check`).
    public static let cameraShortestGap = 0.2

    /// The frame times are a camera's: at least two, the first at zero, each later than the one
    /// before by at least `shortestGap` of an interval (`cameraShortestGap` by default; 0: only later);
    /// `onGrid`, every gap but `joins` (a pause's) is a whole number of intervals.
    public func checkTiming(onGrid: Bool, joins: Int = 0, shortestGap: Double = cameraShortestGap, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(times.count >= 2, "\(self)", sourceLocation: sourceLocation)
        guard let first = times.first else { return }
        #expect(abs(first) < 0.001, "the first frame is at \(first) s, not 0", sourceLocation: sourceLocation)
        var short = 0
        for (a, b) in zip(times, times.dropFirst()) where !(b > a && b - a >= interval * shortestGap) {
            short += 1
            // A pause's join may fall anywhere; anything else this close is not the driver's timing.
            if short > joins { Issue.record("frame at \(b) s follows \(a) s: not the driver's timing", sourceLocation: sourceLocation) }
        }
        if onGrid {
            let off = offGridGaps
            #expect(off.count <= joins, "gaps off the \(interval) s grid: \(off.prefix(5)); \(self)", sourceLocation: sourceLocation)
        }
    }

    /// Every frame time missing between the first frame and the last is reported lost (`slack`
    /// more for rounding where gaps are not whole intervals); reported losses beyond those lie
    /// after the last frame, at most `trailing` (nil: not known).
    public func checkLossesReported(trailing: Int?, slack: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(missingBetween <= reportedLost + slack, "frames lost without being reported: \(self)", sourceLocation: sourceLocation)
        if let trailing {
            #expect(reportedLost <= missingBetween + trailing, "more losses reported than frames missing: \(self)", sourceLocation: sourceLocation)
        }
    }

    /// The container's duration ends one interval after the last frame (within `tolerance`
    /// intervals), or later by the frame times reported lost after it: a recording lasts until
    /// the camera's last frame in it, recorded or not.
    public func checkDuration(tolerance: Double = 2, sourceLocation: SourceLocation = #_sourceLocation) {
        let last = times.last ?? 0
        let lostAfter = Double(max(0, reportedLost - missingBetween))
        let over = duration - (last + interval)
        #expect(over >= -tolerance * interval && over <= (tolerance + lostAfter) * interval, "container duration: \(self)", sourceLocation: sourceLocation)
    }

    /// Gaps between neighbouring frames, the last frame's until the end of the file included.
    public var gapsToTheEnd: [Double] {
        let ends = times + [duration]
        return zip(ends, ends.dropFirst()).map { $1 - $0 }
    }

    /// Whether the frames are spread evenly across the file, as a recording that fell behind
    /// must keep them: no gap (the last frame's until the end included) over three times the
    /// mean, nor of a second.
    public var isSpreadEvenly: Bool {
        let widest = gapsToTheEnd.max() ?? .infinity
        return times.count >= 2 && widest <= 3 * duration / Double(times.count) && widest < 1
    }

    /// Checks everything above for a recording that should cover `expectedSlots` frame times
    /// (one with a duration limit), give or take `tolerance`.
    public func check(expectedSlots: Int, tolerance: Int, onGrid: Bool = false, joins: Int = 0, shortestGap: Double = cameraShortestGap,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        checkTiming(onGrid: onGrid, joins: joins, shortestGap: shortestGap, sourceLocation: sourceLocation)
        guard let last = times.last else { return }
        // Frames lost without being reported fail here. Reported losses may also lie after the
        // last frame that reached the file (the encoder was still behind when the recording ended).
        let trailing = max(0, expectedSlots - 1 - Int((last / interval).rounded()))
        checkLossesReported(trailing: trailing + tolerance, slack: onGrid ? joins : 1, sourceLocation: sourceLocation)
        checkDuration(sourceLocation: sourceLocation)
        #expect(abs(accountedSlots - expectedSlots) <= tolerance, "\(self)", sourceLocation: sourceLocation)
    }
}

/// Appends a `free` box whose 64-bit size is near Int64.max to the MP4 at `path`: FFmpeg still
/// plays the file (the box is after everything it needs).
public func appendHugeBox(to path: String) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    let size = UInt64(Int64.max - 16)
    let bytes: [UInt8] = [0, 0, 0, 1] + Array("free".utf8) + (0..<8).map { UInt8(truncatingIfNeeded: size >> (56 - 8 * UInt64($0))) } + [UInt8](repeating: 0, count: 16)
    try handle.write(contentsOf: Data(bytes))
}
