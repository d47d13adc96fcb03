import CGtk

/// Adds a GAction named `name` to `map` (the application or the window) that runs `handler`;
/// with `parameter`, the action takes a string ("win.mode::video").
@MainActor
@discardableResult
func addAction(_ map: UnsafeMutableRawPointer, _ name: String, parameter: Bool = false, _ handler: @escaping @MainActor (String?) -> Void) -> OpaquePointer {
    let action = g_simple_action_new(name, parameter ? pinhole_variant_type_string() : nil)!
    connect(UnsafeMutableRawPointer(action), "activate") { (argument: UnsafeMutableRawPointer?) in
        var text: String?
        if let argument {
            let variant = OpaquePointer(argument)
            text = String(cString: g_variant_get_string(variant, nil))
        }
        handler(text)
    }
    g_action_map_add_action(OpaquePointer(map), action)
    g_object_unref(UnsafeMutableRawPointer(action))
    return action
}

/// Adds a stateful GAction named `name` to `map` for a choice among strings (its state is the
/// choice, "app.flash::on" one of its values): a menu shows its items as radio items with the
/// choice marked, and toggle buttons for its values are active when it is theirs. Activating it
/// runs `handler` with the value asked for; the state follows what the owner then chose
/// (`setState`), not the request, so a refused choice is never shown as made.
@MainActor
func addChoiceAction(_ map: UnsafeMutableRawPointer, _ name: String, initial: String, _ handler: @escaping @MainActor (String) -> Void) -> OpaquePointer {
    let action = g_simple_action_new_stateful(name, pinhole_variant_type_string(), g_variant_new_string(initial))!
    connect(UnsafeMutableRawPointer(action), "activate") { (argument: UnsafeMutableRawPointer?) in
        guard let argument else { return }
        handler(String(cString: g_variant_get_string(OpaquePointer(argument), nil)))
    }
    g_action_map_add_action(OpaquePointer(map), action)
    g_object_unref(UnsafeMutableRawPointer(action))
    return action
}

/// Adds a stateful GAction named `name` to `map` for something on or off: a menu shows a check
/// box, a toggle button is active while it is on. Activating it runs `handler` (which turns it
/// over in the owner); the state follows the owner (`setState`).
@MainActor
func addToggleAction(_ map: UnsafeMutableRawPointer, _ name: String, initial: Bool, _ handler: @escaping @MainActor () -> Void) -> OpaquePointer {
    let action = g_simple_action_new_stateful(name, nil, g_variant_new_boolean(initial ? 1 : 0))!
    connect(UnsafeMutableRawPointer(action), "activate") { (_: UnsafeMutableRawPointer?) in handler() }
    g_action_map_add_action(OpaquePointer(map), action)
    g_object_unref(UnsafeMutableRawPointer(action))
    return action
}

/// Sets a choice action's state (its menus and buttons follow), when it changed.
func setState(_ action: OpaquePointer, _ value: String) {
    if let state = g_action_get_state(action) {
        defer { g_variant_unref(state) }
        if String(cString: g_variant_get_string(state, nil)) == value { return }
    }
    g_simple_action_set_state(action, g_variant_new_string(value))
}

/// Sets a toggle action's state (its menus and buttons follow), when it changed.
func setState(_ action: OpaquePointer, _ value: Bool) {
    if let state = g_action_get_state(action) {
        defer { g_variant_unref(state) }
        if (g_variant_get_boolean(state) != 0) == value { return }
    }
    g_simple_action_set_state(action, g_variant_new_boolean(value ? 1 : 0))
}

/// Adds a GAction named `name` to `map` that takes a list of strings (GVariant type "as":
/// `gapplication action APP.ID import-files "['/a.jpg', '/b.mp4']"`) and runs `handler` with it.
@MainActor
@discardableResult
func addListAction(_ map: UnsafeMutableRawPointer, _ name: String, _ handler: @escaping @MainActor ([String]) -> Void) -> OpaquePointer {
    let type = g_variant_type_new("as")
    let action = g_simple_action_new(name, type)!
    g_variant_type_free(type)
    connect(UnsafeMutableRawPointer(action), "activate") { (argument: UnsafeMutableRawPointer?) in
        var items: [String] = []
        var count: gsize = 0
        if let argument, let strings = g_variant_get_strv(OpaquePointer(argument), &count) {
            for index in 0..<Int(count) { if let string = strings[index] { items.append(String(cString: string)) } }
            g_free(UnsafeMutableRawPointer(strings))
        }
        handler(items)
    }
    g_action_map_add_action(OpaquePointer(map), action)
    g_object_unref(UnsafeMutableRawPointer(action))
    return action
}

/// Enables or disables an action (its buttons and shortcuts follow).
func setEnabled(_ action: OpaquePointer, _ enabled: Bool) {
    g_simple_action_set_enabled(action, enabled ? 1 : 0)
}

/// Binds keyboard shortcuts to a detailed action name.
func setAccels(_ app: UnsafeMutablePointer<GtkApplication>, _ action: String, _ accels: [String]) {
    var pointers: [UnsafePointer<CChar>?] = accels.map { UnsafePointer(strdup($0)) } + [nil]
    pointers.withUnsafeMutableBufferPointer { gtk_application_set_accels_for_action(app, action, $0.baseAddress) }
    for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
}

/// A widget's own actions and keys: a GAction group inserted on the widget under `prefix`
/// ("viewer.next" for the viewer page's buttons and menus inside it), and a shortcut controller
/// on the widget whose keys run actions while the widget is shown. Its scope is
/// `GTK_SHORTCUT_SCOPE_MANAGED`: the window runs it whatever has the focus, and GTK skips it
/// while the widget is unmapped (a page of a GtkStack that is not the one shown), so a page's
/// keys work exactly while that page shows. It runs in the capture phase, before the focused
/// widget, as application accelerators do (Space takes a photo even with a button focused);
/// a dialog or picker is a window of its own, so typing in its text entry reaches no page's keys.
@MainActor
final class WidgetActions {
    /// The group's prefix: "viewer" for "viewer.next".
    let prefix: String
    /// The GSimpleActionGroup (the widget holds its reference).
    private let group: UnsafeMutablePointer<GSimpleActionGroup>
    /// The GtkShortcutController (the widget holds its reference).
    private let shortcuts: OpaquePointer

    /// Inserts a new group named `prefix` on `widget`, and its shortcut controller.
    init(_ prefix: String, on widget: Widget) {
        self.prefix = prefix
        group = g_simple_action_group_new()
        gtk_widget_insert_action_group(widget, prefix, OpaquePointer(group))
        g_object_unref(UnsafeMutableRawPointer(group))
        shortcuts = gtk_shortcut_controller_new()!
        gtk_shortcut_controller_set_scope(shortcuts, GTK_SHORTCUT_SCOPE_MANAGED)
        gtk_event_controller_set_propagation_phase(shortcuts, GTK_PHASE_CAPTURE)
        gtk_widget_add_controller(widget, shortcuts)
    }

    /// Adds the action `prefix.name` that runs `handler`, run also by each of `keys` (GTK
    /// accelerator strings: "space", "<Control>plus") while the widget is shown.
    @discardableResult
    func add(_ name: String, keys: [String] = [], _ handler: @escaping @MainActor () -> Void) -> OpaquePointer {
        let action = addAction(UnsafeMutableRawPointer(group), name) { _ in handler() }
        bind(keys, to: prefix + "." + name)
        return action
    }

    /// Has each of `keys` run the action `action` (any action the widget reaches, "app.copy"
    /// among them) while the widget is shown.
    func bind(_ keys: [String], to action: String) {
        for key in keys {
            guard let trigger = gtk_shortcut_trigger_parse_string(key) else {
                journal("no such key: \(key)")
                continue
            }
            // The shortcut takes the trigger and the action, and the controller the shortcut.
            gtk_shortcut_controller_add_shortcut(shortcuts, gtk_shortcut_new(trigger, gtk_named_action_new(action)))
        }
    }
}
