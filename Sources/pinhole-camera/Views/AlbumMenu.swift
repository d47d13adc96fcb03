import CameraModel
import CGtk

/// The Album menu of the gallery's and the viewer's header bars: Add to Album (each album, and
/// New Album…), and for the album shown, Add Photos…, Choose Cover…, Remove from This Album, Rename Album… and
/// Delete Album. One GMenu, rebuilt when the library's albums change (observed); its items are the app's
/// actions, which act on the viewer's item or the gallery's selection.
@MainActor
final class AlbumMenu {
    /// The menu model both buttons show.
    let menu: OpaquePointer
    private let albums: OpaquePointer
    private let gallery: GalleryModel

    init(gallery: GalleryModel) {
        self.gallery = gallery
        menu = g_menu_new()
        albums = g_menu_new()
        let add = g_menu_new()!
        g_menu_append_section(add, nil, cast(albums))
        g_menu_append(add, L("New Album…"), "app.new-album")
        g_menu_append_submenu(menu, L("Add to Album"), cast(add))
        g_object_unref(UnsafeMutableRawPointer(add))
        let shown = g_menu_new()!
        for (title, action) in [(L("Add Photos…"), "app.add-photos-to-album"), (L("Choose Cover…"), "app.choose-album-cover"),
                                (L("Remove from This Album"), "app.remove-from-album"),
                                (L("Rename Album…"), "app.rename-album"), (L("Delete Album"), "app.delete-album")] {
            g_menu_append(shown, title, action)
        }
        g_menu_append_section(menu, nil, cast(shown))
        g_object_unref(UnsafeMutableRawPointer(shown))
    }

    /// Keeps the albums' items in step with the library's albums (observed) until the
    /// subscription ends.
    func watch() -> Subscription {
        observe { [weak self] in self?.rebuild() }
    }

    /// The albums again, one item each ("app.add-to-album" with the album's name).
    private func rebuild() {
        g_menu_remove_all(albums)
        for album in gallery.albums {
            let item = g_menu_item_new(album.name, nil)!
            g_menu_item_set_action_and_target_value(item, "app.add-to-album", g_variant_new_string(album.name))
            g_menu_append_item(albums, item)
            g_object_unref(UnsafeMutableRawPointer(item))
        }
    }

    /// A header bar button opening the menu.
    func button() -> Widget {
        let button = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(cast(button), "folder-symbolic")
        gtk_menu_button_set_menu_model(cast(button), cast(menu))
        label(button, L("Albums"))
        return button
    }

    /// Asks for a name in a small dialog titled `heading` (Enter confirms with `confirm`, Escape
    /// cancels); `done` gets the text when confirmed.
    static func askForName(parent: Widget?, heading: String, body: String, initial: String, confirm: String,
                           done: @escaping @MainActor (String) -> Void) {
        let dialog = adw_message_dialog_new(parent.map { cast($0) }, heading, body)!
        gtk_window_set_title(cast(dialog), heading)
        let entry = gtk_entry_new()!
        gtk_editable_set_text(cast(entry), initial)
        gtk_entry_set_activates_default(cast(entry), 1)
        label(entry, L("Album Name"))
        adw_message_dialog_set_extra_child(cast(dialog), entry)
        adw_message_dialog_add_response(cast(dialog), "cancel", L("_Cancel"))
        adw_message_dialog_add_response(cast(dialog), "ok", confirm)
        adw_message_dialog_set_response_appearance(cast(dialog), "ok", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(cast(dialog), "ok")
        adw_message_dialog_set_close_response(cast(dialog), "cancel")
        connect(UnsafeMutableRawPointer(dialog), "response") { (response: UnsafeMutableRawPointer?) in
            guard let response, String(cString: response.assumingMemoryBound(to: CChar.self)) == "ok" else { return }
            done(String(cString: gtk_editable_get_text(cast(entry))))
        }
        gtk_window_present(cast(dialog))
        gtk_widget_grab_focus(entry)
    }

    /// Asks "Delete Album “NAME”?" (its items stay); `done` runs when confirmed.
    static func confirmDeletion(parent: Widget?, name: String, done: @escaping @MainActor () -> Void) {
        let heading = CameraWords.translate("Delete Album “%@”?", name)
        let dialog = adw_message_dialog_new(parent.map { cast($0) }, heading, L("Its photos and videos stay in the library."))!
        gtk_window_set_title(cast(dialog), heading)
        adw_message_dialog_add_response(cast(dialog), "cancel", L("_Cancel"))
        adw_message_dialog_add_response(cast(dialog), "delete", L("_Delete"))
        adw_message_dialog_set_response_appearance(cast(dialog), "delete", ADW_RESPONSE_DESTRUCTIVE)
        adw_message_dialog_set_default_response(cast(dialog), "cancel")
        adw_message_dialog_set_close_response(cast(dialog), "cancel")
        connect(UnsafeMutableRawPointer(dialog), "response") { (response: UnsafeMutableRawPointer?) in
            guard let response, String(cString: response.assumingMemoryBound(to: CChar.self)) == "delete" else { return }
            done()
        }
        gtk_window_present(cast(dialog))
    }
}
