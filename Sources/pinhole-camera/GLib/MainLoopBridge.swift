import CGtk

/// The one bridge from Swift concurrency to GTK: while `g_application_run` owns the main thread,
/// nothing drains Dispatch's main queue, so `@MainActor` work would never run. The main loop
/// watches the queue's wake-up descriptor and drains it, as Foundation's RunLoop does on Linux.
enum MainLoopBridge {
    /// Starts draining the main queue from the default GLib main context.
    static func install() {
        let fd = pinhole_main_queue_fd()
        g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, G_IO_IN, { fd, _, _ in
            pinhole_drain_main_queue(fd)
            return 1
        }, nil, nil)
    }
}
