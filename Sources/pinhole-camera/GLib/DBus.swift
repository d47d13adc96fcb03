import CGtk
import Glibc

/// Calls a D-Bus method without waiting for it, handing the callee `fileDescriptors` (each
/// duplicated into the message; the caller keeps and closes its own); `reply` gets the reply's
/// GVariant on the main loop (borrowed for the call only), or nil for an error reply or no service
/// of that name. `parameters` is a floating tuple, which the call consumes.
func callDBusForReply(_ connection: OpaquePointer, destination: String, path: String, interface: String, method: String, parameters: OpaquePointer?,
                       fileDescriptors: [Int32] = [], reply: @escaping @MainActor (OpaquePointer?) -> Void) {
    let box = ClosureBox(reply)
    let list = fileDescriptors.isEmpty ? nil : g_unix_fd_list_new()
    for descriptor in fileDescriptors { g_unix_fd_list_append(list, descriptor, nil) }
    defer { if let list { g_object_unref(UnsafeMutableRawPointer(list)) } }
    g_dbus_connection_call_with_unix_fd_list(connection, destination, path, interface, method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 10_000, list, nil, { source, result, data in
        let box = Unmanaged<ClosureBox<@MainActor (OpaquePointer?) -> Void>>.fromOpaque(data!).takeRetainedValue()
        var error: UnsafeMutablePointer<GError>?
        nonisolated(unsafe) let answer = g_dbus_connection_call_with_unix_fd_list_finish(OpaquePointer(source), nil, result, &error)
        if let error { g_error_free(error) }
        MainActor.assumeIsolated { box.body(answer) }
        if let answer { g_variant_unref(answer) }
    }, Unmanaged.passRetained(box).toOpaque())
}

/// Whether a program owns `name` on the bus now (org.freedesktop.DBus.NameHasOwner, asked
/// without waiting: `done` is told on the main loop; false when the bus does not answer).
func busNameHasOwner(_ connection: OpaquePointer, _ name: String, done: @escaping @MainActor (Bool) -> Void) {
    var children: [OpaquePointer?] = [g_variant_new_string(name)]
    let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 1) }
    callDBusForReply(connection, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", method: "NameHasOwner",
                     parameters: parameters) { reply in
        guard let reply, g_variant_n_children(reply) == 1, let owned = g_variant_get_child_value(reply, 0) else { return done(false) }
        defer { g_variant_unref(owned) }
        done(g_variant_classify(owned) == G_VARIANT_CLASS_BOOLEAN && g_variant_get_boolean(owned) != 0)
    }
}

/// Subscribes `handler` to a D-Bus signal from `sender` on `path`; it gets the signal's
/// parameters (a tuple, borrowed for the call) on the main loop until
/// `g_dbus_connection_signal_unsubscribe` with the returned identifier.
func subscribeDBusSignal(_ connection: OpaquePointer, sender: String, interface: String, member: String, path: String,
                         _ handler: @escaping @MainActor (OpaquePointer) -> Void) -> UInt32 {
    let box = ClosureBox(handler)
    return g_dbus_connection_signal_subscribe(connection, sender, interface, member, path, nil, G_DBUS_SIGNAL_FLAGS_NONE, { _, _, _, _, _, parameters, data in
        let box = Unmanaged<ClosureBox<@MainActor (OpaquePointer) -> Void>>.fromOpaque(data!).takeUnretainedValue()
        guard let parameters else { return }
        nonisolated(unsafe) let borrowed = parameters
        MainActor.assumeIsolated { box.body(borrowed) }
    }, Unmanaged.passRetained(box).toOpaque(), { data in Unmanaged<ClosureBox<@MainActor (OpaquePointer) -> Void>>.fromOpaque(data!).release() })
}
