import Glibc
import Media
import PinholeTestSupport

/// GStreamer's `videoconvert`, timed through `gst-launch-1.0`: the pipeline people paste.
///
/// A process launch costs far more than one conversion, so each measurement runs the pipeline on
/// many frames, and again without the `videoconvert` stage, and reports the difference per frame:
/// "gst-launch, per frame, pipeline overhead subtracted". The source re-reads one file holding the
/// frame (`multifilesrc`, the same bytes every time), so no multi-gigabyte file is needed.
struct GStreamer {
    /// The launcher binary.
    static let tool = "gst-launch-1.0"

    /// The directory for the frame files and outputs.
    let scratch: String

    /// The first line of `gst-launch-1.0 --version`, or nil when GStreamer is not installed.
    static func version() -> String? {
        guard Subprocess.find(tool) != nil, let text = Subprocess.output([tool, "--version"]) else { return nil }
        return text.split(separator: "\n").dropFirst().first.map { String($0).trimmed } ?? text.trimmed
    }

    /// GStreamer's name for `format` in caps, e.g. "YUY2"; nil for formats this bench does not feed it.
    static func capsName(_ format: PixelFormat) -> String? {
        switch format {
        case .yuyv: "YUY2"
        case .nv12: "NV12"
        case .i420: "I420"
        case .bgra: "BGRA"
        default: nil
        }
    }

    /// How long `videoconvert` takes per frame, from whole-pipeline launches.
    struct Timing {
        /// Wall milliseconds per frame: (median full launch − median baseline launch) ÷ frames.
        let perFrameMs: Double
        /// CPU milliseconds per frame, the same difference of the children's CPU time.
        let cpuPerFrameMs: Double
        /// CPU milliseconds per frame of the whole pipeline (median full launch ÷ frames):
        /// reading the file, parsing, converting and start-up spread over the frames.
        let wholeCPUPerFrameMs: Double
        /// Frames per launch.
        let frames: Int
        /// Launches of each pipeline.
        let launches: Int
    }

    /// Why GStreamer could not be measured.
    struct Failure: Error, CustomStringConvertible {
        /// The command and what it printed.
        let description: String
    }

    /// Writes `frame`'s pixel bytes, packed without padding, to a file in `scratch`; returns its path.
    func writeFrame(_ frame: PixelBuffer, name: String) throws -> String {
        let path = "\(scratch)/\(name).raw"
        let bytes = frame.packedBytes()
        guard let file = fopen(path, "w") else { throw Failure(description: "cannot write \(path)") }
        defer { fclose(file) }
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw Failure(description: "short write to \(path)") }
        return path
    }

    /// The gst-launch arguments: read `file` as `frames` raw frames of `source`, convert to
    /// `destination` unless nil (the baseline), and end in `sink` (fakesink or a filesink).
    func arguments(file: String, source: PixelFormat, width: Int, height: Int, frames: Int,
                   destination: PixelFormat?, sink: [String]) -> [String] {
        var pipeline = [GStreamer.tool, "-q",
                        "multifilesrc", "location=\(file)", "loop=true", "num-buffers=\(frames)", "!",
                        "rawvideoparse", "use-sink-caps=false", "width=\(width)", "height=\(height)",
                        "format=\(GStreamer.capsName(source)!.lowercased())", "framerate=30/1", "colorimetry=bt601", "!"]
        if let destination {
            pipeline += ["videoconvert", "!", "video/x-raw,format=\(GStreamer.capsName(destination)!)", "!"]
        }
        return pipeline + sink
    }

    /// Times `videoconvert` from `source` to `destination` on the frame in `file`.
    func time(file: String, source: PixelFormat, destination: PixelFormat, width: Int, height: Int,
              frames: Int, launches: Int) throws -> Timing {
        let full = arguments(file: file, source: source, width: width, height: height, frames: frames,
                             destination: destination, sink: ["fakesink"])
        let baseline = arguments(file: file, source: source, width: width, height: height, frames: frames,
                                 destination: nil, sink: ["fakesink"])
        var fullWall: [Double] = [], fullCPU: [Double] = [], baseWall: [Double] = [], baseCPU: [Double] = []
        // One untimed launch of each warms the page cache and GStreamer's plugin registry.
        for round in 0...launches {
            for (arguments, isFull) in [(baseline, false), (full, true)] {
                let result = Subprocess.run(arguments, scratch: scratch)
                guard result.status == 0 else {
                    throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(result.status): \(result.errors.trimmed)")
                }
                guard round > 0 else { continue }
                if isFull {
                    fullWall.append(result.wallSeconds); fullCPU.append(result.cpuSeconds)
                } else {
                    baseWall.append(result.wallSeconds); baseCPU.append(result.cpuSeconds)
                }
            }
        }
        let wall = (Sample.median(fullWall) - Sample.median(baseWall)) / Double(frames) * 1000
        let cpu = (Sample.median(fullCPU) - Sample.median(baseCPU)) / Double(frames) * 1000
        let whole = Sample.median(fullCPU) / Double(frames) * 1000
        return Timing(perFrameMs: wall, cpuPerFrameMs: cpu, wholeCPUPerFrameMs: whole, frames: frames, launches: launches)
    }

    /// Converts the frame in `file` once and returns `videoconvert`'s output bytes, for the check.
    func convertOnce(file: String, source: PixelFormat, destination: PixelFormat, width: Int, height: Int) throws -> [UInt8] {
        let output = "\(scratch)/gst-output.raw"
        defer { unlink(output) }
        let arguments = arguments(file: file, source: source, width: width, height: height, frames: 1,
                                  destination: destination, sink: ["filesink", "location=\(output)"])
        let result = Subprocess.run(arguments, scratch: scratch)
        guard result.status == 0 else {
            throw Failure(description: "\(arguments.joined(separator: " ")) exited with \(result.status): \(result.errors.trimmed)")
        }
        guard let bytes = readBytes(output) else { throw Failure(description: "videoconvert wrote no output") }
        return bytes
    }
}
