import Glibc

/// A dedicated OS thread for a session's frame loop, so waiting on a camera never blocks
/// Swift's cooperative pool or the app's main loop.
enum StreamingThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new joinable thread; returns its handle.
    static func start(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let result = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(result)")
        return thread
    }

    /// Waits for the thread to end.
    static func join(_ thread: pthread_t) {
        pthread_join(thread, nil)
    }
}
