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
