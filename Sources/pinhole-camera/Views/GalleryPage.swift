import CameraModel
import CGtk
import Glibc
import Media
import PhotoLibrary

/// The gallery: the library's photos and videos, newest first, in a `GtkGridView` of
/// thumbnails (loaded off the main thread; a placeholder until ready), with a duration badge on
/// videos and a mark on favourites; a filter; "No Photos or Videos Yet" when empty. It follows
/// the model's splices, so a new item slides in without a reload and the scroll position and
/// selection stay. Click selects (Ctrl-click adds, Shift-click extends, rubber band, Ctrl+A);
/// double-click, Enter or a tap on a touchscreen opens.
@MainActor
final class GalleryPage {
    /// What the page is for: browsing the library (the camera window), or choosing from it for
    /// someone (the picker: one item, or `multiple`).
    enum Purpose: Equatable {
        case browse
        case pick(multiple: Bool)
    }
    /// The whole page: its header bar over the grid (or the empty state).
    let widget: Widget
    let header: Widget
    private let stack: Widget
    /// The grid of cells.
    private let grid: Widget
    /// The scrolled window around the grid (its viewport is what can be seen of the grid).
    private let scrolled: Widget
    private let names: OpaquePointer
    /// The grid's selection model (a GtkMultiSelection, or a GtkSingleSelection when picking one).
    private let selection: OpaquePointer
    private let gallery: GalleryModel
    /// The filter drop-down: the fixed filters, then the albums.
    private let dropDown: Widget
    private let filterNames: OpaquePointer
    /// The drop-down's rows, albums with their covers.
    private let covers: AlbumCovers
    private let fixedFilters: [(GalleryFilter, String)]
    private var filters: [GalleryFilter] { fixedFilters.map(\.0) + gallery.albums.map { .album($0.name) } }
    /// Set while the drop-down is changed from code, so its notification is not a choice.
    private var updatingFilters = false
    /// Items by identifier, as the model has them (the list model holds identifiers).
    private var assets: [String: Asset] = [:]
    /// Loaded thumbnails by identifier (a reference each; the list item's picture takes its own),
    /// at most 600, the oldest loaded let go first.
    private var textures = ThumbnailCache<OpaquePointer>(limit: 600)
    /// What each bound list item shows (so a late thumbnail goes only where it still belongs).
    private var cells: [UnsafeMutableRawPointer: GalleryCell] = [:]
    /// How many cells show each item now (a bind adds one, an unbind takes it back), so that
    /// `isShown` costs one lookup: the loaders ask it for every wanted item they pass over, and
    /// a scan of every cell each time held the main loop for 100–300 ms in a fast scroll.
    private var shownCounts: [String: Int] = [:]

    init(gallery: GalleryModel, purpose: Purpose = .browse, albumMenu: AlbumMenu? = nil) {
        self.gallery = gallery
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        header = adw_header_bar_new()
        if purpose == .browse {
            adw_header_bar_pack_start(cast(header), actionButton("go-previous-symbolic", L("Back to Camera"), "app.show-camera"))
        }
        // A gallery of one kind (a picker for photos) offers no photo/video filters.
        if purpose == .browse {
            adw_header_bar_pack_end(cast(header), Sharing.menuButton())
            if let albumMenu { adw_header_bar_pack_end(cast(header), albumMenu.button()) }
            adw_header_bar_pack_end(cast(header), actionButton("user-trash-symbolic", L("Recently Deleted"), "app.recently-deleted"))
        }
        // The fixed filters, then one per album (filled when the albums are read).
        fixedFilters = gallery.mediaType == nil
            ? [(.all, L("All")), (.photos, L("Photos")), (.videos, L("Videos")), (.favorites, L("Favourites"))]
            : [(.all, L("All")), (.favorites, L("Favourites"))]
        filterNames = gtk_string_list_new(nil)
        for (_, title) in fixedFilters { gtk_string_list_append(filterNames, title) }
        dropDown = gtk_drop_down_new(cast(filterNames), nil)
        covers = AlbumCovers(gallery: gallery, fixedCount: fixedFilters.count)
        gtk_drop_down_set_factory(cast(dropDown), covers.factory)
        label(dropDown, L("Show"))
        adw_header_bar_set_title_widget(cast(header), dropDown)
        gtk_box_append(cast(widget), header)

        // The selection takes the list, and the grid the selection and the factory (transfer full).
        names = gtk_string_list_new(nil)
        if purpose == .pick(multiple: false) {
            let single = gtk_single_selection_new(cast(names))!
            gtk_single_selection_set_autoselect(single, 0)
            gtk_single_selection_set_can_unselect(single, 1)
            selection = single
        } else {
            selection = gtk_multi_selection_new(cast(names))
        }
        let factory = gtk_signal_list_item_factory_new()!
        grid = gtk_grid_view_new(cast(selection), factory)
        gtk_grid_view_set_max_columns(cast(grid), 12)
        gtk_grid_view_set_min_columns(cast(grid), 2)
        gtk_grid_view_set_enable_rubberband(cast(grid), purpose == .pick(multiple: false) ? 0 : 1)
        addClass(grid, "gallery")
        label(grid, L("Photos and Videos"))
        scrolled = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(cast(scrolled), grid)
        gtk_widget_set_vexpand(scrolled, 1)

        let empty = adw_status_page_new()!
        adw_status_page_set_icon_name(cast(empty), "camera-photo-symbolic")
        adw_status_page_set_title(cast(empty), L("No Photos or Videos Yet"))
        adw_status_page_set_description(cast(empty), L("Photos and videos you take appear here."))
        if purpose == .browse {
            let toCamera = gtk_button_new_with_label(L("Take a Photo"))!
            addClass(toCamera, "pill")
            addClass(toCamera, "suggested-action")
            gtk_widget_set_halign(toCamera, GTK_ALIGN_CENTER)
            gtk_actionable_set_action_name(cast(toCamera), "app.show-camera")
            adw_status_page_set_child(cast(empty), toCamera)
        }

        stack = gtk_stack_new()
        gtk_stack_add_named(cast(stack), scrolled, "grid")
        gtk_stack_add_named(cast(stack), empty, "empty")
        gtk_stack_set_visible_child_name(cast(stack), "empty")
        gtk_box_append(cast(widget), stack)

        connect(UnsafeMutableRawPointer(factory), "setup") { [weak self] (item: UnsafeMutableRawPointer?) in
            guard let self, let item else { return }
            let cell = GalleryCell()
            gtk_list_item_set_child(OpaquePointer(item), cell.widget)
            self.cells[item] = cell
            self.addDragSource(to: cell.widget, item: item)
        }
        connect(UnsafeMutableRawPointer(factory), "bind") { [weak self] (item: UnsafeMutableRawPointer?) in self?.bind(item) }
        connect(UnsafeMutableRawPointer(factory), "unbind") { [weak self] (item: UnsafeMutableRawPointer?) in
            guard let self, let item, let cell = self.cells[item] else { return }
            self.clear(cell)
        }
        connect(UnsafeMutableRawPointer(factory), "teardown") { [weak self] (item: UnsafeMutableRawPointer?) in
            guard let self, let item, let cell = self.cells.removeValue(forKey: item) else { return }
            self.clear(cell)
        }
        connectPosition(UnsafeMutableRawPointer(grid), "activate") { [weak self] position in self?.open(at: position) }
        // A tap on a touchscreen opens (the mouse's click selects and its double-click opens).
        let tap = gtk_gesture_click_new()!
        gtk_gesture_single_set_touch_only(cast(tap), 1)
        connectReleased(UnsafeMutableRawPointer(tap)) { [weak self] presses in
            guard let self, presses == 1, let only = self.selectedPositions.first, self.selectedPositions.count == 1 else { return }
            self.open(at: only)
        }
        gtk_widget_add_controller(grid, cast(tap))
        connectRange(UnsafeMutableRawPointer(selection), "selection-changed") { [weak self] _, _ in
            guard let self else { return }
            self.onSelectionChange(self.selectedPositions.count)
        }

        connectNotify(UnsafeMutableRawPointer(dropDown), "selected") { [weak self] in
            guard let self, !self.updatingFilters else { return }
            let index = Int(gtk_drop_down_get_selected(cast(self.dropDown))), filters = self.filters
            if filters.indices.contains(index) { gallery.setFilter(filters[index]) }
        }
        if purpose == .browse { addActions() }
    }

    /// The gallery's actions and keys (browsing only: a picker has its own): Delete moves the
    /// selection to the Trash, Escape lets go of it or goes back, and the application's Copy and
    /// Save As… act on it. The page's widget holds them; the keys work while the page is shown.
    private func addActions() {
        let actions = WidgetActions("gallery", on: widget)
        actions.add("delete", keys: ["Delete"]) { [weak self] in self?.deleteSelected() }
        actions.add("cancel", keys: ["Escape"]) { [weak self] in
            guard let self, !self.unselectAll() else { return }
            gtk_widget_activate_action_variant(self.widget, "app.back", nil)
        }
        actions.bind(["<Control>c"], to: "app.copy")
        actions.bind(["<Control><Shift>s"], to: "app.save-as")
    }

    /// Told what to say after the selection went to the Trash, with the action that undoes it
    /// (the window shows it in a toast).
    var onDeleted: (_ text: String, _ undo: String) -> Void = { _, _ in }

    /// Moves the selected items to the Trash (Delete); `onDeleted` offers Undo.
    func deleteSelected() {
        let items = selectedItems
        guard !items.isEmpty else { return }
        Task {
            guard await gallery.delete(items) else { return }
            onDeleted(items.count == 1 ? L("Moved to Trash") : CameraWords.translate("%@ items moved to Trash", String(items.count)), "app.undo-delete")
        }
    }

    /// Follows the model: its items as they are now, then its splices, and its albums and filter
    /// (the filter menu); the window keeps the subscriptions and cancels them when it goes. The
    /// model may have read its items before this page was made (an album made from the camera
    /// page reads them), so the list starts from them, not empty.
    func watch() -> [Subscription] {
        if !gallery.items.isEmpty { splice(at: 0, removing: Int(g_list_model_get_n_items(names)), inserting: gallery.items.count) }
        return [gallery.splices.subscribe { [weak self] splice in self?.splice(at: splice.at, removing: splice.removing, inserting: splice.inserting) },
         observe { [weak self] in self?.showFilters() }]
    }

    /// Follows one change of the model's items.
    private func splice(at: Int, removing: Int, inserting: Int) {
        Marks.mark(.gallerySplice(inserted: inserting, removed: removing))
        assets = Dictionary(gallery.items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for id in textures.keys where assets[id] == nil {
            if let texture = textures.remove(id) { g_object_unref(UnsafeMutableRawPointer(texture)) }
        }
        let atTop = gtk_adjustment_get_value(gtk_scrolled_window_get_vadjustment(cast(scrolled))) < 1
        let shown = Int(g_list_model_get_n_items(names))
        if at + removing <= shown, shown - removing + inserting == gallery.items.count {
            replace(at: at, removing: removing, with: gallery.items[at..<(at + inserting)])
        } else {
            // The list out of step with the model (the monkey once met a splice past the list's
            // end, which GTK refuses with a critical warning): shown afresh, and said, with the
            // figures, so that a run that meets it again fails and tells how.
            journal("the gallery's list was out of step with the library's items (\(shown) shown, \(gallery.items.count) now; splice at \(at) removing \(removing) inserting \(inserting)): shown afresh")
            replace(at: 0, removing: shown, with: gallery.items[...])
        }
        // Seen from the top, a newest item arriving stays in view: GtkGridView keeps the item it
        // shows first in place, so a row's worth of arrivals pushed the newest above the view.
        if atTop, at == 0, inserting > 0 {
            let first = g_variant_ref_sink(g_variant_new_uint32(0))
            gtk_widget_activate_action_variant(grid, "list.scroll-to-item", first)
            g_variant_unref(first)
        }
        gtk_stack_set_visible_child_name(cast(stack), gallery.items.isEmpty ? "empty" : "grid")
        if removing == 0, inserting == gallery.items.count, inserting > 0 { onFirstItems() }
    }

    /// Replaces `removing` identifiers of the list at `at` with those of `items`.
    private func replace(at: Int, removing: Int, with items: ArraySlice<Asset>) {
        let added = items.map { strdup($0.id) } + [nil]
        added.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { gtk_string_list_splice(names, guint(at), guint(removing), $0.baseAddress) }
        }
        for pointer in added { free(pointer) }
    }

    /// Told when items appear in an empty gallery (a picker puts the keyboard on them).
    var onFirstItems: () -> Void = {}

    /// Dragging a cell drags its file, or the whole selection's files when it is selected.
    private func addDragSource(to cell: Widget, item: UnsafeMutableRawPointer) {
        Sharing.dragOut(from: cell) { [weak self] in
            guard let self, let id = self.cells[item]?.itemID, let asset = self.assets[id] else { return [] }
            let selected = self.selectedItems
            return selected.contains { $0.id == id } ? selected : [asset]
        }
    }

    /// The drop-down's albums again, and its choice the model's filter.
    private func showFilters() {
        updatingFilters = true
        defer { updatingFilters = false }
        let albums = gallery.albums.map { strdup($0.name) } + [nil]
        let fixed = guint(fixedFilters.count)
        albums.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) {
                gtk_string_list_splice(filterNames, fixed, guint(g_list_model_get_n_items(filterNames)) - fixed, $0.baseAddress)
            }
        }
        for pointer in albums { free(pointer) }
        gtk_drop_down_set_selected(cast(dropDown), guint(filters.firstIndex(of: gallery.filter) ?? 0))
    }

    /// Fills a cell for the item at its position: names, badges, and the thumbnail (at once if
    /// loaded, else when it is).
    private func bind(_ item: UnsafeMutableRawPointer?) {
        guard let item, let object = gtk_list_item_get_item(OpaquePointer(item)),
              let id = gtk_string_object_get_string(OpaquePointer(object)).map({ String(cString: $0) }), let asset = assets[id],
              let cell = cells[item] else { return }
        clear(cell)
        let texture = textures[id]
        cell.show(asset, thumbnail: texture)
        shownCounts[id, default: 0] += 1
        guard texture == nil else { return }
        wanted.want(asset, key: id)
        loadThumbnails()
    }

    /// Thumbnails asked for by bound cells and not loaded yet, in the order the cells were bound.
    private var wanted = ThumbnailQueue<Asset>()
    /// Loaders running (at most `loaderLimit`).
    private var loaders = 0
    /// How many thumbnails load at once: each waits on the library's actor, its decode and the
    /// main loop in turn, so a few run side by side to keep the two cores busy.
    private let loaderLimit = 8

    /// Starts loaders for the wanted thumbnails. A fast scroll binds and rebinds cells faster than
    /// thumbnails load: each loader takes the next wanted item whose cell still shows it (the
    /// others are dropped unasked), so the work is bounded by what can be seen, and the main
    /// loop never holds a task per bind (thousands in a scroll through 10,000 items, all run
    /// between two frames when they came due).
    private func loadThumbnails() {
        while loaders < loaderLimit, !wanted.isEmpty {
            loaders += 1
            Task { [weak self] in
                while let self, let asset = self.nextWantedThumbnail() {
                    guard let path = await self.gallery.thumbnail(for: asset), self.isShown(asset.id),
                          // Decoded by Media rather than GDK's loader: an opaque thumbnail becomes a
                          // 24-bit texture, which the cairo renderer draws at every frame of a scroll
                          // without GDK 4.8's slow per-pixel conversion of 32-bit ones (see `lendTexture`).
                          let texture = await decodedTexture(ofFile: path, longestSide: ThumbnailSize.xxLarge.rawValue) else { continue }
                    self.adopt(texture, for: asset.id)
                }
                self?.loaders -= 1
            }
        }
    }

    /// The next wanted item, in the order cells were bound, that a cell still shows and that is
    /// not loaded yet, or nil.
    private func nextWantedThumbnail() -> Asset? {
        wanted.next { id in textures[id] == nil && assets[id] != nil && isShown(id) }
    }

    /// Keeps a loaded thumbnail and shows it in the cells bound to its item.
    private func adopt(_ texture: OpaquePointer, for id: String) {
        guard assets[id] != nil, textures[id] == nil else {
            g_object_unref(UnsafeMutableRawPointer(texture))
            return
        }
        for released in textures.insert(texture, for: id) { g_object_unref(UnsafeMutableRawPointer(released)) }
        for cell in cells.values where cell.itemID == id { cell.setThumbnail(texture) }
    }

    /// A cell no longer shows its item (unbound, torn down, or about to show another).
    private func clear(_ cell: GalleryCell) {
        guard let id = cell.itemID else { return }
        cell.unbind()
        if let count = shownCounts[id], count > 1 { shownCounts[id] = count - 1 } else { shownCounts[id] = nil }
    }

    /// Whether a cell is bound to the item `id` now.
    private func isShown(_ id: String) -> Bool { shownCounts[id] != nil }

    /// The items whose cells can be seen in the grid's viewport now (even in part): each one's
    /// position in the grid and whether it shows its thumbnail. The cells bound to items that lie
    /// within the scrolled window.
    var visibleItems: [(id: String, position: Int, hasThumbnail: Bool)] {
        let height = Float(gtk_widget_get_height(scrolled)), width = Float(gtk_widget_get_width(scrolled))
        var visible: [(id: String, position: Int, hasThumbnail: Bool)] = []
        for (item, cell) in cells {
            guard let id = cell.itemID, gtk_widget_get_mapped(cell.widget) != 0 else { continue }
            var bounds = graphene_rect_t()
            guard gtk_widget_compute_bounds(cell.widget, scrolled, &bounds) != 0, bounds.size.width > 0, bounds.size.height > 0,
                  bounds.origin.y < height, bounds.origin.y + bounds.size.height > 0,
                  bounds.origin.x < width, bounds.origin.x + bounds.size.width > 0 else { continue }
            visible.append((id, Int(gtk_list_item_get_position(OpaquePointer(item))), cell.hasThumbnail))
        }
        return visible
    }

    /// The grid's vertical scroll position in pixels: the top of the viewport, the grid's whole
    /// height and the viewport's height.
    var scrollPosition: (value: Double, upper: Double, page: Double) {
        let adjustment = gtk_scrolled_window_get_vadjustment(cast(scrolled))
        return (gtk_adjustment_get_value(adjustment), gtk_adjustment_get_upper(adjustment), gtk_adjustment_get_page_size(adjustment))
    }

    /// Opens an item (its position in the gallery's items): the viewer, or the picker's choice.
    var onOpen: (Int) -> Void = { _ in }
    /// Told how many items are selected, whenever that changes.
    var onSelectionChange: (Int) -> Void = { _ in }

    private func open(at position: Int) {
        if gallery.items.indices.contains(position) { onOpen(position) }
    }

    /// The positions selected, in the gallery's order.
    var selectedPositions: [Int] {
        guard let bits = gtk_selection_model_get_selection(selection) else { return [] }
        defer { gtk_bitset_unref(bits) }
        let count = gtk_bitset_get_size(bits)
        return (0..<count).map { Int(gtk_bitset_get_nth(bits, guint($0))) }.filter { gallery.items.indices.contains($0) }
    }

    /// The items selected, newest first.
    var selectedItems: [Asset] { selectedPositions.map { gallery.items[$0] } }

    /// Lets go of the selection (Escape); false when nothing was selected.
    @discardableResult
    func unselectAll() -> Bool {
        guard !selectedPositions.isEmpty else { return false }
        gtk_selection_model_unselect_all(selection)
        return true
    }

    /// Gives the grid the keyboard focus.
    func focusGrid() { gtk_widget_grab_focus(grid) }

    /// Selects the first (newest) item when nothing is selected, and puts the keyboard focus on
    /// the grid: a picker opened from a terminal is ready for arrow keys and Enter.
    func selectFirstAndFocus() {
        if selectedPositions.isEmpty, !gallery.items.isEmpty { gtk_selection_model_select_item(selection, 0, 1) }
        gtk_widget_grab_focus(grid)
    }

    /// Whether `widget` (the window's focus) is the grid or inside it.
    func contains(_ widget: Widget?) -> Bool {
        guard let widget else { return false }
        return widget == grid || gtk_widget_is_ancestor(widget, grid) != 0
    }
}
