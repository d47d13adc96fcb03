import CameraModel
import CGtk
import Foundation
import Media
import PhotoLibrary

/// "Recently Deleted": what the library moved to the freedesktop Trash and is still there, most
/// recently deleted first, each with Restore (back where it was, the same item) and Delete
/// Permanently; Empty Trash deletes them all for good. Both ask first.
@MainActor
final class TrashPage {
    /// The whole page: its header bar over the list (or the empty state).
    let widget: Widget
    private let list: Widget
    private let stack: Widget
    private let emptyTrash: Widget
    private let gallery: GalleryModel
    private var rows: [Widget] = []
    /// The window, for the confirmation dialogs.
    var parent: Widget?
    /// Says what was done (a toast).
    var onToast: (String) -> Void = { _ in }

    init(gallery: GalleryModel) {
        self.gallery = gallery
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        let header = adw_header_bar_new()!
        adw_header_bar_pack_start(cast(header), actionButton("go-previous-symbolic", L("Back to Gallery"), "app.back"))
        adw_header_bar_set_title_widget(cast(header), adw_window_title_new(L("Recently Deleted"), ""))
        emptyTrash = gtk_button_new_with_mnemonic(L("_Empty Trash"))
        addClass(emptyTrash, "destructive-action")
        adw_header_bar_pack_end(cast(header), emptyTrash)
        gtk_box_append(cast(widget), header)

        list = gtk_list_box_new()
        gtk_list_box_set_selection_mode(cast(list), GTK_SELECTION_NONE)
        addClass(list, "boxed-list")
        gtk_widget_set_valign(list, GTK_ALIGN_START)
        let clamp = adw_clamp_new()!
        adw_clamp_set_child(cast(clamp), list)
        gtk_widget_set_margin_top(clamp, 18)
        gtk_widget_set_margin_bottom(clamp, 18)
        gtk_widget_set_margin_start(clamp, 12)
        gtk_widget_set_margin_end(clamp, 12)
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(cast(scrolled), clamp)
        let empty = adw_status_page_new()!
        adw_status_page_set_icon_name(cast(empty), "user-trash-symbolic")
        adw_status_page_set_title(cast(empty), L("Nothing Deleted Recently"))
        adw_status_page_set_description(cast(empty), L("Photos and videos you delete stay in the Trash until it is emptied."))
        stack = gtk_stack_new()
        gtk_stack_add_named(cast(stack), scrolled, "list")
        gtk_stack_add_named(cast(stack), empty, "empty")
        gtk_widget_set_vexpand(stack, 1)
        gtk_box_append(cast(widget), stack)
        // Escape goes back, as in the viewer; the page's widget holds the key, which works while
        // the page is shown.
        WidgetActions("trash", on: widget).bind(["Escape"], to: "app.back")
        connect(UnsafeMutableRawPointer(emptyTrash), "clicked") { [weak self] in
            guard let self else { return }
            self.confirmDeletion(of: self.gallery.trashed.map(\.id))
        }
    }

    /// Reads the Trash again and redraws the list.
    func reload() {
        Task {
            await gallery.loadTrashed()
            rebuild()
        }
    }

    private func rebuild() {
        for row in rows { gtk_list_box_remove(cast(list), row) }
        rows = []
        for item in gallery.trashed { addRow(item) }
        gtk_stack_set_visible_child_name(cast(stack), gallery.trashed.isEmpty ? "empty" : "list")
        gtk_widget_set_sensitive(emptyTrash, gallery.trashed.isEmpty ? 0 : 1)
    }

    /// A row: the thumbnail, the file's name, when it was deleted, Restore and Delete Permanently.
    private func addRow(_ item: TrashedAsset) {
        let name = Sharing.fileName(of: item.originalPath)
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), name)
        adw_preferences_row_set_use_markup(cast(row), 0)
        let date = Date(timeIntervalSince1970: item.deletionDate).formatted(date: .abbreviated, time: .shortened)
        adw_action_row_set_subtitle(cast(row), CameraWords.translate("Deleted %@", date))
        let picture = gtk_picture_new()!
        gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_COVER)
        gtk_widget_set_size_request(picture, 48, 48)
        adw_action_row_add_prefix(cast(row), picture)
        if item.asset.mediaType == .photo {
            let path = item.trashedPath
            // Held until the thumbnail comes: a window destroyed meanwhile (a quit just after
            // Recently Deleted opened) freed the picture under it (Gtk-CRITICAL, found by the monkey).
            let keep = g_object_ref(UnsafeMutableRawPointer(picture))
            Task {
                defer { g_object_unref(keep) }
                guard let texture = await decodedTexture(ofFile: path, longestSide: 96) else { return }
                gtk_picture_set_paintable(cast(picture), cast(texture))
                g_object_unref(UnsafeMutableRawPointer(texture))
            }
        } else {
            gtk_picture_set_paintable(cast(picture), nil)
            let icon = gtk_image_new_from_icon_name("video-x-generic-symbolic")!
            adw_action_row_add_prefix(cast(row), icon)
        }
        let restore = gtk_button_new_with_label(L("Restore"))!
        label(restore, CameraWords.translate("Restore %@", name))
        gtk_widget_set_valign(restore, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(cast(row), restore)
        let delete = gtk_button_new_from_icon_name("edit-delete-symbolic")!
        label(delete, CameraWords.translate("Delete %@ Permanently", name))
        addClass(delete, "flat")
        gtk_widget_set_valign(delete, GTK_ALIGN_CENTER)
        adw_action_row_add_suffix(cast(row), delete)
        let id = item.id
        connect(UnsafeMutableRawPointer(restore), "clicked") { [weak self] in
            guard let self else { return }
            Task {
                if await self.gallery.restore([id]) { self.onToast(CameraWords.translate("%@ restored", name)) }
                self.rebuild()
            }
        }
        connect(UnsafeMutableRawPointer(delete), "clicked") { [weak self] in self?.confirmDeletion(of: [id]) }
        gtk_list_box_append(cast(list), row)
        rows.append(row)
    }

    /// Asks before deleting `ids` for good, then deletes them.
    private func confirmDeletion(of ids: [String]) {
        guard !ids.isEmpty else { return }
        let heading = ids.count == 1 ? L("Delete Permanently?") : CameraWords.translate("Delete %@ Items Permanently?", String(ids.count))
        let dialog = adw_message_dialog_new(parent.map { cast($0) }, heading, L("They cannot be restored."))!
        adw_message_dialog_add_response(cast(dialog), "cancel", L("_Cancel"))
        adw_message_dialog_add_response(cast(dialog), "delete", L("_Delete"))
        adw_message_dialog_set_response_appearance(cast(dialog), "delete", ADW_RESPONSE_DESTRUCTIVE)
        adw_message_dialog_set_default_response(cast(dialog), "cancel")
        adw_message_dialog_set_close_response(cast(dialog), "cancel")
        connect(UnsafeMutableRawPointer(dialog), "response") { [weak self] (response: UnsafeMutableRawPointer?) in
            guard let self, let response, String(cString: response.assumingMemoryBound(to: CChar.self)) == "delete" else { return }
            Task {
                if await self.gallery.deletePermanently(ids) {
                    self.onToast(ids.count == 1 ? L("Deleted permanently") : CameraWords.translate("%@ items deleted permanently", String(ids.count)))
                }
                self.rebuild()
            }
        }
        gtk_window_present(cast(dialog))
    }
}
