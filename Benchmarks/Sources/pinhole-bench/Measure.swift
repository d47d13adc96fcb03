import Glibc
import PinholeTestSupport

/// Clock readings: monotonic wall time from `clock_gettime` and CPU time from `getrusage`.
enum Clock {
    /// Seconds on `CLOCK_MONOTONIC`, which no clock adjustment moves.
    static func now() -> Double { MonotonicClock.seconds() }

    /// User plus system CPU seconds of this whole process (all its threads), from `getrusage`.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return MonotonicClock.cpuSeconds(usage)
    }

}

/// The timed runs of one contender: wall time of each run, and CPU time over all of them.
struct Sample {
    /// Wall time of each timed run, in milliseconds, in the order they ran.
    var runsMs: [Double] = []
    /// CPU seconds (all threads) spent over the timed runs.
    var cpuSeconds = 0.0
    /// Wall seconds spent over the timed runs.
    var wallSeconds = 0.0

    /// The median run in milliseconds (the mean of the middle two for an even count).
    var medianMs: Double { Sample.median(runsMs) }

    /// CPU time over wall time: about 1 for single-threaded work, more when threads ran in parallel.
    var cpuPerWall: Double { wallSeconds > 0 ? cpuSeconds / wallSeconds : 0 }

    /// The median of `values` (0 for none).
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Writes `text` to standard error (file descriptor 2; standard output carries only the results).
func printError(_ text: String) {
    var bytes = Array(text.utf8)
    if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        offset += written
    }
}

/// The measurement loop every in-process stage uses.
enum Measure {
    /// Runs `contenders` round by round, A B C, A B C…: `warmup` untimed rounds, then `runs`
    /// timed ones, so a change in clock speed or in a neighbour's load hits every contender alike.
    ///
    /// Every call gets a slot number, `call % slots`, that advances on each call of any contender:
    /// a contender uses the source and destination buffers of that slot, so a buffer is touched
    /// again only after `slots - 1` other calls have gone through other buffers. With enough slots
    /// to overflow the last-level cache, every call starts cold, as a camera frame does.
    static func race(runs: Int, warmup: Int, slots: Int, _ contenders: [(Int) throws -> Void]) throws -> [Sample] {
        var samples = Array(repeating: Sample(), count: contenders.count)
        var call = 0
        for round in 0..<(warmup + runs) {
            for (index, contender) in contenders.enumerated() {
                let slot = call % slots
                call += 1
                let cpuBefore = Clock.processCPUSeconds()
                let start = Clock.now()
                try contender(slot)
                let end = Clock.now()
                let cpuAfter = Clock.processCPUSeconds()
                guard round >= warmup else { continue }
                samples[index].runsMs.append((end - start) * 1000)
                samples[index].wallSeconds += end - start
                samples[index].cpuSeconds += cpuAfter - cpuBefore
            }
        }
        return samples
    }

    /// How many distinct buffer sets to rotate through so that they overflow the last-level cache
    /// `cacheFactor` times over, given the bytes one call reads and writes; at least `minimum`.
    ///
    /// The factor is large because the cache a virtual machine reports can be smaller than what
    /// the host really has: on the EPYC this was written on (32 MiB reported), a 1080p BGRA memcpy
    /// was still 25% faster rotating 66 MB than 260 MB, and stopped changing only beyond ~250 MB.
    static func slots(bytesPerCall: Int, lastLevelCache: Int, cacheFactor: Int = 8, minimum: Int = 8, maximum: Int = 64) -> Int {
        let needed = (lastLevelCache * cacheFactor + bytesPerCall - 1) / max(bytesPerCall, 1)
        return min(max(needed, minimum), maximum)
    }
}
