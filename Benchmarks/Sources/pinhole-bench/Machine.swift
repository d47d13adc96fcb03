import CPeers
import Glibc
import PinholeTestSupport

/// What the numbers were measured on: CPU, caches, and the versions of every library and tool.
struct Machine {
    /// The CPU's model name from /proc/cpuinfo.
    let cpuModel: String
    /// Online CPUs.
    let cores: Int
    /// Size of the last-level cache in bytes (32 MiB when the kernel does not say).
    let lastLevelCache: Int
    /// Kernel release from uname.
    let kernel: String
    /// libyuv's `LIBYUV_VERSION` (the header this program was built against).
    let libyuv: Int
    /// libjpeg-turbo's version and the TurboJPEG library file loaded into this process.
    let libjpegTurbo: String
    /// FFmpeg's `av_version_info()` and the libavcodec / libswscale library versions.
    let ffmpeg: String
    /// The first line of `gst-launch-1.0 --version`, or why there is none.
    let gstreamer: String

    /// Reads everything from the running system.
    static func current() -> Machine {
        let cpu = readFile("/proc/cpuinfo")?
            .split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { String($0).trimmed } ?? "unknown CPU"
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return Machine(cpuModel: cpu,
                       cores: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
                       lastLevelCache: lastLevelCacheBytes() ?? 32 << 20,
                       kernel: kernel,
                       libyuv: Int(LIBYUV_VERSION),
                       libjpegTurbo: turboJPEGVersion(),
                       ffmpeg: ffmpegVersion(),
                       gstreamer: GStreamer.version() ?? "not found (scripts/setup --bench installs it)")
    }

    /// The header lines, as plain text or as a Markdown list.
    func lines(markdown: Bool, settings: String, load: String) -> [String] {
        let items = [
            "CPU: \(cpuModel), \(cores) online CPUs, last-level cache \(Format.bytes(lastLevelCache)); Linux \(kernel)",
            "libyuv: \(libyuv) (LIBYUV_VERSION)",
            "libjpeg-turbo: \(libjpegTurbo)",
            "FFmpeg: \(ffmpeg)",
            "GStreamer: \(gstreamer)",
            "Settings: \(settings)",
            "Load: \(load)",
        ]
        return markdown ? items.map { "- " + $0 } : items
    }

    /// The 1-minute load average and the CPU seconds stolen by the hypervisor so far, read from
    /// /proc: other work on the machine makes every number noisier.
    static func load() -> (average: String, stolenSeconds: Double) {
        let average = readFile("/proc/loadavg")?.split(separator: " ").first.map(String.init) ?? "?"
        return (average, MachineFacts.stolenSeconds())
    }

    /// The largest cache the kernel lists for CPU 0, in bytes.
    private static func lastLevelCacheBytes() -> Int? {
        var largest: Int?
        for index in 0..<8 {
            guard let text = readFile("/sys/devices/system/cpu/cpu0/cache/index\(index)/size")?.trimmed, !text.isEmpty else { continue }
            let unit = text.last!
            let multiplier = unit == "K" ? 1 << 10 : unit == "M" ? 1 << 20 : 1
            guard let value = Int(multiplier == 1 ? text : String(text.dropLast())) else { continue }
            largest = max(largest ?? 0, value * multiplier)
        }
        return largest
    }

    /// libjpeg-turbo's version from pkg-config (TurboJPEG 2.x has no version call) and the
    /// library file the dynamic linker actually loaded (from /proc/self/maps).
    private static func turboJPEGVersion() -> String {
        let loaded = readFile("/proc/self/maps")?
            .split(separator: "\n")
            .compactMap { line in line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init) }
            .first { $0.contains("libturbojpeg") } ?? "not loaded"
        let version = Subprocess.output(["pkg-config", "--modversion", "libturbojpeg"])?.trimmed ?? "version unknown"
        return "\(version) (pkg-config; loaded \(loaded))"
    }

    /// FFmpeg's release string and the library versions it reports at run time.
    private static func ffmpegVersion() -> String {
        /// A packed `AV_VERSION_INT` as "major.minor.micro".
        func dotted(_ version: UInt32) -> String { "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)" }
        let info = av_version_info().map { String(cString: $0) } ?? "unknown"
        return "\(info) (libavcodec \(dotted(avcodec_version())), libswscale \(dotted(swscale_version())), libavutil \(dotted(avutil_version())))"
    }
}
