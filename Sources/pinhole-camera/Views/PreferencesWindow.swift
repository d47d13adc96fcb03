import CameraModel
import CGtk

/// Preferences (Ctrl+,): few, as GNOME apps keep them. Each row is bound to its GSettings key
/// (`g_settings_bind`): it shows the stored value, writes what the user sets at once, and follows
/// a change made elsewhere; the model follows the keys (`PreferenceStore.changes`).
@MainActor
enum PreferencesWindow {
    static func present(model: CameraModel, parent: UnsafeMutablePointer<GtkWindow>?) {
        let window = adw_preferences_window_new()!
        let page = adw_preferences_page_new()!
        let group = adw_preferences_group_new()!
        adw_preferences_group_set_title(cast(group), L("Camera"))
        let store = model.preferences
        let settings = store as? SettingsStore
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
            // Named by its row (the activatable widget is labelled by the row's title): a label of
            // its own made screen readers say the title twice.
            if settings?.bind(key, to: UnsafeMutableRawPointer(toggle), property: "active") != true {
                gtk_switch_set_active(cast(toggle), store.bool(key) ? 1 : 0)
                connectNotify(UnsafeMutableRawPointer(toggle), "active") { store.setBool(key, gtk_switch_get_active(cast(toggle)) != 0) }
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
        if settings?.bind(PreferenceKey.burstCount, to: UnsafeMutableRawPointer(spin), property: "value") != true {
            gtk_spin_button_set_value(cast(spin), Double(max(2, store.int(PreferenceKey.burstCount))))
            connect(UnsafeMutableRawPointer(spin), "value-changed") {
                store.setInt(PreferenceKey.burstCount, Int(gtk_spin_button_get_value_as_int(cast(spin))))
            }
        }
        adw_action_row_add_suffix(cast(burst), spin)
        adw_preferences_group_add(cast(group), burst)
        adw_preferences_group_add(cast(group), microphoneRow(model: model))
        adw_preferences_page_add(cast(page), cast(group))
        adw_preferences_window_add(cast(window), cast(page))
        if let parent { gtk_window_set_transient_for(cast(window), parent) }
        gtk_window_present(cast(window))
    }

    /// "Microphone": the default, or one of the sound server's microphones, filled in when the
    /// server answers (a chosen microphone that is not plugged in stays listed, by its ID).
    static func microphoneRow(model: CameraModel) -> Widget {
        let store = model.preferences
        let row = adw_combo_row_new()!
        adw_preferences_row_set_title(cast(row), L("Microphone"))
        adw_action_row_set_subtitle(cast(row), L("Where videos take their sound from"))
        let names = gtk_string_list_new(nil)!
        gtk_string_list_append(names, L("Default Microphone"))
        adw_combo_row_set_model(cast(row), names)
        g_object_unref(UnsafeMutableRawPointer(names))
        gtk_widget_set_sensitive(row, 0)
        // Held until the answer comes, so a window closed meanwhile does not free the row under it.
        let keep = g_object_ref(UnsafeMutableRawPointer(row))
        Task { @MainActor in
            defer { g_object_unref(keep) }
            let found = await model.microphones()
            let chosen = store.string(PreferenceKey.microphone)
            var ids = [""] + found.map(\.uniqueID)
            for microphone in found { gtk_string_list_append(names, microphone.localizedName) }
            if !chosen.isEmpty, !ids.contains(chosen) {
                gtk_string_list_append(names, chosen)
                ids.append(chosen)
            }
            adw_combo_row_set_selected(cast(row), guint(ids.firstIndex(of: chosen) ?? 0))
            gtk_widget_set_sensitive(row, 1)
            connectNotify(UnsafeMutableRawPointer(row), "selected") {
                let index = Int(adw_combo_row_get_selected(cast(row)))
                guard ids.indices.contains(index) else { return }
                store.setString(PreferenceKey.microphone, ids[index])
            }
        }
        return row
    }
}
