import CPipeWire
import Glibc

/// An eventfd that ends another thread's poll: made once, written from any thread, read by the
/// poller (the shim's `pinhole_pw_stream_deliver` reads it when it wakes).
final class WakeSignal: Sendable {
    /// The eventfd (-1 when none could be made: waits then run their whole time).
    let descriptor: Int32

    /// A signal not yet given.
    init() {
        descriptor = pinhole_pw_wake_fd()
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Makes the descriptor readable until the poller reads it.
    func signal() {
        guard descriptor >= 0 else { return }
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }
}
