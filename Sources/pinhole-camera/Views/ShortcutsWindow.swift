import Foundation
import CameraModel
import CGtk

/// The keyboard shortcuts window (Ctrl+?), built from GtkBuilder XML as GTK 4.8 requires.
@MainActor
enum ShortcutsWindow {
    /// Each shortcut: accelerator and title.
    static var shortcuts: [(String, String)] {
        [("space", L("Take a photo, or start and stop recording")), ("b", L("Take a burst of photos")), ("v", L("Switch between photo and video")),
         ("c", L("Switch camera")), ("t", L("Change the self-timer")), ("g", L("Show or hide the grid")), ("p", L("Pause or resume recording")),
         ("Escape", L("Cancel the self-timer, or go back")), ("<Control>g", L("Show the gallery")), ("<Control>a", L("Select all in the gallery")), ("<Alt>Left", L("Go back")),
         ("Left Right", L("Previous or next item in the viewer")), ("k", L("Play or pause a video")), ("<Shift>Left <Shift>Right", L("Back or forward 5 seconds in a video")),
         ("<Control>plus <Control>minus", L("Zoom in or out")), ("<Control>0", L("Fit to the window")),
         ("f", L("Mark or unmark as favourite")), ("<Alt>Return", L("Show or hide the properties")), ("Delete", L("Move to Trash")), ("<Control>c", L("Copy")), ("<Control><Shift>s", L("Save As…")),
         ("<Control>i", L("Import photos and videos")), ("<Shift><Control>i", L("Import a folder")), ("<Control>comma", L("Preferences")), ("<Control>question", L("Keyboard shortcuts")),
         ("<Control>w", L("Close the window")), ("<Control>q", L("Quit"))]
    }

    /// Attaches the shortcuts window to `window` (opened by win.show-help-overlay).
    static func attach(to window: Widget) {
        let items = shortcuts.map { accelerator, title in
            """
            <child><object class="GtkShortcutsShortcut"><property name="accelerator">\(escape(accelerator))</property><property name="title">\(escape(title))</property></object></child>
            """
        }.joined()
        let xml = """
        <interface><object class="GtkShortcutsWindow" id="help_overlay"><property name="modal">1</property><property name="title">\(escape(L("Keyboard shortcuts")))</property>
        <child><object class="GtkShortcutsSection"><property name="section-name">camera</property>
        <child><object class="GtkShortcutsGroup"><property name="title">\(escape(L("Camera")))</property>\(items)</object></child>
        </object></child></object></interface>
        """
        let builder = gtk_builder_new_from_string(xml, -1)
        guard let overlay = gtk_builder_get_object(builder, "help_overlay") else { return }
        gtk_application_window_set_help_overlay(cast(window), OpaquePointer(overlay))
        g_object_unref(UnsafeMutableRawPointer(builder))
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
