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
    /// The rows by list item (each item keeps its row while it is bound to one filter after another).
    private var rows: [UnsafeMutableRawPointer: AlbumRow] = [:]
    /// The side of a cover in a row, in pixels.
    static let side = 24

    /// Rows for `gallery`'s filters, the first `fixedCount` of them not albums.
    init(gallery: GalleryModel, fixedCount: Int) {
        self.gallery = gallery
        self.fixedCount = fixedCount
        factory = gtk_signal_list_item_factory_new()
        connect(UnsafeMutableRawPointer(factory), "setup") { [weak self] (item: UnsafeMutableRawPointer?) in
            guard let self, let item else { return }
            let row = AlbumRow()
            gtk_list_item_set_child(OpaquePointer(item), row.widget)
            self.rows[item] = row
        }
        connect(UnsafeMutableRawPointer(factory), "bind") { [weak self] (item: UnsafeMutableRawPointer?) in self?.bind(item) }
        connect(UnsafeMutableRawPointer(factory), "unbind") { [weak self] (item: UnsafeMutableRawPointer?) in
            if let item { self?.rows[item]?.coverID = nil }
        }
        connect(UnsafeMutableRawPointer(factory), "teardown") { [weak self] (item: UnsafeMutableRawPointer?) in
            if let item { self?.rows[item] = nil }
        }
    }

    isolated deinit {
        for texture in textures.values { g_object_unref(UnsafeMutableRawPointer(texture)) }
        g_object_unref(UnsafeMutableRawPointer(factory))
    }

    /// Fills a row: the filter's name, and for an album its cover (at once if loaded, else when it is).
    private func bind(_ item: UnsafeMutableRawPointer?) {
        guard let item, let row = rows[item], let object = gtk_list_item_get_item(OpaquePointer(item)) else { return }
        row.show(String(cString: gtk_string_object_get_string(OpaquePointer(object))))
        let album = Int(gtk_list_item_get_position(OpaquePointer(item))) - fixedCount
        guard gallery.albums.indices.contains(album), let cover = gallery.albumCovers[gallery.albums[album].name] else { return }
        row.showCover(cover.id, texture: textures[cover.id])
        guard textures[cover.id] == nil else { return }
        Task { [weak self] in
            guard let self, let path = await self.gallery.thumbnail(for: cover),
                  let texture = await decodedTexture(ofFile: path, longestSide: 2 * AlbumCovers.side) else { return }
            if let old = self.textures[cover.id] { g_object_unref(UnsafeMutableRawPointer(old)) }
            self.textures[cover.id] = texture
            for row in self.rows.values { row.setCover(cover.id, texture: texture) }
        }
    }
}
