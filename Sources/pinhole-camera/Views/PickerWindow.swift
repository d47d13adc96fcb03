import CameraModel
import CGtk
import PhotoLibrary

/// The image picker for other programs and scripts (`pinhole-camera --pick`): a window
/// of its own over the library's gallery, with Cancel and Select. Double-click or Enter on an
/// item chooses it (with the others selected, when several may be chosen); Escape, Cancel or
/// closing the window chooses nothing.
///
/// It is not an application window on purpose: the camera's shortcuts (Space takes a photo,
/// Enter presses the shutter) must not reach it, and opening it never turns the camera on. The
/// application is held while it is open.
@MainActor
final class PickerWindow {
    /// The AdwWindow.
    let window: Widget
    private let page: GalleryPage
    private let gallery: GalleryModel
    private let request: PickRequest
    private let select: Widget
    private var finish: ((_ items: [Asset]?) -> Void)?
    /// The page's following of the gallery, until the picker is done.
    private var subscriptions: [Subscription] = []

    /// Opens a picker over `gallery` as `request` asks, above `parent` when one is given (the
    /// app's own use: photos to add to an album); `finish` gets the chosen items (newest first),
    /// or nil when the person chose nothing. It is called once, and the window is gone by then.
    init(gallery: GalleryModel, request: PickRequest, parent: Widget? = nil, finish: @escaping (_ items: [Asset]?) -> Void) {
        self.gallery = gallery
        self.request = request
        self.finish = finish
        window = adw_window_new()
        gtk_window_set_title(cast(window), request.title)
        gtk_window_set_default_size(cast(window), 800, 600)
        gtk_widget_set_size_request(window, 360, 294)
        if let parent {
            gtk_window_set_transient_for(cast(window), cast(parent))
            gtk_window_set_modal(cast(window), 1)
        }
        page = GalleryPage(gallery: gallery, purpose: .pick(multiple: request.multiple))

        let cancel = gtk_button_new_with_mnemonic(L("_Cancel"))!
        adw_header_bar_pack_start(cast(page.header), cancel)
        select = gtk_button_new_with_mnemonic(L("_Select"))
        addClass(select, "suggested-action")
        gtk_widget_set_sensitive(select, 0)
        adw_header_bar_pack_end(cast(page.header), select)
        adw_window_set_content(cast(window), page.widget)

        connect(UnsafeMutableRawPointer(cancel), "clicked") { [weak self] in self?.done(nil) }
        connect(UnsafeMutableRawPointer(select), "clicked") { [weak self] in self?.choose(adding: nil) }
        page.onSelectionChange = { [weak self] count in
            guard let self else { return }
            gtk_widget_set_sensitive(self.select, count > 0 ? 1 : 0)
        }
        page.onOpen = { [weak self] position in self?.choose(adding: position) }
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        // Escape cancels; Enter in the grid chooses what is selected (arrow keys select as they move).
        connectKeyPressed(UnsafeMutableRawPointer(keys)) { [weak self] key, _ in
            guard let self else { return false }
            let focus = gtk_root_get_focus(cast(self.window))
            if Int32(key) == GDK_KEY_Escape {
                self.done(nil)
                return true
            }
            guard Int32(key) == GDK_KEY_Return || Int32(key) == GDK_KEY_KP_Enter, focus == nil || self.page.contains(focus) else { return false }
            self.choose(adding: nil)
            return true
        }
        gtk_widget_add_controller(window, keys)
        // Closed by the window manager: nothing chosen.
        connect(UnsafeMutableRawPointer(window), "destroy") { [weak self] in self?.done(nil, destroy: false) }

        page.onFirstItems = { [weak self] in self?.page.selectFirstAndFocus() }
        subscriptions = page.watch()
        gallery.start()
        gtk_window_present(cast(window))
    }

    /// Chooses the selected items, and the item at `position` (the one double-clicked or
    /// activated with Enter): that one alone when only one may be chosen.
    private func choose(adding position: Int?) {
        var positions = request.multiple || position == nil ? page.selectedPositions : []
        if let position, !positions.contains(position) { positions.append(position) }
        let items = gallery.items
        let chosen = positions.sorted().filter { items.indices.contains($0) }.map { items[$0] }
        guard !chosen.isEmpty else { return }
        done(chosen)
    }

    /// Reports the choice once, stops following the library and closes the window.
    private func done(_ items: [Asset]?, destroy: Bool = true) {
        guard let finish else { return }
        self.finish = nil
        subscriptions.cancelAll()
        gallery.stop()
        finish(items)
        if destroy { gtk_window_destroy(cast(window)) }
    }
}
