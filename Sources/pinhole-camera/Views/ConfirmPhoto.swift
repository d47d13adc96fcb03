import CameraModel
import CGtk

/// "Ask before saving": the photo just taken, with Cancel and Save, before anything is written.
/// Cancel writes nothing anywhere.
@MainActor
final class ConfirmPhoto {
    /// The page (a vertical box).
    let widget: Widget
    let picture: Widget
    /// How many photos wait behind the one shown (a burst), when any do.
    let waitingLabel: Widget
    private var shown: [UInt8]?

    init() {
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)
        addClass(widget, "confirm-photo")
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_CONTAIN)
        gtk_widget_set_vexpand(picture, 1)
        pinhole_set_accessible_label(picture, L("The photo just taken"))
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_bottom(buttons, 18)
        let cancel = gtk_button_new_with_mnemonic(L("_Cancel"))!
        addClass(cancel, "pill")
        addClass(cancel, "osd")
        gtk_actionable_set_action_name(cast(cancel), "app.discard-photo")
        pinhole_set_accessible_label(cancel, L("Cancel"))
        let save = gtk_button_new_with_mnemonic(L("_Save Picture"))!
        addClass(save, "pill")
        addClass(save, "suggested-action")
        gtk_actionable_set_action_name(cast(save), "app.save-photo")
        pinhole_set_accessible_label(save, L("Save Picture"))
        gtk_box_append(cast(buttons), cancel)
        gtk_box_append(cast(buttons), save)
        waitingLabel = gtk_label_new("")
        addClass(waitingLabel, "dim-label")
        gtk_widget_set_visible(waitingLabel, 0)
        gtk_box_append(cast(widget), picture)
        gtk_box_append(cast(widget), waitingLabel)
        gtk_box_append(cast(widget), buttons)
    }

    /// Shows the pending photo's pixels, and how many wait in all when more than one does.
    func show(_ data: [UInt8], waiting: Int) {
        gtk_widget_set_visible(waitingLabel, waiting > 1 ? 1 : 0)
        if waiting > 1 {
            let text = waiting == 2 ? L("1 more photo waits after this one") : CameraWords.translate("%@ more photos wait after this one", String(waiting - 1))
            gtk_label_set_text(cast(waitingLabel), text)
        }
        guard shown != data else { return }
        shown = data
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        let texture = gdk_texture_new_from_bytes(bytes, nil)
        g_bytes_unref(bytes)
        gtk_picture_set_paintable(cast(picture), texture)
        if let texture { g_object_unref(UnsafeMutableRawPointer(texture)) }
    }
}
