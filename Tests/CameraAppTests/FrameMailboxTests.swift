import CameraModel
import Media
import Synchronization
import Testing

@Suite("The preview's one-slot mailbox")
struct FrameMailboxTests {
    @Test("the newest frame wins, one wake-up per empty slot, replaced frames counted")
    func newestWins() throws {
        let mailbox = FrameMailbox()
        let wakes = Mutex(0)
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
}
