import CameraModel
import CGtk

/// One row of the gallery's filter drop-down, with its parts by name: an album's cover (hidden
/// for the fixed filters) beside the filter's name.
@MainActor
final class AlbumRow {
    /// The row (a horizontal box), the list item's child.
    let widget: Widget
    /// The cover: an image, not a picture, so it draws within `AlbumCovers.side` pixels whatever
    /// the texture's size (twice that, for screens at scale 2), where a picture would ask for it.
    let cover: Widget
    /// The filter's name.
    let title: Widget
    /// The identifier of the cover shown (nil: none), so a late cover goes only where it still belongs.
    var coverID: String?

    /// An empty row.
    init() {
        widget = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)
        cover = gtk_image_new()
        gtk_image_set_pixel_size(cast(cover), Int32(AlbumCovers.side))
        addClass(cover, "album-cover")
        pinhole_set_accessible_label(cover, L("Album Cover"))
        gtk_box_append(cast(widget), cover)
        title = gtk_label_new("")
        gtk_label_set_xalign(cast(title), 0)
        gtk_box_append(cast(widget), title)
    }

    /// Shows `name`, without a cover.
    func show(_ name: String) {
        gtk_label_set_text(cast(title), name)
        coverID = nil
        gtk_image_clear(cast(cover))
        gtk_widget_set_visible(cover, 0)
    }

    /// Shows the cover `id` (its texture when loaded, else empty until `setCover`).
    func showCover(_ id: String, texture: OpaquePointer?) {
        coverID = id
        gtk_widget_set_visible(cover, 1)
        if let texture { gtk_image_set_from_paintable(cast(cover), texture) } else { gtk_image_clear(cast(cover)) }
    }

    /// Shows a loaded cover's texture, if the row still shows that cover.
    func setCover(_ id: String, texture: OpaquePointer) {
        if coverID == id { gtk_image_set_from_paintable(cast(cover), texture) }
    }
}
