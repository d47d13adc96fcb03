import CameraModel
import Capture
import CGtk
import Glibc
import PhotoLibrary

/// The application: one instance per user session (a second launch presents the window). What
/// is application-wide or for scripts is an `app.*` GAction, so buttons, shortcuts, menus and
/// D-Bus (`gapplication action io.github.pinhole.Camera take-photo`) reach the same code; a
/// page's own actions and keys are the page's (`CameraPage`, `GalleryPage`, `ViewerPage`).
@MainActor
final class CameraApplication {
    /// The reverse-DNS application ID used everywhere (desktop entry, metainfo, icon, schema, D-Bus).
    static let id = "io.github.pinhole.Camera"
    let app: UnsafeMutablePointer<AdwApplication>
    /// The camera window (nil before the first activation and once it is gone).
    var window: CameraWindow?
    /// What the application follows in the model (cancelled with it: never before quitting).
    var subscriptions: [Subscription] = []
    /// A quit has begun: windows are gone or going, and the process ends when work in flight has.
    var isQuitting = false
    private(set) var model: CameraModel?
    private let sound = ShutterSound()
    private var inhibitCookie: UInt32 = 0
    private var settings: SettingsStore?
    /// Pickers open for other programs (`--pick`), each until its choice is made.
    var pickers: [ObjectIdentifier: PickerWindow] = [:]
    /// The exit status of a `--pick` run in this very process (GApplication takes the command
    /// line handler's status only before the main loop runs, and the choice comes after).
    private var localExitStatus: Int32?

    init() {
        app = adw_application_new(CameraApplication.id, G_APPLICATION_HANDLES_COMMAND_LINE)
        connect(UnsafeMutableRawPointer(app), "startup") { [weak self] in self?.startup() }
        connect(UnsafeMutableRawPointer(app), "activate") { [weak self] in self?.activate() }
        connectCommandLine(UnsafeMutableRawPointer(app)) { [weak self] line in self?.commandLine(line) ?? 0 }
        connect(UnsafeMutableRawPointer(app), "shutdown") { [weak self] in self?.shutdown() }
    }

    /// Runs the main loop until the last window closes; the exit status.
    func run() -> Int32 {
        let status = g_application_run(cast(app), CommandLine.argc, CommandLine.unsafeArgv)
        return localExitStatus ?? status
    }

    /// A command line, this process's or a second `pinhole-camera`'s (which waits, and exits
    /// with the status set here, once `line` is let go).
    private func commandLine(_ line: UnsafeMutablePointer<GApplicationCommandLine>) -> Int32 {
        var count: Int32 = 0
        let argv = g_application_command_line_get_arguments(line, &count)
        defer { g_strfreev(argv) }
        let arguments = (1..<max(1, Int(count))).compactMap { argv?[$0].map { String(cString: $0) } }
        switch LaunchRequest.parse(arguments) {
        case .camera:
            g_application_activate(cast(app))
            return 0
        case let .help(text):
            pinhole_command_line_print(line, text)
            return 0
        case let .invalid(message):
            pinhole_command_line_printerr(line, "pinhole-camera: " + message + "\n")
            return LaunchRequest.usageStatus
        case let .pick(request):
            pick(request, for: line)
            return 0
        }
    }

    /// Opens a picker; the chosen paths go to the standard output of the command line that
    /// asked, which ends with status 0, or 1 when nothing was chosen.
    private func pick(_ request: PickRequest, for line: UnsafeMutablePointer<GApplicationCommandLine>) {
        guard let model else { return }
        g_object_ref(UnsafeMutableRawPointer(line))
        g_application_hold(cast(app))
        let isLocal = g_application_command_line_get_is_remote(line) == 0
        var key: ObjectIdentifier?
        let picker = PickerWindow(gallery: model.makeGallery(of: request.mediaType), request: request) { [weak self] items in
            let status = items == nil ? LaunchRequest.cancelledStatus : 0
            if let items { pinhole_command_line_print(line, PickRequest.output(for: items.map(\.path))) }
            g_application_command_line_set_exit_status(line, status)
            g_object_unref(UnsafeMutableRawPointer(line))
            guard let self else { return }
            if isLocal { self.localExitStatus = status }
            if let key { self.pickers[key] = nil }
            g_application_release(cast(self.app))
        }
        key = ObjectIdentifier(picker)
        pickers[ObjectIdentifier(picker)] = picker
    }

    var gtkApp: UnsafeMutablePointer<GtkApplication> { cast(app) }

    private func startup() {
        Style.install()
        if let icons = Installation.sourceTreeIcons, let display = gdk_display_get_default() {
            gtk_icon_theme_add_search_path(gtk_icon_theme_get_for_display(display), icons)
        }
        gtk_window_set_default_icon_name(CameraApplication.id)
        let settings = SettingsStore()
        self.settings = settings
        let environment = ProcessEnvironment()
        let location = environment["PINHOLE_LIBRARY"].map { LibraryLocation(folder: $0) } ?? .user
        let model = CameraModel(preferences: settings, library: location, testCameras: environment["PINHOLE_TEST_CAMERA"] == "1")
        self.model = model
        model.events.subscribe { [weak self] event in self?.handle(event) }.store(in: &subscriptions)
        observe { [weak self, unowned model] in self?.inhibit(model.inhibitsSuspend) }.store(in: &subscriptions)
        // SIGTERM, SIGINT and SIGHUP (a logout, Ctrl-C in a terminal) quit as app.quit does.
        followWorkInFlight(model)
        addActions(model)
    }

    private func activate() {
        guard !isQuitting else { return }
        if window == nil, let model {
            // The camera opens on a worker thread while the window is built; its first frames are
            // made no larger than the window (the preview's exact size follows once it is laid out).
            model.setPreviewSize(width: CameraWindow.defaultSize.width, height: CameraWindow.defaultSize.height)
            model.start()
            // A window made again after the first one went (a picker kept the app running).
            model.resume()
            let window = CameraWindow(application: gtkApp, model: model)
            self.window = window
            addAction(UnsafeMutableRawPointer(window.window), "quit") { [weak self] _ in self?.quitFromWindow() }
            // close-request's handler returns true to keep the window open.
            connectBool(UnsafeMutableRawPointer(window.window), "close-request") { [weak self] in !(self?.windowMayClose() ?? true) }
            connect(UnsafeMutableRawPointer(window.window), "destroy") { [weak self] in self?.windowGone() }
        }
        if let window { gtk_window_present(cast(window.window)) }
    }

    /// The main loop has ended: normally once the windows are gone and the model's work in
    /// flight (its own shutdown included) has finished, which held the application until then.
    /// Only a second SIGTERM or SIGINT ends it earlier; what was cut is said on standard error.
    private func shutdown() {
        guard let model else { return }
        if window != nil { windowGone() }
        let unfinished = model.work.running.map { "\($0.value) \($0.key.rawValue)" }.sorted()
        if !unfinished.isEmpty { journal("quit before this work finished: " + unfinished.joined(separator: ", ")) }
    }

    /// What the model tells once: the shutter's blink and sound, toasts (to the journal when no
    /// window shows them), a photo discarded (with Undo); a photo saved needs nothing here.
    private func handle(_ event: CameraEvent) {
        switch event {
        case .shutter:
            window?.preview.blink()
            if model?.preferences.bool(PreferenceKey.shutterSound) == true { sound.play() }
        case let .toast(text):
            if window == nil { journal(text) }
        case .photoSaved:
            break
        case .photoDiscarded:
            window?.toast(L("Photo discarded"), undo: "app.undo-discard", replacing: true)
        }
    }

    private func inhibit(_ on: Bool) {
        if on, inhibitCookie == 0 {
            inhibitCookie = gtk_application_inhibit(gtkApp, window.map { cast($0.window) }, GTK_APPLICATION_INHIBIT_SUSPEND, L("Recording a video"))
        } else if !on, inhibitCookie != 0 {
            gtk_application_uninhibit(gtkApp, inhibitCookie)
            inhibitCookie = 0
        }
    }

    // MARK: Actions

    /// The application's actions: what scripts and other programs run over D-Bus, what toasts
    /// and dialogs outside the pages run, and what acts on the viewer's item or the gallery's
    /// selection alike; with the keys that work on every page.
    private func addActions(_ model: CameraModel) {
        let map = UnsafeMutableRawPointer(app)
        // G, its key, works on the camera page only (`CameraPage`).
        let grid = addToggleAction(map, "toggle-grid", initial: model.showsGrid) { model.setGrid(!model.showsGrid) }
        // From a script, on any page: the camera page is shown and the photo taken (or the
        // recording started or stopped) once its picture runs.
        addAction(map, "take-photo") { [weak self] _ in
            self?.window?.show(.camera)
            model.setMode(.photo)
            model.shutterWhenReady()
        }
        addAction(map, "record") { [weak self] _ in
            self?.window?.show(.camera)
            model.setMode(.video)
            model.shutterWhenReady()
        }
        // The choices are stateful: menus mark the one made, the mode's toggle buttons follow it,
        // and the state is the model's (observed), whatever changed it.
        let mode = addChoiceAction(map, "mode", initial: model.mode.rawValue) { model.setMode(CaptureMode(rawValue: $0) ?? .photo) }
        let flash = addChoiceAction(map, "flash", initial: model.flash.rawValue) { model.setFlash(FlashSetting(rawValue: $0) ?? .off) }
        let timer = addChoiceAction(map, "timer", initial: String(model.countdown)) { model.setCountdown(Int($0) ?? 0) }
        let filter = addChoiceAction(map, "filter", initial: model.filter.rawValue) { model.setFilter(LiveFilter(rawValue: $0) ?? .none) }
        observe {
            setState(mode, model.mode.rawValue)
            // The mode cannot change while recording: its buttons and menu items are greyed.
            setEnabled(mode, !model.isRecording)
        }.store(in: &subscriptions)
        observe { setState(flash, model.flash.rawValue) }.store(in: &subscriptions)
        observe { setState(timer, String(model.countdown)) }.store(in: &subscriptions)
        observe { setState(filter, model.filter.rawValue) }.store(in: &subscriptions)
        observe { setState(grid, model.showsGrid) }.store(in: &subscriptions)
        addAction(map, "save-photo") { _ in model.savePendingPhoto() }
        addAction(map, "discard-photo") { _ in model.discardPendingPhoto() }
        addAction(map, "undo-discard") { _ in model.undoDiscard() }
        addAction(map, "open-newest") { _ in
            guard let path = model.newestItem, let uri = g_filename_to_uri(path, nil, nil) else { return }
            defer { g_free(uri) }
            g_app_info_launch_default_for_uri(uri, nil, nil)
        }
        addAction(map, "gallery") { [weak self] _ in self?.window?.show(.gallery) }
        addAction(map, "show-camera") { [weak self] _ in self?.window?.show(.camera) }
        addAction(map, "back") { [weak self] _ in self?.window?.back() }
        addAction(map, "recently-deleted") { [weak self] _ in self?.window?.show(.trash) }
        addAction(map, "undo-delete") { _ in Task { await model.gallery.undoDelete() } }
        addShareActions(map, model)
        addAlbumActions(map, model)
        addImportActions(map, model: model) { [weak self] in self?.window }
        addAction(map, "about") { [weak self] _ in self?.showAbout() }
        addAction(map, "preferences") { [weak self] _ in self?.showPreferences() }
        // From D-Bus or a script (no one to ask): photos waiting for confirmation are saved.
        // The window's Ctrl+Q is win.quit, which asks.
        addAction(map, "quit") { [weak self] _ in self?.quitUnattended() }
        setAccels(gtkApp, "app.gallery", ["<Control>g"])
        setAccels(gtkApp, "app.back", ["<Alt>Left"])
        setAccels(gtkApp, "app.preferences", ["<Control>comma"])
        setAccels(gtkApp, "win.quit", ["<Control>q"])
        setAccels(gtkApp, "window.close", ["<Control>w"])
        setAccels(gtkApp, "win.show-help-overlay", ["<Control>question"])
    }

    /// Copy, Open With…, Show in Files and Save As…: on the viewer's item or the gallery's
    /// selection (their keys are those pages').
    private func addShareActions(_ map: UnsafeMutableRawPointer, _ model: CameraModel) {
        addAction(map, "copy") { [weak self] _ in
            guard let window = self?.window else { return }
            let items = window.currentItems
            Sharing.copy(items, widget: window.window) { [weak window] in
                window?.toast(items.count == 1 ? L("Copied to the clipboard") : CameraWords.translate("%@ items copied to the clipboard", String(items.count)))
            }
        }
        addAction(map, "show-in-files") { [weak self] _ in
            guard let self, let window = self.window else { return }
            Sharing.showInFiles(window.currentItems.map(\.path), connection: g_application_get_dbus_connection(cast(self.app)))
        }
        addAction(map, "open-with") { [weak self] _ in
            guard let self, let window = self.window, let item = window.currentItems.first else { return }
            OpenWith.open(item, parent: window.window, connection: g_application_get_dbus_connection(cast(self.app)))
        }
        addAction(map, "save-as") { [weak self] _ in
            guard let window = self?.window, let item = window.currentItems.first else { return }
            Sharing.saveAs(item, parent: window.window, gallery: model.gallery) { [weak window] path in
                if let path { window?.toast(CameraWords.translate("Saved as %@", path)) }
            }
        }
    }

    private func showAbout() {
        let about = adw_about_window_new()!
        adw_about_window_set_application_name(cast(about), L("Camera"))
        adw_about_window_set_application_icon(cast(about), CameraApplication.id)
        adw_about_window_set_developer_name(cast(about), "The Pinhole developers")
        adw_about_window_set_version(cast(about), PinholeVersion.string)
        adw_about_window_set_license_type(cast(about), GTK_LICENSE_GPL_3_0)
        adw_about_window_set_comments(cast(about), L("Take photos and videos with your camera"))
        if let window { gtk_window_set_transient_for(cast(about), cast(window.window)) }
        gtk_window_present(cast(about))
    }

    private func showPreferences() {
        guard let model else { return }
        PreferencesWindow.present(model: model, parent: window.map { cast($0.window) })
    }
}

/// The process environment as a dictionary lookup.
struct ProcessEnvironment {
    subscript(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
