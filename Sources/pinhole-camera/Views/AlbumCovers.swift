import CameraModel
import CGtk
import PhotoLibrary

/// The gallery's filter drop-down rows: each album with its cover (the item chosen with Choose
/// Cover…, else its newest) beside its name; the fixed filters (All, Photos…) with the name only.
/// The drop-down's button uses the same rows, so the album shown has its cover in the header.
@MainActor
final class AlbumCovers {
    /// The GtkListItemFactory for the drop-down.
    let factory: OpaquePointer
    private let gallery: GalleryModel
    /// How many rows come before the albums (the fixed filters).
    private let fixedCount: Int
    /// Loaded covers by asset identifier (a reference each).
    private var textures: [String: OpaquePointer] = [:]
    /// The cover each bound row shows, so a late cover goes only where it still belongs.
    private var bound: [UnsafeMutableRawPointer: String] = [:]
    /// The side of a cover in a row, in pixels.
    static let side = 24

    /// Rows for `gallery`'s filters, the first `fixedCount` of them not albums.
    init(gallery: GalleryModel, fixedCount: Int) {
        self.gallery = gallery
        self.fixedCount = fixedCount
        factory = gtk_signal_list_item_factory_new()
        connect(UnsafeMutableRawPointer(factory), "setup") { (item: UnsafeMutableRawPointer?) in
            guard let item else { return }
            let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
            // An image, not a picture: it draws the cover within `side` pixels whatever the
            // texture's size (twice that, for screens at scale 2), where a picture would ask for it.
            let picture = gtk_image_new()!
            gtk_image_set_pixel_size(cast(picture), Int32(AlbumCovers.side))
            addClass(picture, "album-cover")
            pinhole_set_accessible_label(picture, L("Album Cover"))
            gtk_box_append(cast(row), picture)
            let title = gtk_label_new("")!
            gtk_label_set_xalign(cast(title), 0)
            gtk_box_append(cast(row), title)
            gtk_list_item_set_child(OpaquePointer(item), row)
        }
        connect(UnsafeMutableRawPointer(factory), "bind") { [weak self] (item: UnsafeMutableRawPointer?) in self?.bind(item) }
        connect(UnsafeMutableRawPointer(factory), "unbind") { [weak self] (item: UnsafeMutableRawPointer?) in
            if let item { self?.bound[item] = nil }
        }
    }

    isolated deinit {
        for texture in textures.values { g_object_unref(UnsafeMutableRawPointer(texture)) }
        g_object_unref(UnsafeMutableRawPointer(factory))
    }

    /// Fills a row: the filter's name, and for an album its cover (at once if loaded, else when it is).
    private func bind(_ item: UnsafeMutableRawPointer?) {
        guard let item, let row = gtk_list_item_get_child(OpaquePointer(item)), let picture = gtk_widget_get_first_child(row),
              let title = gtk_widget_get_next_sibling(picture), let object = gtk_list_item_get_item(OpaquePointer(item)) else { return }
        gtk_label_set_text(cast(title), gtk_string_object_get_string(OpaquePointer(object)))
        let album = Int(gtk_list_item_get_position(OpaquePointer(item))) - fixedCount
        guard gallery.albums.indices.contains(album), let cover = gallery.albumCovers[gallery.albums[album].name] else {
            bound[item] = nil
            gtk_image_clear(cast(picture))
            gtk_widget_set_visible(picture, 0)
            return
        }
        bound[item] = cover.id
        gtk_widget_set_visible(picture, 1)
        if let texture = textures[cover.id] {
            gtk_image_set_from_paintable(cast(picture), texture)
            return
        }
        gtk_image_clear(cast(picture))
        Task { [weak self] in
            guard let self, let path = await self.gallery.thumbnail(for: cover),
                  let texture = await decodedTexture(ofFile: path, longestSide: 2 * AlbumCovers.side) else { return }
            if let old = self.textures[cover.id] { g_object_unref(UnsafeMutableRawPointer(old)) }
            self.textures[cover.id] = texture
            for (row, id) in self.bound where id == cover.id {
                if let child = gtk_list_item_get_child(OpaquePointer(row)), let picture = gtk_widget_get_first_child(child) {
                    gtk_image_set_from_paintable(cast(picture), texture)
                }
            }
        }
    }
}
