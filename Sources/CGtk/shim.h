// GTK 4, libadwaita and GLib for the app, plus what Swift cannot reach through the headers:
// gettext's bindings (not exported by Swift's Glibc), the hooks that let the GLib main loop drain
// Dispatch's main queue (so @MainActor code runs inside the app), and a few macro stand-ins.
#include <gtk/gtk.h>
#include <adwaita.h>
#include <libintl.h>
#include <locale.h>
#include <glib-unix.h>
#include <sys/eventfd.h>

/// Dispatch's main-queue wake-up descriptor and drain hook (libdispatch's private SPI, the one
/// Foundation's RunLoop uses on Linux).
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *msg);

static inline int pinhole_main_queue_fd(void) { return _dispatch_get_main_queue_handle_4CF(); }
/// Clears the wake-up (an eventfd that stays readable until read: left set, the main loop would
/// spin on it and starve GTK's lower-priority drawing) and runs what the main queue holds.
static inline void pinhole_drain_main_queue(int fd) {
    eventfd_t pending;
    eventfd_read(fd, &pending);
    _dispatch_main_queue_callback_4CF(NULL);
}

/// G_TYPE_* constants are macros over function calls.
static inline GType pinhole_type_string(void) { return G_TYPE_STRING; }
static inline GType pinhole_type_boolean(void) { return G_TYPE_BOOLEAN; }
static inline GType pinhole_type_int(void) { return G_TYPE_INT; }
static inline GType pinhole_type_double(void) { return G_TYPE_DOUBLE; }
static inline GType pinhole_type_file_list(void) { return GDK_TYPE_FILE_LIST; }

/// Sets a string/boolean/int property without the variadic g_object_set.
static inline void pinhole_set_string(gpointer object, const char *name, const char *value) {
    GValue v = G_VALUE_INIT; g_value_init(&v, G_TYPE_STRING); g_value_set_string(&v, value);
    g_object_set_property(G_OBJECT(object), name, &v); g_value_unset(&v);
}
static inline void pinhole_set_boolean(gpointer object, const char *name, gboolean value) {
    GValue v = G_VALUE_INIT; g_value_init(&v, G_TYPE_BOOLEAN); g_value_set_boolean(&v, value);
    g_object_set_property(G_OBJECT(object), name, &v); g_value_unset(&v);
}
static inline void pinhole_set_int(gpointer object, const char *name, int value) {
    GValue v = G_VALUE_INIT; g_value_init(&v, G_TYPE_INT); g_value_set_int(&v, value);
    g_object_set_property(G_OBJECT(object), name, &v); g_value_unset(&v);
}
/// Sets an accessible label (gtk_accessible_update_property is variadic).
static inline void pinhole_set_accessible_label(gpointer widget, const char *label) {
    gtk_accessible_update_property(GTK_ACCESSIBLE(widget), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
}
/// A state-less GSimpleAction's parameter type "s".
static inline const GVariantType *pinhole_variant_type_string(void) { return G_VARIANT_TYPE_STRING; }

/// Prints `text` on the standard output of the program that gave the command line (this one, or
/// a second `pinhole-camera` whose command line reached the running one): g_application_command_line_print is variadic.
static inline void pinhole_command_line_print(GApplicationCommandLine *line, const char *text) {
    g_application_command_line_print(line, "%s", text);
}
/// The same on its standard error.
static inline void pinhole_command_line_printerr(GApplicationCommandLine *line, const char *text) {
    g_application_command_line_printerr(line, "%s", text);
}

/// GDK's X11 surface type and window ID, declared here rather than through <gdk/x11/gdkx.h>,
/// which would bring all of Xlib's names into Swift.
extern GType gdk_x11_surface_get_type(void);
extern unsigned long gdk_x11_surface_get_xid(GdkSurface *surface);
/// The X11 window ID of `widget`'s toplevel (what a portal's "parent_window" calls x11:ID), or 0
/// when it is not on X11 or not realized.
static inline unsigned long pinhole_x11_window(GtkWidget *widget) {
    GtkNative *native = gtk_widget_get_native(widget);
    GdkSurface *surface = native ? gtk_native_get_surface(native) : NULL;
    if (surface == NULL || !G_TYPE_CHECK_INSTANCE_TYPE(surface, gdk_x11_surface_get_type())) return 0;
    return gdk_x11_surface_get_xid(surface);
}

/// GDK's Wayland toplevel type and its xdg-foreign export, declared here as the X11 ones are
/// (<gdk/wayland/gdkwayland.h> needs libwayland's headers). The handle comes asynchronously,
/// once the compositor answers; the export is undone with unexport.
extern GType gdk_wayland_toplevel_get_type(void);
typedef void (*PinholeWaylandExported)(GdkToplevel *toplevel, const char *handle, gpointer data);
extern gboolean gdk_wayland_toplevel_export_handle(GdkToplevel *toplevel, PinholeWaylandExported callback, gpointer data,
                                                   GDestroyNotify destroy);
extern void gdk_wayland_toplevel_unexport_handle(GdkToplevel *toplevel);
/// `widget`'s toplevel surface when it is a Wayland one, else NULL.
static inline GdkToplevel *pinhole_wayland_toplevel(GtkWidget *widget) {
    GtkNative *native = gtk_widget_get_native(widget);
    GdkSurface *surface = native ? gtk_native_get_surface(native) : NULL;
    if (surface == NULL || !G_TYPE_CHECK_INSTANCE_TYPE(surface, gdk_wayland_toplevel_get_type())) return NULL;
    return GDK_TOPLEVEL(surface);
}
