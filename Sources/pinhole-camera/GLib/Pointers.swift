import CGtk

/// GObject "casts": GTK's cast macros do not import, and every GObject type is a pointer to a
/// struct that starts with its parent, so a cast is a reinterpretation of the pointer.
@inline(__always)
func cast<T>(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<T> {
    pointer!.assumingMemoryBound(to: T.self)
}

/// The same for typed pointers.
@inline(__always)
func cast<T, U>(_ pointer: UnsafeMutablePointer<U>?) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(pointer!).assumingMemoryBound(to: T.self)
}

/// The same for opaque pointers (final GObject types import as OpaquePointer).
@inline(__always)
func cast<T>(_ pointer: OpaquePointer?) -> UnsafeMutablePointer<T> {
    UnsafeMutablePointer<T>(pointer!)
}

/// A widget as `GtkWidget *`.
typealias Widget = UnsafeMutablePointer<GtkWidget>

/// Sets a CSS class on a widget.
func addClass(_ widget: Widget, _ name: String) { gtk_widget_add_css_class(widget, name) }

/// Sets the tooltip and accessible label of an icon-only widget.
func label(_ widget: Widget, _ text: String) {
    gtk_widget_set_tooltip_text(widget, text)
    pinhole_set_accessible_label(widget, text)
}

/// An icon-only button that runs `action`, named `name` for its tooltip and assistive technology.
func actionButton(_ icon: String, _ name: String, _ action: String) -> Widget {
    let button = gtk_button_new_from_icon_name(icon)!
    label(button, name)
    gtk_actionable_set_action_name(cast(button), action)
    return button
}

/// The same, for functions that take a final GObject type (imported as OpaquePointer).
@inline(__always)
func cast<U>(_ pointer: UnsafeMutablePointer<U>?) -> OpaquePointer {
    OpaquePointer(pointer!)
}

/// The same, from an opaque pointer to an opaque pointer (identity, for uniform call sites).
@inline(__always)
func cast(_ pointer: OpaquePointer?) -> OpaquePointer { pointer! }
