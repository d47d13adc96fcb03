import CameraModel
import CGtk
import Glibc
import PhotoLibrary

/// The one window: a stack of pages (the camera, the gallery, the viewer, Recently Deleted)
/// inside a toast overlay. Each page owns its actions and keys (`camera.*`, `gallery.*`,
/// `viewer.*`), which work while it is shown; each part observes what it shows of the model and
/// redraws when that changes.
@MainActor
final class CameraWindow {
    /// The AdwApplicationWindow.
    let window: Widget
    let model: CameraModel
    /// The camera page: the header, the preview with its controls, the status page, the confirmation.
    let camera: CameraPage
    /// The live preview (the camera page's).
    var preview: PreviewArea { camera.preview }
    let toasts: Widget
    /// The gallery and viewer pages, beside the camera page in `pages`: made on first use, so
    /// start-up builds only the camera page (the viewer's GtkVideo among what it skips).
    private(set) lazy var gallery: GalleryPage = {
        let page = GalleryPage(gallery: model.gallery, albumMenu: albumMenu)
        page.onOpen = { [weak self] index in self?.show(.viewer, item: index) }
        page.onDeleted = { [weak self] text, undo in self?.toast(text, undo: undo) }
        subscriptions += page.watch()
        subscriptions.append(ImportControls.attach(to: page, importer: model.importer))
        gtk_stack_add_named(cast(pages), page.widget, "gallery")
        return page
    }()
    private(set) lazy var viewer: ViewerPage = {
        let page = ViewerPage(gallery: model.gallery, albumMenu: albumMenu)
        page.onEmpty = { [weak self] in self?.show(.gallery) }
        page.onDeleted = { [weak self] in self?.toast(L("Moved to Trash"), undo: "app.undo-delete") }
        subscriptions.append(page.watch())
        gtk_stack_add_named(cast(pages), page.widget, "viewer")
        return page
    }()
    /// The Album menu of the gallery's and the viewer's header bars.
    private(set) lazy var albumMenu: AlbumMenu = {
        let menu = AlbumMenu(gallery: model.gallery)
        subscriptions.append(menu.watch())
        return menu
    }()
    private(set) lazy var trash: TrashPage = {
        let page = TrashPage(gallery: model.gallery)
        page.parent = window
        page.onToast = { [weak self] text in self?.toast(text) }
        gtk_stack_add_named(cast(pages), page.widget, "trash")
        return page
    }()
    let pages: Widget
    /// The pages of the window.
    enum Page { case camera, gallery, viewer, trash }
    private(set) var page = Page.camera
    private var minimized = false
    /// The marks read from the window's frame clock (nil when marks are off).
    private var frameMarks: FrameMarks?

    /// The window's size when it opens (GTK's logical pixels).
    static let defaultSize = (width: 960, height: 720)

    init(application: UnsafeMutablePointer<GtkApplication>, model: CameraModel) {
        self.model = model
        camera = CameraPage(model: model)
        window = adw_application_window_new(application)
        gtk_window_set_title(cast(window), L("Camera"))
        gtk_window_set_default_size(cast(window), Int32(CameraWindow.defaultSize.width), Int32(CameraWindow.defaultSize.height))
        gtk_widget_set_size_request(window, 360, 294)

        pages = gtk_stack_new()
        gtk_stack_set_transition_type(cast(pages), GTK_STACK_TRANSITION_TYPE_SLIDE_LEFT_RIGHT)
        gtk_stack_add_named(cast(pages), camera.widget, "camera")
        toasts = adw_toast_overlay_new()
        adw_toast_overlay_set_child(cast(toasts), pages)
        adw_application_window_set_content(cast(window), toasts)
        ShortcutsWindow.attach(to: window)
        FileDrop.attach(to: window)

        model.gallery.errors.subscribe { [weak self] text in self?.toast(text) }.store(in: &subscriptions)
        model.events.subscribe { [weak self] event in
            if case let .toast(text) = event { self?.toast(text) }
        }.store(in: &subscriptions)
        subscriptions += camera.watch(model)
        every(milliseconds: 500) { [weak self] in
            guard let self, !self.detached else { return false }
            if self.model.isRecording { self.camera.controls.updateElapsed(self.model) }
            return true
        }
        connect(UnsafeMutableRawPointer(window), "realize") { [weak self] in self?.followMinimizing() }
        observe { [weak self] in self?.showScreen() }.store(in: &subscriptions)
        frameMarks = FrameMarks(window: self)
    }

    /// How long a camera may take to start before "Starting the Camera…" is shown.
    static let slowStartMilliseconds: UInt32 = 1000
    /// Whether the camera has been starting for longer than that (the status page says so).
    private var startingIsSlow = false
    /// Counts the times the camera began starting (the screen turned to `.starting`).
    private var startingEpisode = 0
    /// Whether the screen was `.starting` at the last update.
    private var wasStarting = false
    /// The episode the slow-start timer runs for (0: none).
    private var timedEpisode = 0

    /// Starts the timer after which a camera still starting, in the same episode, is said to be starting.
    private func waitForSlowStart() {
        guard timedEpisode != startingEpisode else { return }
        let episode = startingEpisode
        timedEpisode = episode
        after(milliseconds: CameraWindow.slowStartMilliseconds) { [weak self] in
            guard let self, self.startingEpisode == episode, self.model.screen == .starting else { return }
            self.startingIsSlow = true
            self.showScreen()
        }
    }

    /// What the model has the window show (observed): the photo waiting for confirmation, the
    /// preview, or the status page saying why there is none.
    private func showScreen() {
        guard !detached else { return }
        let starting = model.screen == .starting
        if starting && !wasStarting { startingEpisode += 1 }
        wasStarting = starting
        if !starting { startingIsSlow = false }
        let stack = camera.stack
        if let photo = model.pendingPhoto {
            camera.confirm.show(photo, waiting: model.pendingPhotos.count)
            gtk_stack_set_visible_child_name(cast(stack), "confirm")
        } else if model.screen == .preview {
            camera.status.previewShown()
            gtk_stack_set_visible_child_name(cast(stack), "camera")
        } else if model.screen == .starting && !startingIsSlow {
            // A camera usually starts in a fraction of a second: the (empty) preview stays, and
            // "Starting the Camera…" appears only if it takes longer, instead of flashing by.
            waitForSlowStart()
            gtk_stack_set_visible_child_name(cast(stack), "camera")
        } else {
            camera.status.show(model.screen)
            preview.clear()
            gtk_stack_set_visible_child_name(cast(stack), "status")
        }
    }

    /// What the window's parts follow in the model, cancelled by `detach()`.
    private var subscriptions: [Subscription] = []

    /// A toast at the bottom of the window (also logged on standard error, for the journal);
    /// `replacing` dismisses the previous toast made so (each photo discarded replaces the last
    /// one's "Photo discarded", whose Undo brings back the newest first anyway).
    func toast(_ text: String, undo action: String? = nil, replacing: Bool = false) {
        journal(text)
        guard let toast = adw_toast_new(text) else { return }
        adw_toast_set_timeout(toast, 5)
        if let action {
            adw_toast_set_button_label(toast, L("Undo"))
            adw_toast_set_action_name(toast, action)
            adw_toast_set_timeout(toast, 10)
        }
        if replacing {
            if let previous = replaceableToast { adw_toast_dismiss(previous) }
            replaceableToast = toast
            adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
            connect(UnsafeMutableRawPointer(toast), "dismissed") { [weak self] in
                if self?.replaceableToast == toast { self?.replaceableToast = nil }
            }
        }
        adw_toast_overlay_add_toast(cast(toasts), toast)
    }

    /// The toast the next `toast(_:replacing: true)` dismisses (unowned: the overlay owns it
    /// until it is dismissed, when this is cleared).
    private var replaceableToast: OpaquePointer?

    /// The window is being destroyed: the model and the library's models stop calling into its
    /// widgets (about to be freed), the preview stops waking, and the gallery stops following
    /// the library. Nothing here touches a widget.
    func detach() {
        detached = true
        preview.detach()
        subscriptions.cancelAll()
        model.gallery.stop()
    }

    /// Whether `detach()` has run (the widgets are gone).
    private(set) var detached = false

    /// Lets the camera go while the window cannot be seen. GTK 4.8 reports minimising on X11
    /// only (`GDK_TOPLEVEL_STATE_MINIMIZED`); on Wayland (no `suspended` state before GTK 4.12)
    /// `SurfaceVisibility` reads what the compositor does give: mutter 43 takes a minimised
    /// window's surface off every monitor (`leave-monitor`) and stops its frame callbacks, and puts
    /// it back (`enter-monitor`) when restored; any compositor that stops frame callbacks stops
    /// the frame clock's `after-paint` while camera frames keep arriving.
    private func followMinimizing() {
        guard let surface = gtk_native_get_surface(cast(window)) else { return }
        connectNotify(UnsafeMutableRawPointer(surface), "state") { [weak self] in
            guard let self, !self.detached else { return }
            let state = gdk_toplevel_get_state(cast(surface))
            let isMinimized = state.rawValue & GDK_TOPLEVEL_STATE_MINIMIZED.rawValue != 0
            if isMinimized != self.minimized {
                self.minimized = isMinimized
                self.followVisibility()
            }
        }
        connect(UnsafeMutableRawPointer(surface), "enter-monitor") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self, !self.detached else { return }
            if self.visibility.enteredMonitor() { self.followVisibility() }
        }
        connect(UnsafeMutableRawPointer(surface), "leave-monitor") { [weak self] (_: UnsafeMutableRawPointer?) in
            guard let self, !self.detached else { return }
            if self.visibility.leftMonitor() { self.followVisibility() }
        }
        if let clock = gtk_widget_get_frame_clock(window) {
            connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in
                guard let self, !self.detached else { return }
                self.preview.painted()
                if self.visibility.painted(framesGiven: self.cameraFrames, at: Self.seconds) { self.followVisibility() }
            }
        }
        every(milliseconds: 1000) { [weak self] in
            guard let self, !self.detached else { return false }
            let now = Self.seconds
            self.preview.check(at: now)
            if self.visibility.check(framesGiven: self.cameraFrames, at: now) { self.followVisibility() }
            return true
        }
    }

    /// What tells whether the window can be seen, beyond X11's minimised state.
    private var visibility = SurfaceVisibility()

    /// Frames the camera has sent the preview, asked for or not (the preview asks for a frame
    /// only once the last was painted: a window whose paints stopped gets few, while the
    /// camera's keep coming).
    private var cameraFrames: Int { model.previewFrameCount + model.previewUnrequestedFrames }

    /// Now on the monotonic clock, in seconds.
    static var seconds: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Shows `page` (the viewer at the gallery's `item`). The camera is let go while another
    /// page is shown, and the gallery follows the library only while it or the viewer is.
    func show(_ page: Page, item: Int = 0) {
        guard page != self.page || page == .viewer, !(page != .camera && model.isRecording) else { return }
        frameMarks?.pageRequested(page)
        if self.page == .viewer, page != .viewer { viewer.close() }
        self.page = page
        switch page {
        case .camera:
            model.gallery.stop()
            gtk_stack_set_visible_child_name(cast(pages), "camera")
        case .gallery:
            _ = gallery
            model.gallery.start()
            gtk_stack_set_visible_child_name(cast(pages), "gallery")
            // Keys go to the grid at once: arrows move through the items, Ctrl+A selects them.
            gallery.focusGrid()
        case .viewer:
            viewer.show(item)
            gtk_stack_set_visible_child_name(cast(pages), "viewer")
        case .trash:
            trash.reload()
            gtk_stack_set_visible_child_name(cast(pages), "trash")
        }
        followVisibility()
    }

    /// What an action on "this" means: the viewer's item, or the gallery's selection.
    var currentItems: [Asset] {
        switch page {
        case .viewer: return viewer.shownItem.map { [$0] } ?? []
        case .gallery: return gallery.selectedItems
        case .camera, .trash: return []
        }
    }

    /// One page back: viewer or Recently Deleted → gallery → camera.
    func back() {
        switch page {
        case .viewer, .trash: show(.gallery)
        case .gallery: show(.camera)
        case .camera: break
        }
    }

    /// The camera runs only while its page can be seen.
    private func followVisibility() {
        guard !detached else { return }
        model.setCameraVisible(!minimized && !visibility.isHidden && page == .camera)
    }
}
