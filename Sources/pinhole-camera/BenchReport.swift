import Glibc

/// With PINHOLE_BENCH_REPORT=1 the app tells `pinhole-bench` (on standard error, one line each)
/// when a photo is saved, when the preview lets the camera go, and how many preview frames it
/// drew and skipped, as CLOCK_MONOTONIC nanoseconds; `DrawReport` adds, from the window's frame
/// clock, when the first camera frame was painted (at start and when the camera is back), when
/// the gallery and the viewer have drawn what they were asked for, and the gallery's frames.
/// Nothing is printed otherwise.
enum BenchReport {
    /// Whether reporting is on.
    static let enabled = getenv("PINHOLE_BENCH_REPORT").map { String(cString: $0) == "1" } ?? false

    /// Now on CLOCK_MONOTONIC, in nanoseconds.
    static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Writes "pinhole-bench: EVENT VALUES…".
    static func say(_ event: String, _ values: Int64...) {
        guard enabled else { return }
        let line = "pinhole-bench: \(event) " + values.map(String.init).joined(separator: " ") + "\n"
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
}
