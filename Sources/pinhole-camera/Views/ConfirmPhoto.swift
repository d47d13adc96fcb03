import CameraModel
import CGtk
import Media

/// "Ask before saving": the photo just taken, with Cancel and Save Picture, before anything
/// is written. Cancel writes nothing anywhere.
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

    /// Shows the pending photo, and how many wait in all when more than one does. The photo is
    /// decoded off the main thread at the page's size (as the viewer does), not at full size.
    func show(_ data: [UInt8], waiting: Int) {
        gtk_widget_set_visible(waitingLabel, waiting > 1 ? 1 : 0)
        if waiting > 1 {
            let text = waiting == 2 ? L("1 more photo waits after this one") : CameraWords.translate("%@ more photos wait after this one", String(waiting - 1))
            gtk_label_set_text(cast(waitingLabel), text)
        }
        // The model hands the same array until the pending photo changes: equal storage makes
        // this comparison immediate.
        guard shown != data else { return }
        shown = data
        gtk_picture_set_paintable(cast(picture), nil)
        var area = max(gtk_widget_get_width(widget), gtk_widget_get_height(widget))
        if area <= 1, let root = gtk_widget_get_root(widget) { area = max(gtk_widget_get_width(cast(root)), gtk_widget_get_height(cast(root))) }
        let longest = max(320, Int(Double(area) * Double(gtk_widget_get_scale_factor(widget))))
        decoding?.cancel()
        decoding = Task { [weak self] in
            let decoded = await Task.detached { try? Thumbnailer().thumbnail(of: data, longestSide: longest).forDisplay() }.value
            guard let self, !Task.isCancelled, self.shown == data, let decoded else { return }
            let texture = lendTexture(decoded)
            gtk_picture_set_paintable(cast(self.picture), cast(texture))
            g_object_unref(UnsafeMutableRawPointer(texture))
        }
    }

    /// The decoding of the photo being shown, if it is still under way.
    private var decoding: Task<Void, Never>?
}
