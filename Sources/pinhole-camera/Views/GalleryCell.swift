import CameraModel
import CGtk
import PhotoLibrary

/// One cell of the gallery's grid, with its parts by name: the thumbnail filling a square, a
/// badge with a video's length, a favourite's star. A list item keeps the same cell while the
/// grid binds it to one item after another.
@MainActor
final class GalleryCell {
    /// The cell (a GtkOverlay), the list item's child.
    let widget: Widget
    /// The thumbnail.
    let picture: Widget
    /// A video's length, bottom right.
    let badge: Widget
    /// The favourite's star, top right.
    let star: Widget
    /// The identifier of the item shown (nil while the cell is not bound).
    private(set) var itemID: String?

    /// A cell showing nothing yet.
    init() {
        widget = gtk_overlay_new()
        addClass(widget, "gallery-cell")
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_COVER)
        gtk_widget_set_size_request(picture, 160, 160)
        gtk_overlay_set_child(cast(widget), picture)
        badge = gtk_label_new("")
        addClass(badge, "gallery-badge")
        gtk_widget_set_halign(badge, GTK_ALIGN_END)
        gtk_widget_set_valign(badge, GTK_ALIGN_END)
        gtk_overlay_add_overlay(cast(widget), badge)
        star = gtk_image_new_from_icon_name("starred-symbolic")
        addClass(star, "gallery-badge")
        gtk_widget_set_halign(star, GTK_ALIGN_END)
        gtk_widget_set_valign(star, GTK_ALIGN_START)
        gtk_overlay_add_overlay(cast(widget), star)
    }

    /// Shows `asset`: its name for screen readers, its badges, and `thumbnail` (nil: none yet).
    func show(_ asset: Asset, thumbnail: OpaquePointer?) {
        itemID = asset.id
        pinhole_set_accessible_label(widget, GalleryModel.accessibleName(of: asset))
        gtk_label_set_text(cast(badge), asset.duration.map(GalleryModel.durationText) ?? "")
        gtk_widget_set_visible(badge, asset.duration == nil ? 0 : 1)
        gtk_widget_set_visible(star, asset.isFavorite ? 1 : 0)
        setThumbnail(thumbnail)
    }

    /// Shows `texture` as the thumbnail (nil: the empty placeholder).
    func setThumbnail(_ texture: OpaquePointer?) {
        gtk_picture_set_paintable(cast(picture), texture)
    }

    /// Whether the thumbnail is shown (not the placeholder).
    var hasThumbnail: Bool { gtk_picture_get_paintable(cast(picture)) != nil }

    /// The cell no longer shows an item (the grid unbound it).
    func unbind() {
        itemID = nil
    }
}
