import CameraModel
import CGtk

/// Preferences (Ctrl+,): few, as GNOME apps keep them. Each row writes the GSettings key at once.
@MainActor
enum PreferencesWindow {
    static func present(model: CameraModel, parent: UnsafeMutablePointer<GtkWindow>?) {
        let window = adw_preferences_window_new()!
        let page = adw_preferences_page_new()!
        let group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), L("Camera"))
        let store = model.preferences
        let rows: [(String, String, String)] = [
            (PreferenceKey.mirrorFront, L("Mirror Front Camera"), L("The preview of a front camera is shown as in a mirror; photos never are")),
            (PreferenceKey.shutterSound, L("Shutter Sound"), L("Play a sound when a photo is taken")),
            (PreferenceKey.askBeforeSaving, L("Ask Before Saving"), L("Show each photo with Cancel and Save before it is saved")),
        ]
        for (key, title, subtitle) in rows {
            let row = adw_action_row_new()!
            adw_preferences_row_set_title(cast(row), title)
            adw_action_row_set_subtitle(cast(row), subtitle)
            let toggle = gtk_switch_new()!
            gtk_widget_set_valign(toggle, GTK_ALIGN_CENTER)
            gtk_switch_set_active(cast(toggle), store.bool(key) ? 1 : 0)
            pinhole_set_accessible_label(toggle, title)
            connect(UnsafeMutableRawPointer(toggle), "notify::active") {
                store.setBool(key, gtk_switch_get_active(cast(toggle)) != 0)
                model.preferencesChanged()
            }
            adw_action_row_add_suffix(cast(row), toggle)
            adw_action_row_set_activatable_widget(cast(row), toggle)
            adw_preferences_group_add(cast(group), row)
        }
        let burst = adw_action_row_new()!
        adw_preferences_row_set_title(cast(burst), L("Burst Photos"))
        adw_action_row_set_subtitle(cast(burst), L("Photos taken by a burst (B)"))
        let spin = gtk_spin_button_new_with_range(2, 20, 1)!
        gtk_widget_set_valign(spin, GTK_ALIGN_CENTER)
        gtk_spin_button_set_value(cast(spin), Double(max(2, store.int(PreferenceKey.burstCount))))
        connect(UnsafeMutableRawPointer(spin), "value-changed") {
            store.setInt(PreferenceKey.burstCount, Int(gtk_spin_button_get_value_as_int(cast(spin))))
        }
        adw_action_row_add_suffix(cast(burst), spin)
        adw_preferences_group_add(cast(group), burst)
        adw_preferences_page_add(cast(page), cast(group))
        adw_preferences_window_add(cast(window), cast(page))
        if let parent { gtk_window_set_transient_for(cast(window), parent) }
        gtk_window_present(cast(window))
    }
}
