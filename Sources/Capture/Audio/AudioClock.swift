import Glibc

/// Presentation times for recorded sound, on CLOCK_MONOTONIC (the clock of camera frames).
///
/// A buffer's time is not its own measurement. A measurement (read time minus the server's
/// latency) is never early but often late: the recording thread, or the client library's own
/// thread, wakes up late on a busy machine, and the latency the server reports does not count
/// data still on its way. So the times come from the running sample count, anchored at the
/// first buffer's measured time (or the least late of the first few, `anchor(onFirst:frames:)`),
/// and consecutive buffers are exactly `frames / sampleRate` apart. The sound card's crystal and the system clock still disagree a little (tens of ppm:
/// milliseconds per minute), a server overrun loses samples, and the first measurement may
/// itself be late; so every measurement is compared with its counted time, and when even the
/// least late of the last `window` (about a second) is off by more than `tolerance`, the clock
/// re-anchors on it (reported as a correction). It never goes backwards.
struct AudioClock {
    /// The times of one buffer.
    struct Stamp: Equatable {
        /// The first frame's time on CLOCK_MONOTONIC, in nanoseconds.
        var presentationTime: Int64
        /// Frames recorded before this buffer.
        var position: Int64
        /// How far the clock moved to re-anchor at this buffer (nil: it did not).
        var correction: Int64?
    }

    /// Frames per second.
    let sampleRate: Int
    /// The disagreement (nanoseconds) tolerated before re-anchoring.
    let tolerance: Int64
    /// How many measurements are compared before deciding.
    let window: Int

    private var anchorTime: Int64?
    private var anchorPosition: Int64 = 0
    private var lastTime: Int64 = .min
    /// Frames counted so far.
    private(set) var position: Int64 = 0
    /// The last `window` differences (measured − counted), a ring.
    private var differences: [Int64]
    private var next = 0
    private var filled = 0

    /// A clock for `sampleRate` frames per second that re-anchors when `window` measurements in
    /// a row are all off by more than `tolerance`.
    init(sampleRate: Int, tolerance: Duration, window: Int) {
        self.sampleRate = sampleRate
        self.tolerance = AudioClock.nanoseconds(tolerance)
        self.window = max(window, 1)
        differences = Array(repeating: 0, count: self.window)
    }

    /// Whether the clock has its first anchor.
    var isAnchored: Bool { anchorTime != nil }

    /// Anchors the clock on the least late of the first buffers' measurements (each `frames`
    /// long; nil where the latency was unknown), before any is stamped. The buffers are then
    /// stamped in order as usual.
    mutating func anchor(onFirst measuredStarts: [Int64?], frames: Int) {
        precondition(anchorTime == nil && position == 0, "the clock is anchored once, before stamping")
        var best: Int64?
        for (index, measured) in measuredStarts.enumerated() {
            guard let measured else { continue }
            let start = measured - duration(of: Int64(index * frames))
            best = min(best ?? start, start)
        }
        let start = best ?? SystemClock.monotonicNanoseconds() - duration(of: Int64(measuredStarts.count * frames))
        anchorTime = start
        anchorPosition = 0
        lastTime = start - 1
    }

    /// The times of the next buffer of `frames` frames, whose first frame was measured at
    /// `measuredStart` (nanoseconds; nil when the server could not say its latency, which makes
    /// the buffer count but not measure).
    mutating func stamp(frames: Int, measuredStart: Int64?) -> Stamp {
        let position = self.position
        self.position += Int64(frames)
        guard let anchorTime else {
            let start = measuredStart ?? SystemClock.monotonicNanoseconds() - duration(of: Int64(frames))
            self.anchorTime = start
            anchorPosition = position
            lastTime = start
            return Stamp(presentationTime: start, position: position, correction: nil)
        }
        var time = anchorTime + duration(of: position - anchorPosition)
        var correction: Int64?
        if let measuredStart {
            differences[next] = measuredStart - time
            next = (next + 1) % window
            filled = min(filled + 1, window)
            if filled == window {
                // The least late measurement is the truest; every difference in the window is
                // against the current anchor, so the least is the anchor's error.
                var least = Int64.max
                for difference in differences where difference < least { least = difference }
                if abs(least) > tolerance {
                    let corrected = max(time + least, lastTime + 1)
                    correction = corrected - time
                    time = corrected
                    self.anchorTime = corrected
                    anchorPosition = position
                    filled = 0
                }
            }
        }
        lastTime = time
        return Stamp(presentationTime: time, position: position, correction: correction)
    }

    /// Nanoseconds `frames` frames last, exact for any count (no 64-bit overflow).
    func duration(of frames: Int64) -> Int64 {
        let rate = Int64(sampleRate)
        return frames / rate * 1_000_000_000 + frames % rate * 1_000_000_000 / rate
    }

    /// `duration` in whole nanoseconds.
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double { Double(nanoseconds(duration)) / 1e9 }
}
