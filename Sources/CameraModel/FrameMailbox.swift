import Media
import Synchronization

/// A one-slot mailbox between the camera's thread and the UI: the newest frame wins.
///
/// `put` replaces whatever the slot held and calls `wake` only when the slot was empty, so at most
/// one wake-up is pending: a slow UI drops frames (counted) instead of queueing them.
///
/// A consumer that shows frames at its screen's pace can say so (`setPaced(true)`) and then ask
/// for each next frame (`requestFrame()`, once it has shown the last): the producer is told
/// through the pacer its owner set (`setPacer`), and makes no frame nobody will see.
public final class FrameMailbox: Sendable {
    private struct Slot {
        var frame: PixelBuffer?
        var replaced = 0
        var delivered = 0
    }
    private let slot = Lock(Slot())
    /// The wake-up function, in a class box: kept in the `Mutex` itself, a function value came back
    /// from `withLock { $0 }` wrapped in two more reabstraction thunks at every frame (see
    /// `Localization`), so each wake-up walked a longer chain than the last.
    private final class Wake: Sendable {
        /// The function.
        let body: @Sendable () -> Void
        /// Boxes `body`.
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    /// The wake-up, if any.
    private let wake = Lock<Wake?>(nil)
    /// How the consumer's pace reaches the producer, in a class box as `Wake` is.
    private final class Pacer: Sendable {
        /// Turns delivery on request on or off.
        let setPaced: @Sendable (Bool) -> Void
        /// Asks for the next frame.
        let request: @Sendable () -> Void
        /// Boxes the two.
        init(setPaced: @escaping @Sendable (Bool) -> Void, request: @escaping @Sendable () -> Void) {
            self.setPaced = setPaced
            self.request = request
        }
    }
    /// The producer's pacer, if it has one.
    private let pacer = Lock<Pacer?>(nil)

    /// An empty mailbox.
    public init() {}

    /// Sets what runs (on the producer's thread) when a frame lands in an empty slot; it should
    /// schedule a `take()` on the consumer's thread. A frame already waiting (it arrived before
    /// the consumer was there) wakes it at once, here, on the caller's thread.
    public func setWake(_ wake: (@Sendable () -> Void)?) {
        self.wake.withLock { $0 = wake.map(Wake.init) }
        if let wake, slot.withLock({ $0.frame != nil }) { wake() }
    }

    /// Leaves `frame` for the consumer, replacing an unread one.
    public func put(_ frame: PixelBuffer) {
        let wasEmpty = slot.withLock { slot -> Bool in
            let empty = slot.frame == nil
            if !empty { slot.replaced += 1 }
            slot.frame = frame
            return empty
        }
        if wasEmpty { wake.withLock { $0 }?.body() }
    }

    /// The newest frame, emptying the slot (nil when there is none).
    public func take() -> PixelBuffer? {
        slot.withLock { slot in
            guard let frame = slot.frame else { return nil }
            slot.frame = nil
            slot.delivered += 1
            return frame
        }
    }

    /// Lets the consumer pace the producer (set by the producer's owner): `setPaced` turns
    /// delivery on request on and off, `request` asks for the next frame.
    public func setPacer(setPaced: @escaping @Sendable (Bool) -> Void, request: @escaping @Sendable () -> Void) {
        pacer.withLock { $0 = Pacer(setPaced: setPaced, request: request) }
    }

    /// The consumer takes frames at its own pace (true: each after `requestFrame()`; the first
    /// is asked for now) or every frame the producer makes (false).
    public func setPaced(_ paced: Bool) {
        pacer.withLock { $0 }?.setPaced(paced)
    }

    /// Asks the producer for its next frame (while paced).
    public func requestFrame() {
        pacer.withLock { $0 }?.request()
    }

    /// Frames taken by the consumer, and frames replaced before it got to them.
    public var counts: (delivered: Int, replaced: Int) { slot.withLock { ($0.delivered, $0.replaced) } }
}
