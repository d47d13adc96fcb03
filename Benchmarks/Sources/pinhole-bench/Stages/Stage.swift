import Glibc
import Media
import PinholeTestSupport

/// One benchmark of the table: a name that `--only` matches, the sizes it runs at, and a body
/// that measures ours and the peers at one size and returns the rows.
///
/// Adding a stage takes two steps: write a `static` property or function returning a `Stage`
/// (see `Stages/ConversionStages.swift` for the pattern: build the input once with
/// `bench.image(size)`, rotate `bench.slots(...)` buffer sets, time with `bench.race`, check the
/// outputs against each other, return one `Row` per peer), and list it in `Stage.all`.
struct Stage {
    /// The stage's name, as the table's first column shows it and `--only` matches it.
    let name: String
    /// The sizes of a full run; `--quick` keeps only the first.
    let sizes: [FrameSize]
    /// Measures ours and the peers at one size.
    let measure: (Bench, FrameSize) throws -> [Row]

    /// Every stage, in table order.
    static var all: [Stage] {
        [
            .memcpy,
            .startup,
            .conversion(from: .yuyv, to: .bgra),
            .conversion(from: .nv12, to: .bgra),
            .conversion(from: .i420, to: .bgra),
            .conversion(from: .yuyv, to: .i420),
            .mjpegDecode(to: .bgra),
            .mjpegDecode(to: .i420),
            .jpegEncode,
            .pngEncode,
            .thumbnail,
            .filters,
            .shutterLatency,
            .videoDataOutput,
            .cameraSwitch,
            .cameraPath,
            .mainThreadBlocking,
            .recording,
            .libraryImport,
            .libraryListing,
            .libraryColdThumbnail,
            .cameraApp,
            .gallery,
        ]
    }

    /// True when `filter` (from `--only`) is part of the name, ignoring case; "->" stands for "→".
    func matches(_ filter: String) -> Bool {
        let wanted = filter.lowercased().replacingAll("->", with: "→")
        return name.lowercased().contains(wanted)
    }
}

/// What every stage shares: the options, the machine, the scratch directory, the test images,
/// and the memcpy floor of each size, measured once.
final class Bench {
    /// The command-line options.
    let options: Options
    /// The machine, for its cache size.
    let machine: Machine
    /// A private directory for files handed to external tools; removed at exit.
    let scratch: String
    /// GStreamer's launcher, or nil when it is not installed.
    let gstreamer: GStreamer?
    /// The photo-like BGRA image of each size, made once.
    private var images: [FrameSize: PixelBuffer] = [:]
    /// The memcpy floor of each size, measured once.
    private var floors: [FrameSize: MemcpyFloor] = [:]

    /// Timed runs per contender.
    var runs: Int { options.runs }

    /// Files the library import stage imports: `--library-files`, else 1 000 (50 with `--quick`).
    var libraryFiles: Int { options.libraryFiles ?? (options.quick ? 50 : 1_000) }

    /// Seconds the recording stage records on each side: `--record-seconds`, else 60 (10 with `--quick`).
    var recordSeconds: Int { options.recordSeconds ?? (options.quick ? 10 : 60) }

    /// Seconds the camera app stage measures the preview's CPU on each side: `--app-seconds`, else 30 (10 with `--quick`).
    var appSeconds: Int { options.appSeconds ?? (options.quick ? 10 : 30) }

    /// Sets up a bench run.
    init(options: Options, machine: Machine, scratch: String) {
        self.options = options
        self.machine = machine
        self.scratch = scratch
        gstreamer = Subprocess.find(GStreamer.tool) == nil ? nil : GStreamer(scratch: scratch)
    }

    /// The photo-like BGRA image at `size` (see `Frames.photoLikeImage`), the source of every input.
    func image(_ size: FrameSize) throws -> PixelBuffer {
        if let image = images[size] { return image }
        let image = try Frames.photoLikeImage(width: size.width, height: size.height)
        images[size] = image
        return image
    }

    /// How many buffer sets to rotate when one call reads and writes `bytesPerCall` bytes.
    func slots(bytesPerCall: Int) -> Int {
        Measure.slots(bytesPerCall: bytesPerCall, lastLevelCache: machine.lastLevelCache)
    }

    /// Times `contenders` interleaved (see `Measure.race`), with enough warm-up rounds, excluded
    /// from the results, for every buffer to have been touched once; `runs` overrides `--runs`.
    func race(slots: Int, runs: Int? = nil, _ contenders: [(Int) throws -> Void]) throws -> [Sample] {
        let warmup = max(2, (slots + contenders.count - 1) / contenders.count)
        return try Measure.race(runs: runs ?? self.runs, warmup: warmup, slots: slots, contenders)
    }

    /// Prints what is being measured to standard error (standard output carries only the table).
    func progress(_ text: String) {
        printError("pinhole-bench: \(text)…")
    }

    /// Frames per gst-launch run: about 200 at 1080p, fewer for larger frames, halved by `--quick`.
    func gstreamerFrames(_ size: FrameSize) -> Int {
        let frames = 200 * FrameSize.hd1080.pixels / size.pixels
        return max(10, options.quick ? frames / 2 : frames)
    }

    /// Launches of each gst-launch pipeline (a launch is long: fewer than `runs`).
    var gstreamerLaunches: Int { options.quick ? 3 : min(runs, 7) }

    /// The BGRA memcpy floor at `size`.
    func memcpyFloor(_ size: FrameSize) throws -> MemcpyFloor {
        if let floor = floors[size] { return floor }
        let image = try image(size)
        let bytes = Frames.payloadBytes(image)
        let slots = slots(bytesPerCall: 2 * bytes)
        let sources = try Frames.copies(of: image, count: slots)
        let destinations = try Frames.blanks(.bgra, like: image, count: slots)
        // A copy is cheap, so the floor gets at least 31 runs: every conversion row divides by it.
        let samples = try race(slots: slots, runs: max(runs, 31), [{ slot in
            _ = memcpy(destinations[slot].baseAddress, sources[slot].baseAddress, bytes)
        }])
        let floor = MemcpyFloor(ms: samples[0].medianMs, bytes: bytes, slots: slots)
        floors[size] = floor
        return floor
    }
}

/// The cost of copying one BGRA frame from a cold buffer to a cold buffer.
struct MemcpyFloor {
    /// Median milliseconds per copy.
    let ms: Double
    /// Bytes per frame.
    let bytes: Int
    /// Buffer pairs rotated.
    let slots: Int

    /// Gigabytes per second moved, counting the read and the write.
    var gigabytesPerSecond: Double { Double(2 * bytes) / (ms / 1000) / 1e9 }
}

/// The bandwidth-floor stage.
extension Stage {
    /// `memcpy` of a BGRA frame, cold source and destination: the floor every conversion is held to.
    static var memcpy: Stage {
        Stage(name: "memcpy BGRA", sizes: [.hd1080, .uhd4K]) { bench, size in
            let floor = try bench.memcpyFloor(size)
            return [Row(stage: "memcpy BGRA", size: size.name, oursMs: floor.ms, memcpyMs: nil, peer: "—", peerMs: nil,
                        check: .none,
                        note: "bandwidth floor: \(Format.fixed(floor.gigabytesPerSecond, 1)) GB/s read+write, \(floor.slots) buffer pairs rotated")]
        }
    }
}
