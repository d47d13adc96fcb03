import Glibc

/// The clocks capture reads: CLOCK_MONOTONIC, which frame and sound timestamps use (V4L2 stamps
/// buffers on it), and the wall clock for dates in files.
enum SystemClock {
    /// CLOCK_MONOTONIC now, in nanoseconds.
    static func monotonicNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The wall clock (CLOCK_REALTIME) now, in seconds since 1970.
    static func wallClockSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
