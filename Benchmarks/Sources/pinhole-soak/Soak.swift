import Glibc
import PinholeTestSupport

/// Pinhole's soak runs (scripts/soak, docs/soak.md): many photos through one session, many
/// session start/stop cycles, and one long recording with sound, each printing what the process
/// holds (resident memory, its high-water mark, threads, open descriptors) before, during and
/// after, and a verdict by rules stated in its output. Figures are printed, never asserted by a
/// timed test.
@main
struct Soak {
    /// How to call it.
    static let usage = """
        Usage: pinhole-soak photos [N]      N photos through one session (default 10000)
               pinhole-soak cycles [N]      N session start/stop cycles (default 1000)
               pinhole-soak record [MINUTES] a 1080p30 recording with sound (default 60)
        """

    /// Runs the subcommand named on the command line; exits 0 when its verdict is a pass, 1 when
    /// it fails, 2 on bad arguments.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let command = arguments.first, arguments.count <= 2 else { fail(usage, status: 2) }
        let count = arguments.count == 2 ? Int(arguments[1]) : nil
        if arguments.count == 2 && (count ?? 0) < 1 { fail("not a positive whole number: \(arguments[1])\n" + usage, status: 2) }
        let passed: Bool
        do {
            switch command {
            case "photos": passed = try await SessionSoak.photos(count ?? 10000)
            case "cycles": passed = try await SessionSoak.cycles(count ?? 1000)
            case "record": passed = try RecordSoak(minutes: count ?? 60).run()
            default: fail(usage, status: 2)
            }
        } catch {
            fail("pinhole-soak \(command) FAILED: \(error)", status: 1)
        }
        exit(passed ? 0 : 1)
    }

    /// Prints `message` to standard error and exits with `status`.
    static func fail(_ message: String, status: Int32) -> Never {
        write(line: message, to: 2)
        exit(status)
    }
}

/// Writes `line` and a newline to descriptor `fd` at once, unbuffered: lines appear as they come,
/// also into a pipe or a file (`scripts/soak … | tee`).
func write(line: String, to fd: Int32) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }
        offset += written
    }
}

/// Writes `line` to standard output (see `write(line:to:)`).
func say(_ line: String) {
    write(line: line, to: 1)
}

/// A soak run that could not go on, with the reason.
struct SoakError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
}

/// What a process holds at one moment, from /proc: resident memory (`VmRSS`), its high-water
/// mark (`VmHWM`), threads (/proc/PID/task) and open file descriptors (/proc/PID/fd).
struct Census {
    /// Resident bytes now.
    let resident: Int
    /// The highest resident bytes so far.
    let highWater: Int
    /// Threads.
    let threads: Int
    /// Those of `threads` that are libdispatch's workers (named after their root queue's QoS,
    /// "…-qos.overcommit", "oot.default-qos"): its pool starts and ends them as load comes and
    /// goes, and bounds them itself.
    let poolThreads: Int
    /// Open file descriptors (of this process: including the one that reads /proc/self/fd, the
    /// same in every census, so differences are exact).
    let files: Int

    /// The census of `pid` (this process by default); nil when it is gone.
    static func of(_ pid: pid_t = getpid()) -> Census? {
        guard let memory = ProcessFacts.memory(pid) else { return nil }
        return Census(resident: memory.resident, highWater: memory.highWater, threads: ProcessFacts.threadCount(pid),
                      poolThreads: threadNameCounts(pid).filter { isPoolThread($0.key) }.values.reduce(0, +),
                      files: ProcessFacts.openFileCount(pid))
    }

    /// Whether a thread's name (its `comm`) is a libdispatch worker's.
    static func isPoolThread(_ name: String) -> Bool { name.contains("qos") }

    /// The threads of `pid` by name.
    static func threadNameCounts(_ pid: pid_t) -> [String: Int] {
        var counts: [String: Int] = [:]
        for task in folderNames("/proc/\(pid)/task") {
            counts[(readFile("/proc/\(pid)/task/\(task)/comm") ?? "?").trimmed, default: 0] += 1
        }
        return counts
    }

    /// The threads of `pid` (this process by default) counted by name, "3 × pinhole-soak, 1 ×
    /// …", the most numerous first: what to look at when their number changes.
    static func threadNames(_ pid: pid_t = getpid()) -> String {
        threadNameCounts(pid).sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) × \($0.key)" }.joined(separator: ", ")
    }

    /// "VmRSS 41.2 MiB, VmHWM 43.0 MiB, 7 threads, 12 fds".
    var text: String {
        "VmRSS \(mebibytes(resident)) MiB, VmHWM \(mebibytes(highWater)) MiB, \(threads) threads (\(poolThreads) libdispatch workers), \(files) fds"
    }
}

/// `bytes` in MiB with one decimal.
func mebibytes(_ bytes: Int) -> String {
    fixed(Double(bytes) / Double(1 << 20), 1)
}

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (abs(value) * scale).rounded() / scale
    let whole = Int(rounded.rounded(.down))
    guard digits > 0 else { return (value < 0 && rounded > 0 ? "-" : "") + "\(whole)" }
    let fraction = Int(((rounded - Double(whole)) * scale).rounded())
    let padded = String(repeating: "0", count: max(0, digits - String(fraction).count)) + String(fraction)
    return (value < 0 && rounded > 0 ? "-" : "") + "\(whole).\(padded)"
}

/// Seconds since `start` (CLOCK_MONOTONIC nanoseconds), with one decimal.
func elapsed(since start: Int64) -> String {
    fixed(Double(MonotonicClock.nanoseconds() - start) / 1e9, 1)
}

/// The pass/fail line of one rule: "PASS rule (measured)" or "FAIL rule (measured)".
func verdict(_ passed: Bool, _ rule: String, _ measured: String) -> String {
    "\(passed ? "PASS" : "FAIL") \(rule): \(measured)"
}
