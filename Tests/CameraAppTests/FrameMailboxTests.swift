import CameraModel
import Media
import Testing

@Suite("The preview's one-slot mailbox")
struct FrameMailboxTests {
    @Test("the newest frame wins, one wake-up per empty slot, replaced frames counted")
    func newestWins() throws {
        let mailbox = FrameMailbox()
        let wakes = Lock(0)
        mailbox.setWake { wakes.withLock { $0 += 1 } }
        let frames = try (0..<3).map { _ in try PixelBuffer(format: .bgra, width: 4, height: 4) }
        mailbox.put(frames[0])
        mailbox.put(frames[1])
        mailbox.put(frames[2])
        #expect(wakes.withLock { $0 } == 1)
        #expect(mailbox.take() === frames[2])
        #expect(mailbox.take() == nil)
        mailbox.put(frames[0])
        #expect(wakes.withLock { $0 } == 2)
        #expect(mailbox.counts.delivered == 1 && mailbox.counts.replaced == 2)
    }

    @Test("a frame that arrived before the consumer set its wake-up wakes it at once (the camera opens while the window is built)")
    func frameBeforeConsumer() throws {
        let mailbox = FrameMailbox()
        let frame = try PixelBuffer(format: .bgr24, width: 4, height: 4)
        mailbox.put(frame)
        let wakes = Lock(0)
        mailbox.setWake { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 1)
        #expect(mailbox.take() === frame)
        let empty = FrameMailbox()
        empty.setWake { wakes.withLock { $0 += 1 } }
        #expect(wakes.withLock { $0 } == 1, "no wake-up without a frame")
    }

    /// An hour of frames through the mailbox keeps each wake-up as cheap as the first.
    @Test("a wake-up costs as little after an hour of frames at 30 fps as at the first (the function is not re-wrapped at each frame)")
    func wakeStaysCheap() throws {
        let mailbox = FrameMailbox()
        let wakes = Lock(0)
        mailbox.setWake { wakes.withLock { $0 += 1 } }
        let frame = try PixelBuffer(format: .bgra, width: 4, height: 4)
        let elapsed = ContinuousClock().measure {
            for _ in 0..<108_000 {
                mailbox.put(frame)
                _ = mailbox.take()
            }
        }
        #expect(wakes.withLock { $0 } == 108_000)
        // About 20 ms; a thunk chain growing at every frame took minutes (or overflowed the stack).
        #expect(elapsed < .seconds(2), "108 000 frames took \(elapsed)")
    }
}
