import CameraModel
import CGtk
import Dispatch
import Media
import PhotoLibrary

/// One item full-window: a photo upright by its EXIF orientation (JPEG, PNG, HEIF, WebP, decoded
/// off the main thread by Media), fitted or zoomed (Ctrl+scroll, pinch, Ctrl+plus/minus/0,
/// double-click) and panned by dragging; a video played in place by GtkVideo (GTK's GStreamer
/// backend). Previous and next by arrow keys, the edge buttons and a swipe.
@MainActor
final class ViewerPage {
    /// The whole page: its header bar over the picture or the video.
    let widget: Widget
    private let title: Widget
    private let favorite: Widget
    private let stack: Widget
    private let scrolled: Widget
    private let picture: Widget
    /// The video player (GtkVideo), shown for videos.
    let video: Widget
    private let gallery: GalleryModel
    /// The information panel beside the picture.
    let info = InfoPanel()
    private let infoButton: Widget
    /// The item shown (an index into the gallery's items) and its identifier, so the viewer
    /// stays on it when items come or go before it, and moves on when it goes.
    private(set) var index = 0
    private var shownID: String?
    /// Told when the last item went (deleted here or by another program): the viewer has nothing to show.
    var onEmpty: () -> Void = {}
    /// Told when the item shown went to the Trash from here (the window offers Undo).
    var onDeleted: () -> Void = {}
    /// The zoom and scroll position (`CameraModel.ZoomGeometry`, tested without a display).
    private var geometry = ZoomGeometry()
    /// The zoom factor; nil fits the picture to the window.
    private var zoom: Double? { geometry.zoom }
    private var pinchStart = 1.0
    /// The photo's point (its pixels) that was between the fingers when the pinch began.
    private var pinchAnchor: ZoomGeometry.Point?
    /// Where the pointer is over the picture (the point Ctrl+scroll zooms about).
    private var pointer: ZoomGeometry.Point?
    private var dragStart = (x: 0.0, y: 0.0)
    /// The longest side of the picture decoded so far (smaller than the photo's until zoomed
    /// past the window's size).
    private var decodedLongest = 0
    private var loading: Task<Void, Never>?

    init(gallery: GalleryModel, albumMenu: AlbumMenu? = nil) {
        self.gallery = gallery
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        let header = adw_header_bar_new()!
        adw_header_bar_pack_start(cast(header), actionButton("go-previous-symbolic", L("Back to Gallery"), "app.back"))
        title = adw_window_title_new("", "")
        adw_header_bar_set_title_widget(cast(header), title)
        adw_header_bar_pack_end(cast(header), actionButton("user-trash-symbolic", L("Move to Trash"), "viewer.delete"))
        favorite = gtk_toggle_button_new()
        gtk_button_set_icon_name(cast(favorite), "non-starred-symbolic")
        label(favorite, L("Favourite"))
        gtk_actionable_set_action_name(cast(favorite), "viewer.favorite")
        adw_header_bar_pack_end(cast(header), favorite)
        infoButton = gtk_toggle_button_new()
        gtk_button_set_icon_name(cast(infoButton), "document-properties-symbolic")
        label(infoButton, L("Properties"))
        gtk_actionable_set_action_name(cast(infoButton), "viewer.info")
        adw_header_bar_pack_end(cast(header), infoButton)
        adw_header_bar_pack_end(cast(header), Sharing.menuButton())
        if let albumMenu { adw_header_bar_pack_end(cast(header), albumMenu.button()) }
        adw_header_bar_pack_end(cast(header), actionButton("zoom-fit-best-symbolic", L("Best Fit or Original Size"), "viewer.toggle-zoom"))
        gtk_box_append(cast(widget), header)

        picture = gtk_picture_new()
        gtk_picture_set_can_shrink(cast(picture), 1)
        gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_CONTAIN)
        pinhole_set_accessible_label(picture, L("Photo"))
        scrolled = gtk_scrolled_window_new()
        gtk_scrolled_window_set_child(cast(scrolled), picture)
        gtk_scrolled_window_set_policy(cast(scrolled), GTK_POLICY_NEVER, GTK_POLICY_NEVER)
        addClass(scrolled, "viewer")
        video = gtk_video_new()
        gtk_video_set_autoplay(cast(video), 1)
        ViewerPage.nameControls(of: video)
        // A video asks for its own size; held in a scrolled window it fits the page instead of
        // growing the window.
        let videoFrame = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_policy(cast(videoFrame), GTK_POLICY_EXTERNAL, GTK_POLICY_EXTERNAL)
        gtk_scrolled_window_set_child(cast(videoFrame), video)
        stack = gtk_stack_new()
        gtk_stack_add_named(cast(stack), scrolled, "photo")
        gtk_stack_add_named(cast(stack), videoFrame, "video")
        gtk_widget_set_vexpand(stack, 1)

        let overlay = gtk_overlay_new()!
        gtk_overlay_set_child(cast(overlay), stack)
        for (icon, name, action, side) in [("go-previous-symbolic", L("Previous"), "viewer.previous", GTK_ALIGN_START),
                                           ("go-next-symbolic", L("Next"), "viewer.next", GTK_ALIGN_END)] {
            let button = gtk_button_new_from_icon_name(icon)!
            label(button, name)
            addClass(button, "osd")
            addClass(button, "circular")
            gtk_widget_set_halign(button, side)
            gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
            gtk_widget_set_margin_start(button, 12)
            gtk_widget_set_margin_end(button, 12)
            gtk_actionable_set_action_name(cast(button), action)
            gtk_overlay_add_overlay(cast(overlay), button)
        }
        gtk_widget_set_hexpand(overlay, 1)
        let body = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
        gtk_box_append(cast(body), overlay)
        gtk_box_append(cast(body), info.widget)
        gtk_widget_set_vexpand(body, 1)
        gtk_box_append(cast(widget), body)
        addGestures(overlay)
        addActions()
        // The photo dragged out is its file (to a file manager, a mail, a chat); a zoomed photo pans instead.
        Sharing.dragOut(from: picture) { [weak self] in
            guard let self, self.zoom == nil, let item = self.shownItem else { return [] }
            return [item]
        }
    }

    /// The viewer's actions and keys: its buttons', and what acts on its item from the
    /// application (Copy, Save As…) or goes back.
    private func addActions() {
        // The page's widget holds the group (`viewer.*`, for its buttons) and the keys, which
        // work while the page is shown.
        let actions = WidgetActions("viewer", on: widget)
        actions.add("previous", keys: ["Left"]) { [weak self] in self?.step(-1) }
        actions.add("next", keys: ["Right"]) { [weak self] in self?.step(1) }
        actions.add("play-pause", keys: ["k"]) { [weak self] in self?.playOrPause() }
        actions.add("seek-backward", keys: ["<Shift>Left"]) { [weak self] in self?.seek(by: -ViewerPage.seekStep) }
        actions.add("seek-forward", keys: ["<Shift>Right"]) { [weak self] in self?.seek(by: ViewerPage.seekStep) }
        actions.add("zoom-in", keys: ["<Control>plus", "<Control>equal", "<Control>KP_Add"]) { [weak self] in self?.zoomIn() }
        actions.add("zoom-out", keys: ["<Control>minus", "<Control>KP_Subtract"]) { [weak self] in self?.zoomOut() }
        actions.add("zoom-fit", keys: ["<Control>0"]) { [weak self] in self?.zoomToFit() }
        actions.add("toggle-zoom") { [weak self] in self?.toggleZoom() }
        actions.add("favorite", keys: ["f"]) { [weak self] in self?.toggleFavorite() }
        actions.add("info", keys: ["<Alt>Return", "<Alt>KP_Enter"]) { [weak self] in self?.toggleInfo() }
        actions.add("delete", keys: ["Delete"]) { [weak self] in
            guard let self else { return }
            self.deleteShown(onDeleted: { [weak self] in self?.onDeleted() }, onEmpty: { [weak self] in self?.onEmpty() })
        }
        actions.bind(["Escape"], to: "app.back")
        actions.bind(["<Control>c"], to: "app.copy")
        actions.bind(["<Control><Shift>s"], to: "app.save-as")
    }

    /// Zoom by Ctrl+scroll and pinch, fit/100 % by double-click, pan by dragging, step by swiping.
    /// A touch sequence says it is a finger: on X11 and Wayland its device is a touchscreen, but
    /// GTK's Broadway backend gives touches its pointer device.
    private func addGestures(_ overlay: Widget) {
        let motion = gtk_event_controller_motion_new()!
        connectPoint(UnsafeMutableRawPointer(motion), "motion") { [weak self] x, y in self?.pointer = ZoomGeometry.Point(x: x, y: y) }
        connect(UnsafeMutableRawPointer(motion), "leave") { [weak self] in self?.pointer = nil }
        gtk_widget_add_controller(scrolled, motion)

        let scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_VERTICAL)!
        connectScroll(UnsafeMutableRawPointer(scroll)) { [weak self] _, dy in
            guard let self, gtk_event_controller_get_current_event_state(scroll).rawValue & GDK_CONTROL_MASK.rawValue != 0 else { return false }
            if dy < 0 { self.zoomIn(around: self.pointer) } else if dy > 0 { self.zoomOut(around: self.pointer) }
            return true
        }
        gtk_widget_add_controller(scrolled, scroll)

        let click = gtk_gesture_click_new()!
        connectPressed(UnsafeMutableRawPointer(click)) { [weak self] presses, x, y in
            guard let self, presses == 2 else { return }
            var point = ZoomGeometry.Point(x: 0, y: 0)
            gtk_widget_translate_coordinates(self.picture, self.scrolled, x, y, &point.x, &point.y)
            self.toggleZoom(around: point)
        }
        gtk_widget_add_controller(picture, cast(click))

        // The photo's point first between the fingers follows them as they spread and move.
        let pinch = gtk_gesture_zoom_new()!
        let fingers = { () -> ZoomGeometry.Point? in
            var center = ZoomGeometry.Point(x: 0, y: 0)
            return gtk_gesture_get_bounding_box_center(cast(pinch), &center.x, &center.y) != 0 ? center : nil
        }
        connect(UnsafeMutableRawPointer(pinch), "begin") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self else { return }
            // Both fingers are the pinch's: the scrolled window's own touch panning lets go of them.
            gtk_gesture_set_state(cast(pinch), GTK_EVENT_SEQUENCE_CLAIMED)
            self.readWindow()
            self.pinchStart = self.geometry.scale
            self.pinchAnchor = fingers().map { self.geometry.photoPoint(under: $0) }
        }
        connectDouble(UnsafeMutableRawPointer(pinch), "scale-changed") { [weak self] scale in
            guard let self else { return }
            self.change { geometry in
                if let anchor = self.pinchAnchor, let center = fingers() {
                    geometry.zoom(to: self.pinchStart * scale, placing: anchor, at: center)
                } else {
                    geometry.zoom(to: self.pinchStart * scale)
                }
            }
        }
        // In the capture phase, as the scrolled window's own touch panning: a finger that panned
        // is stopped there, and a bubble-phase pinch never heard it lift and counted it down for good.
        gtk_event_controller_set_propagation_phase(cast(pinch), GTK_PHASE_CAPTURE)
        gtk_widget_add_controller(scrolled, cast(pinch))

        // Panning with the mouse; a finger pans through the scrolled window's own touch
        // panning (with its kinetic scrolling), which this would double, so touch is left to it.
        let drag = gtk_gesture_drag_new()!
        connectPoint(UnsafeMutableRawPointer(drag), "drag-begin") { [weak self] _, _ in
            guard let self else { return }
            self.dragStart = (gtk_adjustment_get_value(gtk_scrolled_window_get_hadjustment(cast(self.scrolled))),
                              gtk_adjustment_get_value(gtk_scrolled_window_get_vadjustment(cast(self.scrolled))))
        }
        connectPoint(UnsafeMutableRawPointer(drag), "drag-update") { [weak self] dx, dy in
            guard let self, self.zoom != nil, gtk_gesture_single_get_current_sequence(cast(drag)) == nil else { return }
            gtk_adjustment_set_value(gtk_scrolled_window_get_hadjustment(cast(self.scrolled)), self.dragStart.x - dx)
            gtk_adjustment_set_value(gtk_scrolled_window_get_vadjustment(cast(self.scrolled)), self.dragStart.y - dy)
        }
        gtk_widget_add_controller(scrolled, cast(drag))

        let swipe = gtk_gesture_swipe_new()!
        gtk_gesture_single_set_touch_only(cast(swipe), 1)
        connectPoint(UnsafeMutableRawPointer(swipe), "swipe") { [weak self] vx, vy in
            guard let self, self.zoom == nil, abs(vx) > 600, abs(vx) > 2 * abs(vy) else { return }
            self.step(vx < 0 ? 1 : -1)
        }
        gtk_event_controller_set_propagation_phase(cast(swipe), GTK_PHASE_CAPTURE)  // as the pinch
        gtk_widget_add_controller(overlay, cast(swipe))
    }

    /// Shows the gallery's item at `index`, fitted.
    func show(_ index: Int) {
        guard gallery.items.indices.contains(index) else { return }
        self.index = index
        let asset = gallery.items[index]
        shownID = asset.id
        showTitle(asset)
        geometry.fit()
        loading?.cancel()
        showFavorite(asset.isFavorite)
        if info.isShown { info.show(asset) }
        if asset.mediaType == .video {
            gtk_picture_set_paintable(cast(picture), nil)
            gtk_video_set_filename(cast(video), asset.path)
            gtk_stack_set_visible_child_name(cast(stack), "video")
            return
        }
        gtk_video_set_file(cast(video), nil)
        gtk_stack_set_visible_child_name(cast(stack), "photo")
        // Decoded for the window (JPEG's DCT scaling makes a 12 MP photo's decode and GTK's
        // scaling at every frame several times cheaper); the whole photo only once zoomed past it.
        let full = max(1, asset.pixelWidth, asset.pixelHeight)
        // The page's own size, or the window's when the page has not been laid out yet (its first use).
        var area = max(gtk_widget_get_width(scrolled), gtk_widget_get_height(scrolled))
        if area <= 1, let root = gtk_widget_get_root(scrolled) { area = max(gtk_widget_get_width(cast(root)), gtk_widget_get_height(cast(root))) }
        let window = Int(Double(area) * Double(gtk_widget_get_scale_factor(scrolled)))
        decodedLongest = 0
        geometry.photo = ZoomGeometry.Point(x: 0, y: 0)
        load(asset, index: index, longest: window > 0 ? min(full, window) : full)
    }

    /// Decodes the item's photo upright with its longest side `longest` (off the main thread) and
    /// shows it; the picture's full size stays what zooming counts in.
    private func load(_ asset: Asset, index: Int, longest: Int) {
        let path = asset.path
        loading = Task { [weak self] in
            let decoded = await Task.detached { try? Thumbnailer().thumbnail(ofFile: path, longestSide: longest).forDisplay() }.value
            guard let self, !Task.isCancelled, self.index == index else { return }
            guard let image = decoded else {
                gtk_picture_set_paintable(cast(self.picture), nil)
                return
            }
            let texture = lendTexture(image)
            gtk_picture_set_paintable(cast(self.picture), cast(texture))
            g_object_unref(UnsafeMutableRawPointer(texture))
            Marks.mark(.viewerDecoded(longest: max(image.width, image.height)))
            self.decodedLongest = max(image.width, image.height)
            // The index's size is the stored one: turned by EXIF, the upright picture swaps it.
            let (width, height) = asset.pixelWidth > 0 && asset.pixelHeight > 0 ? (asset.pixelWidth, asset.pixelHeight) : (image.width, image.height)
            let upright = (width >= height) == (image.width >= image.height) ? (width, height) : (height, width)
            self.geometry.photo = ZoomGeometry.Point(x: Double(upright.0), y: Double(upright.1))
            self.applyZoom()
        }
    }

    /// Shows or hides the information panel (Alt+Enter).
    func toggleInfo() {
        let shown = !info.isShown
        if shown, let item = shownItem { info.show(item) }
        info.setShown(shown)
        gtk_toggle_button_set_active(cast(infoButton), shown ? 1 : 0)
    }

    /// The item shown.
    var shownItem: Asset? { gallery.items.indices.contains(index) ? gallery.items[index] : nil }

    private func showTitle(_ asset: Asset) {
        adw_window_title_set_title(cast(title), GalleryModel.accessibleName(of: asset))
        adw_window_title_set_subtitle(cast(title), CameraWords.translate("%@ of %@", String(index + 1), String(gallery.items.count)))
    }

    /// Follows the gallery's items (the item shown may have moved, changed or gone) until the
    /// subscription ends; the window keeps it.
    func watch() -> Subscription {
        gallery.splices.subscribe { [weak self] _ in self?.itemsChanged() }
    }

    /// Follows a change of the gallery's items while the viewer is open: the same item at its new
    /// position, or, when it went, the one that took its place.
    private func itemsChanged() {
        guard let shownID, gtk_widget_get_mapped(widget) != 0 else { return }
        if let position = gallery.items.firstIndex(where: { $0.id == shownID }) {
            index = position
            showTitle(gallery.items[position])
            showFavorite(gallery.items[position].isFavorite)
        } else if gallery.items.isEmpty {
            self.shownID = nil
            onEmpty()
        } else {
            show(min(index, gallery.items.count - 1))
        }
    }

    /// Stops a playing video and lets the picture go (the page was left).
    func close() {
        shownID = nil
        loading?.cancel()
        gtk_video_set_file(cast(video), nil)
        gtk_picture_set_paintable(cast(picture), nil)
    }

    private func showFavorite(_ on: Bool) {
        gtk_toggle_button_set_active(cast(favorite), on ? 1 : 0)
        gtk_button_set_icon_name(cast(favorite), on ? "starred-symbolic" : "non-starred-symbolic")
        label(favorite, on ? L("Favourite: On") : L("Favourite: Off"))
    }

    /// Marks the item shown as a favourite, or unmarks it (F).
    func toggleFavorite() {
        guard gallery.items.indices.contains(index) else { return }
        let asset = gallery.items[index]
        showFavorite(!asset.isFavorite)
        Task { await gallery.setFavorite(!asset.isFavorite, for: asset) }
    }

    /// Moves the item shown to the Trash (Delete) and shows the next one, or the one before at
    /// the end; `onDeleted` offers Undo. With nothing left the viewer closes.
    func deleteShown(onDeleted: @escaping @MainActor () -> Void, onEmpty: @escaping @MainActor () -> Void) {
        guard gallery.items.indices.contains(index) else { return }
        let asset = gallery.items[index], position = index
        Task {
            guard await gallery.delete([asset]) else { return }
            onDeleted()
            if gallery.items.isEmpty { onEmpty() } else { show(min(position, gallery.items.count - 1)) }
        }
    }

    /// The next (1) or previous (-1) item, if there is one.
    func step(_ delta: Int) {
        let next = index + delta
        if gallery.items.indices.contains(next) { show(next) }
    }

    /// A quarter larger, about `point` (the scrolled window's coordinates; nil: its middle).
    func zoomIn(around point: ZoomGeometry.Point? = nil) { change { $0.zoomIn(around: point) } }

    /// A quarter smaller, down to the fitted picture, about `point` (nil: the middle).
    func zoomOut(around point: ZoomGeometry.Point? = nil) { change { $0.zoomOut(around: point) } }

    /// Back to the fitted picture.
    func zoomToFit() { change { $0.fit() } }

    /// Fitted ↔ 100 % (a pixel of the photo for a pixel of the screen), about `point` (nil: the middle).
    func toggleZoom(around point: ZoomGeometry.Point? = nil) {
        let deviceScale = Double(gtk_widget_get_scale_factor(scrolled))
        change { $0.toggle(around: point, deviceScale: deviceScale) }
    }

    /// Copies the scrolled window's size and position into the geometry.
    private func readWindow() {
        geometry.window = ZoomGeometry.Point(x: Double(gtk_widget_get_width(scrolled)), y: Double(gtk_widget_get_height(scrolled)))
        geometry.scroll = ZoomGeometry.Point(x: gtk_adjustment_get_value(gtk_scrolled_window_get_hadjustment(cast(scrolled))),
                                             y: gtk_adjustment_get_value(gtk_scrolled_window_get_vadjustment(cast(scrolled))))
    }

    /// Runs `body` on the geometry as the window is now, and shows the result.
    private func change(_ body: (inout ZoomGeometry) -> Void) {
        readWindow()
        body(&geometry)
        applyZoom()
        guard let content = geometry.content else { return }
        // The adjustments are given the zoomed size now, with the position: set only after the
        // layout had grown them, a position did not move the picture until the next layout
        // (GTK 4.8's viewport had already placed it).
        let window = geometry.window
        gtk_adjustment_configure(gtk_scrolled_window_get_hadjustment(cast(scrolled)), geometry.scroll.x, 0, content.x, window.x * 0.1, window.x * 0.9, window.x)
        gtk_adjustment_configure(gtk_scrolled_window_get_vadjustment(cast(scrolled)), geometry.scroll.y, 0, content.y, window.y * 0.1, window.y * 0.9, window.y)
    }

    /// Shows the geometry's zoom: the picture's size and the scroll bars' policy, and a sharper
    /// picture once zoomed past what was decoded.
    private func applyZoom() {
        if let zoom, geometry.photo.x > 0 {
            // Zoomed past what was decoded: the sharper picture, up to the whole photo.
            let full = Int(max(geometry.photo.x, geometry.photo.y))
            let needed = geometry.neededLongestSide(deviceScale: Double(gtk_widget_get_scale_factor(scrolled))) ?? 0
            if needed > decodedLongest, decodedLongest > 0, let asset = shownItem {
                decodedLongest = full  // asked for once
                load(asset, index: index, longest: full)
            }
            gtk_scrolled_window_set_policy(cast(scrolled), GTK_POLICY_AUTOMATIC, GTK_POLICY_AUTOMATIC)
            // Contained: a side smaller than the window is centred, not stretched to fill it.
            gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_CONTAIN)
            gtk_widget_set_size_request(picture, Int32(geometry.photo.x * zoom), Int32(geometry.photo.y * zoom))
        } else {
            gtk_scrolled_window_set_policy(cast(scrolled), GTK_POLICY_NEVER, GTK_POLICY_NEVER)
            gtk_widget_set_size_request(picture, -1, -1)
        }
    }
}
