import CGtk

/// A Swift closure kept alive by a signal connection and released with it. GTK emits signals
/// and runs its sources on the main loop's thread only, which is the main actor's: the box never
/// crosses threads, whatever the compiler can prove.
final class ClosureBox<T>: @unchecked Sendable {
    let body: T
    init(_ body: T) { self.body = body }
}

/// Connects `handler` to `signal` of `instance`, for signals whose handler takes only the
/// instance (clicked, activate, destroy, realize, …). Property changes pass a second argument:
/// use `connectNotify`.
@discardableResult
func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor () -> Void) -> UInt {
    precondition(!signal.hasPrefix("notify"), "notify passes a GParamSpec: connect it with connectNotify")
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        let box = Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body() }
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects `handler` to changes of `property` of `instance` ("notify::PROPERTY", whose handler
/// gets the GParamSpec before the closure's data).
@discardableResult
func connectNotify(_ instance: UnsafeMutableRawPointer, _ property: String, _ handler: @escaping @MainActor () -> Void) -> UInt {
    connect(instance, "notify::" + property) { (_: UnsafeMutableRawPointer?) in handler() }
}

/// Connects a handler that receives the signal's first pointer argument (GAction's "activate"
/// with its GVariant parameter, AdwMessageDialog's "response" with its id, …).
@discardableResult
func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
        let box = Unmanaged<ClosureBox<@MainActor (UnsafeMutableRawPointer?) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        nonisolated(unsafe) let argument = argument
        MainActor.assumeIsolated { box.body(argument) }
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (UnsafeMutableRawPointer?) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for key presses (GtkEventControllerKey's "key-pressed"): it gets the key
/// value and modifier state and returns whether it handled the key.
@discardableResult
func connectKeyPressed(_ controller: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (UInt32, GdkModifierType) -> Bool) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, key, _, state, data in
        let box = Unmanaged<ClosureBox<@MainActor (UInt32, GdkModifierType) -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { box.body(key, state) } ? 1 : 0
    }
    return g_signal_connect_data(controller, "key-pressed", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (UInt32, GdkModifierType) -> Bool>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Runs `body` on the main loop after `milliseconds` (once).
func after(milliseconds: UInt32, _ body: @escaping @MainActor () -> Void) {
    let box = ClosureBox(body)
    g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
        let box = Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body() }
        return 0
    }, Unmanaged.passRetained(box).toOpaque(), { data in Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).release() })
}

/// Runs `body` on the main loop every `milliseconds` while it returns true.
func every(milliseconds: UInt32, _ body: @escaping @MainActor () -> Bool) {
    let box = ClosureBox(body)
    g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
        let box = Unmanaged<ClosureBox<@MainActor () -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { box.body() } ? 1 : 0
    }, Unmanaged.passRetained(box).toOpaque(), { data in Unmanaged<ClosureBox<@MainActor () -> Bool>>.fromOpaque(data!).release() })
}

/// Connects a handler for signals that pass a position (GtkGridView's and GtkListView's "activate").
@discardableResult
func connectPosition(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Int) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?) -> Void = { _, position, data in
        let box = Unmanaged<ClosureBox<@MainActor (Int) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body(Int(position)) }
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Int) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for signals that pass one double (GtkGestureZoom's "scale-changed").
@discardableResult
func connectDouble(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Double) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, UnsafeMutableRawPointer?) -> Void = { _, value, data in
        let box = Unmanaged<ClosureBox<@MainActor (Double) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body(value) }
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Double) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for signals that pass two doubles: GtkGestureSwipe's "swipe" (velocities),
/// GtkGestureDrag's "drag-update" (offsets), GtkEventControllerScroll's "scroll" (deltas; the
/// handler's result says whether the scroll was handled).
@discardableResult
func connectDoubles(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Double, Double) -> Bool) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, x, y, data in
        let box = Unmanaged<ClosureBox<@MainActor (Double, Double) -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { box.body(x, y) } ? 1 : 0
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Double, Double) -> Bool>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for GtkGestureClick's "pressed" (the press count, then the position in
/// the widget's coordinates).
@discardableResult
func connectPressed(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Int, Double, Double) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, gint, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, x, y, data in
        let box = Unmanaged<ClosureBox<@MainActor (Int, Double, Double) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body(Int(presses), x, y) }
    }
    return g_signal_connect_data(instance, "pressed", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Int, Double, Double) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for GtkGestureClick's "released" (the press count, then the position).
@discardableResult
func connectReleased(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Int) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, gint, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, _, _, data in
        let box = Unmanaged<ClosureBox<@MainActor (Int) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body(Int(presses)) }
    }
    return g_signal_connect_data(instance, "released", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Int) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for signals that pass a position and a count (GtkSelectionModel's
/// "selection-changed").
@discardableResult
func connectRange(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Int, Int) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, guint, UnsafeMutableRawPointer?) -> Void = { _, position, count, data in
        let box = Unmanaged<ClosureBox<@MainActor (Int, Int) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body(Int(position), Int(count)) }
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Int, Int) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for GApplication's "command-line" (the GApplicationCommandLine; the
/// handler returns the exit status).
@discardableResult
func connectCommandLine(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (UnsafeMutablePointer<GApplicationCommandLine>) -> Int32) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GApplicationCommandLine>?, UnsafeMutableRawPointer?) -> gint = { _, line, data in
        let box = Unmanaged<ClosureBox<@MainActor (UnsafeMutablePointer<GApplicationCommandLine>) -> Int32>>.fromOpaque(data!).takeUnretainedValue()
        nonisolated(unsafe) let line = line
        return MainActor.assumeIsolated { box.body(line!) }
    }
    return g_signal_connect_data(instance, "command-line", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (UnsafeMutablePointer<GApplicationCommandLine>) -> Int32>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for GtkDragSource's "prepare" (the handler gives the drag's content, a
/// new reference, or nil for no drag).
@discardableResult
func connectPrepare(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor () -> UnsafeMutablePointer<GdkContentProvider>?) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GdkContentProvider>? = { _, _, _, data in
        let box = Unmanaged<ClosureBox<@MainActor () -> UnsafeMutablePointer<GdkContentProvider>?>>.fromOpaque(data!).takeUnretainedValue()
        nonisolated(unsafe) var content: UnsafeMutablePointer<GdkContentProvider>?
        MainActor.assumeIsolated { content = box.body() }
        return content
    }
    return g_signal_connect_data(instance, "prepare", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor () -> UnsafeMutablePointer<GdkContentProvider>?>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Connects a handler for "response" signals that pass a response ID (GtkDialog, GtkNativeDialog).
@discardableResult
func connectResponse(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Int32) -> Void) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, gint, UnsafeMutableRawPointer?) -> Void = { _, response, data in
        let box = Unmanaged<ClosureBox<@MainActor (Int32) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body(response) }
    }
    return g_signal_connect_data(instance, "response", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor (Int32) -> Void>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Calls a D-Bus method without waiting for it; `done` is told on the main loop whether it
/// succeeded (false for an error reply, or no service of that name).
func callDBus(_ connection: OpaquePointer, destination: String, path: String, interface: String, method: String, parameters: OpaquePointer?,
              done: @escaping @MainActor (Bool) -> Void) {
    let box = ClosureBox(done)
    g_dbus_connection_call(connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil, { source, result, data in
        let box = Unmanaged<ClosureBox<@MainActor (Bool) -> Void>>.fromOpaque(data!).takeRetainedValue()
        var error: UnsafeMutablePointer<GError>?
        let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error)
        if let reply { g_variant_unref(reply) }
        if let error { g_error_free(error) }
        let succeeded = reply != nil
        MainActor.assumeIsolated { box.body(succeeded) }
    }, Unmanaged.passRetained(box).toOpaque())
}

/// Connects a handler for signals whose handler returns a gboolean and takes only the instance
/// (GtkWindow's "close-request": true stops the window from closing).
@discardableResult
func connectBool(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor () -> Bool) -> UInt {
    let box = ClosureBox(handler)
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
        let box = Unmanaged<ClosureBox<@MainActor () -> Bool>>.fromOpaque(data!).takeUnretainedValue()
        return MainActor.assumeIsolated { box.body() } ? 1 : 0
    }
    return g_signal_connect_data(instance, signal, unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                 { data, _ in Unmanaged<ClosureBox<@MainActor () -> Bool>>.fromOpaque(data!).release() }, GConnectFlags(0))
}

/// Runs `body` on the main loop whenever the process gets the Unix signal `number` (SIGTERM,
/// SIGINT, SIGHUP: GLib turns it into a main-loop source, so `body` may do anything).
func onUnixSignal(_ number: Int32, _ body: @escaping @MainActor () -> Void) {
    let box = ClosureBox(body)
    g_unix_signal_add_full(G_PRIORITY_DEFAULT, number, { data in
        let box = Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).takeUnretainedValue()
        MainActor.assumeIsolated { box.body() }
        return 1
    }, Unmanaged.passRetained(box).toOpaque(), { data in Unmanaged<ClosureBox<@MainActor () -> Void>>.fromOpaque(data!).release() })
}
