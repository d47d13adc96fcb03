import CGtk
import Glibc
import Media
import PhotoLibrary

/// Open With…: the desktop's own app chooser through the OpenURI portal (xdg-desktop-portal)
/// where one runs on the session bus, else GTK's app chooser dialog. The portal gets the file as
/// a read-only descriptor (what a sandboxed app would have to hand over too) and `ask` set, so
/// it always offers the choice instead of opening the default app at once.
@MainActor
enum OpenWith {
    /// The portal's bus name.
    private static let portal = "org.freedesktop.portal.Desktop"
    /// The portal's object.
    private static let portalPath = "/org/freedesktop/portal/desktop"
    /// The interface that opens files and URIs.
    private static let openURI = "org.freedesktop.portal.OpenURI"
    /// The interface of a request's object, which sends the answer.
    private static let request = "org.freedesktop.portal.Request"

    /// Offers the apps that open `asset` and opens it in the one chosen: through the portal when
    /// its name has an owner on `connection` (asked without blocking the main loop), else, or when
    /// the portal fails, through GTK's app chooser over `parent`.
    static func open(_ asset: Asset, parent: Widget, connection: OpaquePointer?) {
        guard let connection else { return chooseApp(for: asset, parent: parent) }
        busNameHasOwner(connection, portal) { runs in
            guard runs else { return chooseApp(for: asset, parent: parent) }
            parentWindow(of: parent) { window, finished in
                openThroughPortal(asset, parentWindow: window, connection: connection) { failed in
                    finished()
                    if failed { chooseApp(for: asset, parent: parent) }
                }
            }
        }
    }

    /// The portal's name for `parent`'s window, so its chooser opens over it: `x11:ID` on X11;
    /// on Wayland `wayland:HANDLE`, exported through xdg-foreign once the compositor answers and
    /// undone by `finished`; the empty string where neither can be had (a compositor without
    /// xdg-foreign, as Weston).
    private static func parentWindow(of parent: Widget, _ body: @escaping @MainActor (String, _ finished: @escaping @MainActor () -> Void) -> Void) {
        let window = pinhole_x11_window(parent)
        if window != 0 { return body("x11:" + String(window, radix: 16), {}) }
        guard let toplevel = pinhole_wayland_toplevel(parent) else { return body("", {}) }
        let box = Unmanaged.passRetained(ClosureBox<@MainActor (String) -> Void> { handle in
            body("wayland:" + handle) { gdk_wayland_toplevel_unexport_handle(toplevel) }
        })
        let exported: PinholeWaylandExported = { _, handle, data in
            let box = Unmanaged<ClosureBox<@MainActor (String) -> Void>>.fromOpaque(data!).takeUnretainedValue()
            let text = handle.map { String(cString: $0) } ?? ""
            MainActor.assumeIsolated { box.body(text) }
        }
        // GDK lets go of the box (its destroy function) once the handle came, or at unexport.
        let release: GDestroyNotify = { data in Unmanaged<ClosureBox<@MainActor (String) -> Void>>.fromOpaque(data!).release() }
        if gdk_wayland_toplevel_export_handle(toplevel, exported, box.toOpaque(), release) == 0 {
            box.release()
            body("", {})
        }
    }

    /// GTK's app chooser for `asset`'s kind of file; the app chosen opens it.
    static func chooseApp(for asset: Asset, parent: Widget) {
        let file = g_file_new_for_path(asset.path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        let dialog = gtk_app_chooser_dialog_new(cast(parent), GTK_DIALOG_MODAL, file)!
        connectResponse(UnsafeMutableRawPointer(dialog)) { response in
            if response == GTK_RESPONSE_OK.rawValue, let info = gtk_app_chooser_get_app_info(OpaquePointer(dialog)) {
                let launched = g_file_new_for_path(asset.path)
                let list = g_list_append(nil, UnsafeMutableRawPointer(launched))
                g_app_info_launch(info, list, nil, nil)
                g_list_free(list)
                g_object_unref(UnsafeMutableRawPointer(launched))
                g_object_unref(UnsafeMutableRawPointer(info))
            }
            gtk_window_destroy(cast(dialog))
        }
        gtk_window_present(cast(dialog))
    }

    /// `OpenURI.OpenFile(parent_window, fd, {ask: true, handle_token})`, then the request's
    /// `Response` signal: `done(true)` when the call fails or the portal answers that it failed
    /// (response 2), `done(false)` when the person chose an app or cancelled (0 or 1).
    private static func openThroughPortal(_ asset: Asset, parentWindow: String, connection: OpaquePointer, done: @escaping @MainActor (Bool) -> Void) {
        // A regular file only, opened without blocking (a FIFO put in the library's folder by
        // another program must not stop the main loop).
        guard let file = try? RegularFile(path: asset.path) else { return done(true) }
        let descriptor = file.duplicateDescriptor()
        guard descriptor >= 0 else { return done(true) }
        defer { close(descriptor) }
        // The request's path is known before the call from the token, so its Response cannot
        // arrive before the subscription (portals older than version 0.9 may choose another
        // path: the reply says which, and the subscription moves there).
        let token = "pinhole\(UInt32.random(in: 1...UInt32.max))"
        let sender = g_dbus_connection_get_unique_name(connection).map { String(cString: $0) } ?? ""
        let expected = portalPath + "/request/" + String(sender.dropFirst()).replacingOccurrences(of: ".", with: "_") + "/" + token
        let state = PortalRequest()
        let listen: @MainActor (String) -> Void = { path in
            state.subscription = subscribeDBusSignal(connection, sender: portal, interface: request, member: "Response", path: path) { parameters in
                guard !state.answered else { return }
                state.answered = true
                g_dbus_connection_signal_unsubscribe(connection, state.subscription)
                var code: guint32 = 2
                if g_variant_n_children(parameters) >= 1, let first = g_variant_get_child_value(parameters, 0) {
                    if g_variant_classify(first) == G_VARIANT_CLASS_UINT32 { code = g_variant_get_uint32(first) }
                    g_variant_unref(first)
                }
                done(code == 2)
            }
        }
        listen(expected)
        callDBusForReply(connection, destination: portal, path: portalPath, interface: openURI, method: "OpenFile",
                         parameters: openFileParameters(parentWindow: parentWindow, token: token), fileDescriptors: [descriptor]) { reply in
            guard let reply else {
                g_dbus_connection_signal_unsubscribe(connection, state.subscription)
                return done(true)
            }
            guard !state.answered, g_variant_n_children(reply) == 1, let handle = g_variant_get_child_value(reply, 0) else { return }
            defer { g_variant_unref(handle) }
            let path = String(cString: g_variant_get_string(handle, nil))
            if path != expected {
                g_dbus_connection_signal_unsubscribe(connection, state.subscription)
                listen(path)
            }
        }
    }

    /// `(s parent_window, h fd, a{sv} options)`: the window (see `parentWindow(of:)`),
    /// descriptor 0 of the message's list, `ask` and the request's token.
    private static func openFileParameters(parentWindow: String, token: String) -> OpaquePointer? {
        var options: [OpaquePointer?] = [
            g_variant_new_dict_entry(g_variant_new_string("ask"), g_variant_new_variant(g_variant_new_boolean(1))),
            g_variant_new_dict_entry(g_variant_new_string("handle_token"), g_variant_new_variant(g_variant_new_string(token))),
        ]
        let dictionary = options.withUnsafeMutableBufferPointer { g_variant_new_array(nil, $0.baseAddress, gsize($0.count)) }
        var children: [OpaquePointer?] = [g_variant_new_string(parentWindow), g_variant_new_handle(0), dictionary]
        return children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
    }
}

/// One OpenFile request in flight: the subscription to its Response and whether it came.
@MainActor
private final class PortalRequest {
    /// The signal subscription's identifier.
    var subscription: UInt32 = 0
    /// Whether the Response arrived (later ones, and a late reply, are ignored).
    var answered = false
}
