import Glibc
import Media
import PinholeTestSupport

/// The command-line thumbnailers a script would call, run as whole processes: shared by the
/// thumbnail stage (a warm file) and the library's cold-thumbnail stage.
struct ThumbnailTool: Sendable {
    /// The program looked up in PATH.
    let program: String
    /// How the table names it.
    let label: String
    /// The command line that makes a 256 px PNG of `input` at `output`.
    let arguments: @Sendable (_ input: String, _ output: String) -> [String]

    /// `vipsthumbnail -s 256`, the libvips thumbnailer.
    static let vips = ThumbnailTool(program: "vipsthumbnail", label: "vipsthumbnail -s 256") { input, output in
        ["vipsthumbnail", input, "-s", "256", "-o", output]
    }

    /// ImageMagick's `convert -thumbnail` with the jpeg:size hint, which lets libjpeg scale in
    /// the DCT as ours does.
    static let magick = ThumbnailTool(program: "convert", label: "ImageMagick convert -thumbnail (jpeg:size hint)") { input, output in
        ["convert", "-define", "jpeg:size=512x512", input, "-thumbnail", "256x256", output]
    }

    /// True when the program is in PATH.
    var installed: Bool { Subprocess.find(program) != nil }

    /// One whole-process run: its wall milliseconds, or the tool's error output when it failed.
    func run(_ input: String, to output: String, scratch: String) -> Result<Double, ToolFailure> {
        let result = Subprocess.run(arguments(input, output), scratch: scratch)
        guard result.status == 0 else { return .failure(ToolFailure(description: "failed: \(result.errors.prefix(60))")) }
        return .success(result.wallSeconds * 1000)
    }

    /// Runs the tool `runs` times (input and output of each run chosen by `input` and `output`),
    /// checks the first output against `reference` and deletes the outputs: the median
    /// milliseconds (nil when a run failed) and the check.
    func time(runs: Int, input: (Int) -> String, output: (Int) -> String, reference: PixelBuffer, scratch: String) -> (ms: Double?, check: Check) {
        var times: [Double] = []
        defer { for index in 0..<runs { unlink(output(index)) } }
        for index in 0..<runs {
            switch run(input(index), to: output(index), scratch: scratch) {
            case let .success(ms): times.append(ms)
            case let .failure(failure): return (nil, Check(text: failure.description, failed: true))
            }
        }
        return (Sample.median(times), ThumbnailTool.check(png: output(0), against: reference))
    }

    /// The mean difference between the 256 px PNG at `path` and `reference` (the box-filtered
    /// original); a tool's own filter may differ by a few levels more than ours, hence the limit 6.
    static func check(png path: String, against reference: PixelBuffer, limit: Double = 6) -> Check {
        guard let bytes = try? FileBytes.read(path: path), let image = try? PNGCodec.decode(bytes, to: reference.format),
              image.width == reference.width, image.height == reference.height else {
            return Check(text: "no \(reference.width) px PNG", failed: true)
        }
        return Check.difference(Compare.meanAbsoluteDifference(image, reference), against: "box-filtered original", limit: limit)
    }
}

/// Why a tool's run failed (its status and the start of its error output).
struct ToolFailure: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}
