import CGtk

/// A Swift closure kept alive by a signal connection or a main-loop source, and released with
/// it. GTK emits signals and runs its sources on the main loop's thread only, which is the main
/// actor's: the box never crosses threads, whatever the compiler can prove.
class AnyClosureBox: @unchecked Sendable {}

/// An `AnyClosureBox` holding a closure of type `T`.
final class ClosureBox<T>: AnyClosureBox, @unchecked Sendable {
    let body: T
    init(_ body: T) { self.body = body }

    /// The box behind a connection's or source's user data.
    static func from(_ data: UnsafeMutableRawPointer?) -> ClosureBox<T> {
        Unmanaged<ClosureBox<T>>.fromOpaque(data!).takeUnretainedValue()
    }
}

/// Releases a box when its connection or source goes (one destroy notify for every closure type).
private let releaseBox: GClosureNotify = { data, _ in Unmanaged<AnyClosureBox>.fromOpaque(data!).release() }

/// The C types a trampoline takes and returns, to check against what the signal declares: a
/// trampoline of the wrong shape reads its arguments from the wrong registers (doubles travel
/// apart from integers and pointers), which may work by accident on one architecture only.
enum SignalValue: Equatable, CustomStringConvertible {
    case none, pointer, int, uint, double, boolean, other(String)

    /// The kind of a GType, by its fundamental type.
    init(_ type: GType) {
        // Fundamental type numbers (G_TYPE_MAKE_FUNDAMENTAL(n) = n << 2): the macros do not import.
        switch g_type_fundamental(type & ~GType(1)) >> 2 {  // bit 0: G_SIGNAL_TYPE_STATIC_SCOPE
        case 1: self = .none
        case 5: self = .boolean
        case 6, 12: self = .int            // gint, enums
        case 7, 13: self = .uint           // guint, flags
        case 15: self = .double
        case 2, 16, 17, 18, 19, 20, 21: self = .pointer  // interface, string, pointer, boxed, param, object, variant
        default: self = .other(String(cString: g_type_name(type & ~GType(1))))
        }
    }

    var description: String {
        switch self {
        case .none: "void"
        case .pointer: "pointer"
        case .int: "gint"
        case .uint: "guint"
        case .double: "gdouble"
        case .boolean: "gboolean"
        case let .other(name): name
        }
    }
}

/// Connects `trampoline`, which takes the instance, `parameters`, then the box's pointer and
/// returns `returns`, after checking that shape against the signal's declaration (a mismatch is
/// a programming error, caught the first time the widget is made). The box is released when
/// the connection goes.
@discardableResult
private func attach(_ instance: UnsafeMutableRawPointer, _ signal: String, _ box: AnyClosureBox, _ trampoline: GCallback,
                    _ parameters: [SignalValue], returns: SignalValue = .none) -> UInt {
    let type = instance.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
    var id: guint = 0
    var detail: GQuark = 0
    guard g_signal_parse_name(signal, type, &id, &detail, 0) != 0 else {
        preconditionFailure("\(String(cString: g_type_name(type))) has no signal \"\(signal)\"")
    }
    var query = GSignalQuery()
    g_signal_query(id, &query)
    let declared = (0..<Int(query.n_params)).map { SignalValue(query.param_types[$0]) }
    precondition(declared == parameters && SignalValue(query.return_type) == returns,
                 "\(String(cString: g_type_name(type)))::\(signal) passes (\(declared.map(\.description).joined(separator: ", "))) -> \(SignalValue(query.return_type)); the handler takes (\(parameters.map(\.description).joined(separator: ", "))) -> \(returns)")
    return g_signal_connect_data(instance, signal, trampoline, Unmanaged.passRetained(box).toOpaque(), releaseBox, GConnectFlags(0))
}

/// Connects `handler` to `signal` of `instance`, for signals whose handler takes only the
/// instance (clicked, activate, destroy, realize, …). Property changes pass a second argument:
/// use `connectNotify`.
@discardableResult
func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor () -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        let box = ClosureBox<@MainActor () -> Void>.from(data)
        MainActor.assumeIsolated { box.body() }
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [])
}

/// Connects `handler` to changes of `property` of `instance` ("notify::PROPERTY", whose handler
/// gets the GParamSpec before the closure's data).
@discardableResult
func connectNotify(_ instance: UnsafeMutableRawPointer, _ property: String, _ handler: @escaping @MainActor () -> Void) -> UInt {
    connect(instance, "notify::" + property) { (_: UnsafeMutableRawPointer?) in handler() }
}

/// Connects a handler that receives the signal's one pointer argument (GAction's "activate"
/// with its GVariant parameter, AdwMessageDialog's "response" with its id, a list item
/// factory's "bind" with its item, …).
@discardableResult
func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
        let box = ClosureBox<@MainActor (UnsafeMutableRawPointer?) -> Void>.from(data)
        nonisolated(unsafe) let argument = argument
        MainActor.assumeIsolated { box.body(argument) }
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.pointer])
}

/// Connects a handler for key presses (GtkEventControllerKey's "key-pressed"): it gets the key
/// value and modifier state and returns whether it handled the key.
@discardableResult
func connectKeyPressed(_ controller: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (UInt32, GdkModifierType) -> Bool) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = { _, key, _, state, data in
        let box = ClosureBox<@MainActor (UInt32, GdkModifierType) -> Bool>.from(data)
        return MainActor.assumeIsolated { box.body(key, state) } ? 1 : 0
    }
    return attach(controller, "key-pressed", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.uint, .uint, .uint], returns: .boolean)
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
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, UnsafeMutableRawPointer?) -> Void = { _, position, data in
        let box = ClosureBox<@MainActor (Int) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(Int(position)) }
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.uint])
}

/// Connects a handler for signals that pass one double (GtkGestureZoom's "scale-changed").
@discardableResult
func connectDouble(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Double) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, UnsafeMutableRawPointer?) -> Void = { _, value, data in
        let box = ClosureBox<@MainActor (Double) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(value) }
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.double])
}

/// Connects a handler for signals that pass two doubles and return nothing: a point or a pair
/// of offsets or velocities (GtkGestureLongPress's "pressed", GtkGestureSwipe's "swipe",
/// GtkGestureDrag's "drag-begin" and "drag-update", GtkEventControllerMotion's "motion").
@discardableResult
func connectPoint(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Double, Double) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, x, y, data in
        let box = ClosureBox<@MainActor (Double, Double) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(x, y) }
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.double, .double])
}

/// Connects a handler for GtkEventControllerScroll's "scroll" (the deltas; the handler's result
/// says whether the scroll was handled).
@discardableResult
func connectScroll(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Double, Double) -> Bool) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, x, y, data in
        let box = ClosureBox<@MainActor (Double, Double) -> Bool>.from(data)
        return MainActor.assumeIsolated { box.body(x, y) } ? 1 : 0
    }
    return attach(instance, "scroll", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.double, .double], returns: .boolean)
}

/// Connects a handler for GtkGestureClick's "pressed" (the press count, then the position in
/// the widget's coordinates).
@discardableResult
func connectPressed(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Int, Double, Double) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, gint, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, x, y, data in
        let box = ClosureBox<@MainActor (Int, Double, Double) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(Int(presses), x, y) }
    }
    return attach(instance, "pressed", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.int, .double, .double])
}

/// Connects a handler for GtkGestureClick's "released" (the press count; the position is not used).
@discardableResult
func connectReleased(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Int) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, gint, Double, Double, UnsafeMutableRawPointer?) -> Void = { _, presses, _, _, data in
        let box = ClosureBox<@MainActor (Int) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(Int(presses)) }
    }
    return attach(instance, "released", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.int, .double, .double])
}

/// Connects a handler for signals that pass a position and a count (GtkSelectionModel's
/// "selection-changed").
@discardableResult
func connectRange(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor (Int, Int) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, guint, guint, UnsafeMutableRawPointer?) -> Void = { _, position, count, data in
        let box = ClosureBox<@MainActor (Int, Int) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(Int(position), Int(count)) }
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.uint, .uint])
}

/// Connects a handler for GApplication's "command-line" (the GApplicationCommandLine; the
/// handler returns the exit status).
@discardableResult
func connectCommandLine(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (UnsafeMutablePointer<GApplicationCommandLine>) -> Int32) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GApplicationCommandLine>?, UnsafeMutableRawPointer?) -> gint = { _, line, data in
        let box = ClosureBox<@MainActor (UnsafeMutablePointer<GApplicationCommandLine>) -> Int32>.from(data)
        nonisolated(unsafe) let line = line
        return MainActor.assumeIsolated { box.body(line!) }
    }
    return attach(instance, "command-line", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.pointer], returns: .int)
}

/// Connects a handler for GtkDragSource's "prepare" (the handler gives the drag's content, a
/// new reference, or nil for no drag).
@discardableResult
func connectPrepare(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor () -> UnsafeMutablePointer<GdkContentProvider>?) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, Double, Double, UnsafeMutableRawPointer?) -> UnsafeMutablePointer<GdkContentProvider>? = { _, _, _, data in
        let box = ClosureBox<@MainActor () -> UnsafeMutablePointer<GdkContentProvider>?>.from(data)
        nonisolated(unsafe) var content: UnsafeMutablePointer<GdkContentProvider>?
        MainActor.assumeIsolated { content = box.body() }
        return content
    }
    return attach(instance, "prepare", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.double, .double], returns: .pointer)
}

/// Connects a handler for "response" signals that pass a response ID (GtkDialog, GtkNativeDialog).
@discardableResult
func connectResponse(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (Int32) -> Void) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, gint, UnsafeMutableRawPointer?) -> Void = { _, response, data in
        let box = ClosureBox<@MainActor (Int32) -> Void>.from(data)
        MainActor.assumeIsolated { box.body(response) }
    }
    return attach(instance, "response", ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [.int])
}

/// Connects a handler for signals whose handler returns a gboolean and takes only the instance
/// (GtkWindow's "close-request": true stops the window from closing).
@discardableResult
func connectBool(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping @MainActor () -> Bool) -> UInt {
    let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
        let box = ClosureBox<@MainActor () -> Bool>.from(data)
        return MainActor.assumeIsolated { box.body() } ? 1 : 0
    }
    return attach(instance, signal, ClosureBox(handler), unsafeBitCast(trampoline, to: GCallback.self), [], returns: .boolean)
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
