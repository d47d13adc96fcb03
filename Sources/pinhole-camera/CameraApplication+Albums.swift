import CameraModel
import CGtk
import PhotoLibrary

/// The album actions behind the Album menu: on the viewer's item or the gallery's selection, and
/// on the album the gallery shows.
extension CameraApplication {
    /// Adds app.add-to-album(name), app.new-album, app.add-photos-to-album, app.choose-album-cover, app.remove-from-album,
    /// app.rename-album, app.delete-album and app.gallery-filter(all|photos|videos|favorites|album:NAME).
    func addAlbumActions(_ map: UnsafeMutableRawPointer, _ model: CameraModel) {
        let gallery = model.gallery
        addAction(map, "add-to-album", parameter: true) { [weak self] name in
            guard let window = self?.window, let name else { return }
            let items = window.currentItems
            guard !items.isEmpty else { return }
            Task {
                if await gallery.add(items, toAlbum: name) { window.toast(CameraWords.translate("Added to “%@”", name)) }
            }
        }
        addAction(map, "new-album") { [weak self] _ in
            guard let window = self?.window else { return }
            let items = window.currentItems
            AlbumMenu.askForName(parent: window.window, heading: L("New Album"), body: L("The items chosen go into it."), initial: "", confirm: L("C_reate")) { name in
                Task {
                    if await gallery.add(items, toAlbum: name, create: true) { window.toast(CameraWords.translate("Added to “%@”", name)) }
                }
            }
        }
        addAction(map, "add-photos-to-album") { [weak self] _ in
            guard let self, let window = self.window, case let .album(name) = gallery.filter else { return }
            var key: ObjectIdentifier?
            let picker = PickerWindow(gallery: model.makeGallery(of: nil), request: PickRequest(multiple: true), parent: window.window) { [weak self] items in
                if let key { self?.pickers[key] = nil }
                guard let items, !items.isEmpty else { return }
                Task {
                    if await gallery.add(items, toAlbum: name) { window.toast(CameraWords.translate("Added to “%@”", name)) }
                }
            }
            key = ObjectIdentifier(picker)
            pickers[ObjectIdentifier(picker)] = picker
        }
        // Choose Cover…: a picker over the album's items, one chosen, which becomes the cover.
        addAction(map, "choose-album-cover") { [weak self] _ in
            guard let self, let window = self.window, case let .album(name) = gallery.filter else { return }
            let items = model.makeGallery(of: nil)
            items.setFilter(.album(name))
            var key: ObjectIdentifier?
            let picker = PickerWindow(gallery: items, request: PickRequest(), parent: window.window) { [weak self] chosen in
                if let key { self?.pickers[key] = nil }
                guard let cover = chosen?.first else { return }
                Task {
                    if await gallery.setCover(cover, ofAlbum: name) { window.toast(CameraWords.translate("Cover of “%@” chosen", name)) }
                }
            }
            gtk_window_set_title(cast(picker.window), CameraWords.translate("Choose the Cover of “%@”", name))
            key = ObjectIdentifier(picker)
            pickers[ObjectIdentifier(picker)] = picker
        }
        addAction(map, "remove-from-album") { [weak self] _ in
            guard let window = self?.window, case let .album(name) = gallery.filter else { return }
            let items = window.currentItems
            guard !items.isEmpty else { return }
            Task {
                if await gallery.remove(items, fromAlbum: name) { window.toast(CameraWords.translate("Removed from “%@”", name)) }
            }
        }
        addAction(map, "rename-album") { [weak self] _ in
            guard let window = self?.window, case let .album(name) = gallery.filter else { return }
            AlbumMenu.askForName(parent: window.window, heading: L("Rename Album"), body: "", initial: name, confirm: L("_Rename")) { newName in
                Task { _ = await gallery.renameAlbum(name, to: newName) }
            }
        }
        addAction(map, "delete-album") { [weak self] _ in
            guard let window = self?.window, case let .album(name) = gallery.filter else { return }
            AlbumMenu.confirmDeletion(parent: window.window, name: name) {
                Task {
                    if await gallery.deleteAlbum(name) { window.toast(CameraWords.translate("Album “%@” deleted", name)) }
                }
            }
        }
        addAction(map, "gallery-filter", parameter: true) { [weak self] text in
            guard let filter = text.flatMap(GalleryFilter.init(text:)) else { return }
            self?.window?.show(.gallery)
            gallery.setFilter(filter)
        }
    }
}
