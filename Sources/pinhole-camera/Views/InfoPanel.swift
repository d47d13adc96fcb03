import CameraModel
import CGtk
import Foundation
import PhotoLibrary

/// The viewer's information panel (Alt+Enter, or the header's Properties button), beside the
/// picture: when it was taken, the camera, its size in pixels and on disk, the format, a video's
/// length, the location when there is one (with what Save As… does with it) and the file's path.
/// The format and camera are read from the file off the main thread.
@MainActor
final class InfoPanel {
    /// The revealer that slides the panel in and out.
    let widget: Widget
    private let group: Widget
    private var rows: [Widget] = []
    private var reading: Task<Void, Never>?

    init() {
        widget = gtk_revealer_new()
        gtk_revealer_set_transition_type(cast(widget), GTK_REVEALER_TRANSITION_TYPE_SLIDE_LEFT)
        gtk_revealer_set_reveal_child(cast(widget), 0)
        group = adw_preferences_group_new()
        adw_preferences_group_set_title(cast(group), L("Properties"))
        gtk_widget_set_margin_start(group, 12)
        gtk_widget_set_margin_end(group, 12)
        gtk_widget_set_margin_top(group, 12)
        gtk_widget_set_margin_bottom(group, 12)
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(cast(scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        gtk_scrolled_window_set_child(cast(scrolled), group)
        gtk_widget_set_size_request(scrolled, 280, -1)
        addClass(scrolled, "background")
        gtk_revealer_set_child(cast(widget), scrolled)
        // The picture takes the width; the panel only its own (a revealer would otherwise take
        // half, as its content asks to expand).
        gtk_widget_set_hexpand(widget, 0)
    }

    /// Whether the panel is shown.
    var isShown: Bool { gtk_revealer_get_reveal_child(cast(widget)) != 0 }

    /// Shows or hides the panel.
    func setShown(_ shown: Bool) {
        gtk_revealer_set_reveal_child(cast(widget), shown ? 1 : 0)
    }

    /// Fills the panel for `asset` (what the index knows at once; format and camera when read).
    func show(_ asset: Asset) {
        reading?.cancel()
        fill(asset, details: nil)
        let path = asset.path, kind = asset.mediaType
        reading = Task { [weak self] in
            let details = await Task.detached { try? AssetDetails.read(path: path, mediaType: kind) }.value
            guard let self, !Task.isCancelled, let details else { return }
            self.fill(asset, details: details)
        }
    }

    private func fill(_ asset: Asset, details: AssetDetails?) {
        for row in rows { adw_preferences_group_remove(cast(group), row) }
        rows = []
        let date = Date(timeIntervalSince1970: asset.creationDate).formatted(date: .long, time: .standard)
        add(L("Date"), date)
        if let camera = details?.camera { add(L("Camera"), camera) }
        let megapixels = String(format: "%.1f", Double(asset.pixelWidth * asset.pixelHeight) / 1_000_000)
        add(L("Size"), CameraWords.translate("%@ × %@ pixels (%@ MP)", String(asset.pixelWidth), String(asset.pixelHeight), megapixels))
        if let size = g_format_size(guint64(max(0, asset.fileSize))) {
            add(L("File Size"), String(cString: size))
            g_free(size)
        }
        if let format = details?.format, !format.isEmpty { add(L("Format"), format) }
        if let duration = asset.duration { add(L("Duration"), GalleryModel.durationText(duration)) }
        if asset.hasLocation {
            // Coordinates when the library reads them; a place's name or XMP's coordinates only as a note.
            let text = asset.location.map { location in
                String(format: "%.5f° %@, %.5f° %@", abs(location.latitude), location.latitude >= 0 ? L("N") : L("S"),
                       abs(location.longitude), location.longitude >= 0 ? L("E") : L("W"))
            } ?? L("Recorded in the file’s metadata")
            add(L("Location"), text + "\n" + L("Save As… removes it from the copy unless you turn “Remove location” off."))
        }
        add(L("File"), asset.path)
    }

    /// A row: `title` over `value` (a screen reader reads both).
    private func add(_ title: String, _ value: String) {
        let row = adw_action_row_new()!
        adw_preferences_row_set_title(cast(row), title)
        adw_action_row_set_subtitle(cast(row), value)
        adw_preferences_row_set_use_markup(cast(row), 0)
        adw_preferences_group_add(cast(group), row)
        rows.append(row)
    }
}
