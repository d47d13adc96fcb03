@testable import Capture
import Testing

/// `MovieFileOutput.Pace` against a simulated camera and encoder: which frames a recording keeps
/// when the encoder pauses once, and when it is too slow for good.
@Suite("How many frames a recording keeps when its encoder falls behind")
struct RecordingPaceTests {
    /// What a simulated recording kept and dropped, and the pace's keep interval at its end.
    struct Outcome {
        var kept = 0
        var dropped = 0
        /// Of those dropped, the ones lost because the pool was used up (in a burst).
        var dry = 0
        var keepInterval: Int64 = 0
    }

    /// `frames` of a 30 fps camera into a pool of `MovieFileOutput.poolSize`, encoded at
    /// `cost(n)` seconds for the n-th encoded frame (a stall is one long frame), with the camera
    /// thread's rule for kept frames (one every keep interval, none when the pool is used up).
    func simulate(frames: Int, cost: (Int) -> Double) -> Outcome {
        let interval = 1.0 / 30
        var pace = MovieFileOutput.Pace(frameInterval: interval, secondsPerFrame: 0.01)
        var outcome = Outcome()
        var queue: [Double] = []
        // When the encoder is done with its frame (nil: idle), and how many it has encoded.
        var busyUntil: Double?
        var encoded = 0
        var nextDue: Double?
        for index in 0..<frames {
            let now = Double(index) * interval
            // The encoder's work up to the camera's next frame.
            while true {
                if let end = busyUntil {
                    guard end <= now else { break }
                    busyUntil = nil
                    let backlog = queue.filter { $0 <= end }.count
                    outcome.keepInterval = pace.update(backlog: backlog)
                    if let next = queue.first {
                        queue.removeFirst()
                        busyUntil = max(end, next) + cost(encoded)
                        encoded += 1
                    }
                } else if let next = queue.first {
                    queue.removeFirst()
                    busyUntil = next + cost(encoded)
                    encoded += 1
                } else {
                    break
                }
            }
            let keep = Double(outcome.keepInterval) / 1e9
            if keep > 0, let due = nextDue, now < due - interval / 2 {
                outcome.dropped += 1
                continue
            }
            guard queue.count + (busyUntil == nil ? 0 : 1) < MovieFileOutput.poolSize else {
                outcome.dropped += 1
                outcome.dry += 1
                continue
            }
            queue.append(now)
            outcome.kept += 1
            nextDue = keep > 0 ? (nextDue.map { now - $0 > keep ? now : $0 } ?? now) + keep : nil
        }
        return outcome
    }

    @Test("an encoder with room to spare that stalls once (for 150 and for 220 ms: the machine paused it) keeps every frame")
    func stall() {
        for stall in [0.15, 0.22] {
            let outcome = simulate(frames: 900) { $0 == 300 ? stall : 0.012 }
            #expect(outcome.dropped == 0 && outcome.kept == 900, "stall of \(stall) s: \(outcome)")
            #expect(outcome.keepInterval == 0)
        }
    }

    @Test("an encoder too slow for good (1.4 frame intervals a frame) slows the pace, and the frames it keeps are spread evenly, not lost in bursts when the pool runs dry")
    func tooSlow() {
        let outcome = simulate(frames: 900) { $0 < 100 ? 0.012 : 1.4 / 30 }
        #expect(outcome.keepInterval > 0, "\(outcome)")
        #expect(outcome.dropped > 0 && outcome.kept + outcome.dropped == 900, "\(outcome)")
        // The encoder manages 30 / 1.4 = 21.4 frames a second over the 26.7 s after the first 100
        // frames: at least three quarters of that is kept, and few frames are lost to a pool run dry.
        #expect(outcome.kept > 100 + 428 && outcome.kept < 100 + 572, "\(outcome)")
        #expect(outcome.dry <= 8, "\(outcome)")
    }

    @Test("a pool all but used up (a stall of 260 ms, 7 frames waiting) slows the pace at once, and a steady empty queue brings every frame back")
    func nearlyFull() {
        var pace = MovieFileOutput.Pace(frameInterval: 1.0 / 30, secondsPerFrame: 0.01)
        #expect(pace.update(backlog: 7) > 0)
        var keep: Int64 = 1
        for _ in 0..<200 where keep > 0 { keep = pace.update(backlog: 0) }
        #expect(keep == 0)
    }
}
