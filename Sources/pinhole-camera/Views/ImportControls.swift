import CameraModel
import CGtk
import Glibc

/// The gallery's import controls: the "Import…" split button in its header (files; its menu
/// also offers a folder) and, under the grid, a progress bar with Cancel, revealed while an
/// import of more than a few files runs. Both only show the model's `LibraryImport`: the work is
/// `app.import-files`, `app.cancel-import` and the model's.
@MainActor
final class ImportControls {
    /// The header's split button (its main part runs app.import).
    let button: Widget
    /// The revealer holding the progress bar and Cancel.
    let progress: Widget
    /// The progress bar ("3 of 12").
    private let bar: Widget
    /// The Cancel button (app.cancel-import).
    private let cancel: Widget
    /// The import shown.
    private let importer: LibraryImport

    /// Adds the controls to the gallery `page` (its header and the bottom of the page) and
    /// follows `importer`'s progress until the returned subscription ends (which holds them).
    static func attach(to page: GalleryPage, importer: LibraryImport) -> Subscription {
        let controls = ImportControls(importer: importer)
        adw_header_bar_pack_end(cast(page.header), controls.button)
        gtk_box_append(cast(page.widget), controls.progress)
        controls.update()
        return importer.progress.subscribe { controls.update() }
    }

    /// The controls for `importer`, not yet placed.
    private init(importer: LibraryImport) {
        self.importer = importer
        button = adw_split_button_new()
        adw_split_button_set_label(cast(button), L("Import…"))
        gtk_widget_set_tooltip_text(button, L("Import photos and videos"))
        adw_split_button_set_dropdown_tooltip(cast(button), L("More ways to import"))
        gtk_actionable_set_action_name(cast(button), "app.import")
        let menu = g_menu_new()
        g_menu_append(menu, L("Import Files…"), "app.import")
        g_menu_append(menu, L("Import a Folder…"), "app.import-folder")
        adw_split_button_set_menu_model(cast(button), cast(menu))
        g_object_unref(UnsafeMutableRawPointer(menu))

        bar = gtk_progress_bar_new()
        gtk_progress_bar_set_show_text(cast(bar), 1)
        gtk_widget_set_hexpand(bar, 1)
        gtk_widget_set_valign(bar, GTK_ALIGN_CENTER)
        cancel = gtk_button_new_with_label(L("Cancel Import"))
        gtk_actionable_set_action_name(cast(cancel), "app.cancel-import")
        let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        gtk_widget_set_margin_start(row, 12)
        gtk_widget_set_margin_end(row, 12)
        gtk_widget_set_margin_top(row, 12)
        gtk_widget_set_margin_bottom(row, 12)
        gtk_box_append(cast(row), bar)
        gtk_box_append(cast(row), cancel)
        progress = gtk_revealer_new()
        gtk_revealer_set_transition_type(cast(progress), GTK_REVEALER_TRANSITION_TYPE_SLIDE_UP)
        gtk_revealer_set_child(cast(progress), row)
    }

    /// Shows the import's progress: revealed only while an import of more than a few files runs.
    private func update() {
        let shows = importer.showsProgress
        gtk_revealer_set_reveal_child(cast(progress), shows ? 1 : 0)
        // Hidden too, not only folded away, so the accessibility tree drops the bar and its last count.
        gtk_widget_set_visible(gtk_revealer_get_child(cast(progress)), shows ? 1 : 0)
        guard shows else { return }
        let (done, total) = (importer.done, importer.total)
        gtk_progress_bar_set_fraction(cast(bar), total == 0 ? 0 : Double(done) / Double(total))
        let text = importer.isCancelling ? L("Cancelling…") : CameraWords.translate("Importing %@ of %@", String(done), String(total))
        gtk_progress_bar_set_text(cast(bar), text)
        pinhole_set_accessible_label(bar, text)
        gtk_widget_set_sensitive(cancel, importer.isCancelling ? 0 : 1)
    }
}

/// The file chooser of Import… (GtkFileChooserNative: the desktop's own chooser through its
/// portal where there is one, GTK's dialog otherwise; GTK 4.8 has no GtkFileDialog): many files,
/// or many folders, handed to app.import-files.
@MainActor
enum ImportChooser {
    /// Asks for files (or, with `folders`, folders) over `parent` and imports what is chosen.
    static func present(folders: Bool, parent: Widget?) {
        let title = folders ? L("Import Folders") : L("Import Photos and Videos")
        guard let chooser = gtk_file_chooser_native_new(title, parent.map { cast($0) }, folders ? GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER : GTK_FILE_CHOOSER_ACTION_OPEN,
                                                        L("_Import"), L("_Cancel")) else { return }
        let asChooser = chooser
        gtk_file_chooser_set_select_multiple(asChooser, 1)
        if !folders {
            let media = gtk_file_filter_new()!
            gtk_file_filter_set_name(media, L("Photos and Videos"))
            for type in ["image/jpeg", "image/png", "image/heif", "image/heic", "image/avif", "image/webp",
                         "video/mp4", "video/quicktime", "video/webm", "video/x-matroska"] { gtk_file_filter_add_mime_type(media, type) }
            gtk_file_chooser_add_filter(asChooser, media)
            let all = gtk_file_filter_new()!
            gtk_file_filter_set_name(all, L("All Files"))
            gtk_file_filter_add_pattern(all, "*")
            gtk_file_chooser_add_filter(asChooser, all)
            gtk_file_chooser_set_filter(asChooser, media)
            g_object_unref(UnsafeMutableRawPointer(media))
            g_object_unref(UnsafeMutableRawPointer(all))
        }
        gtk_native_dialog_set_modal(cast(chooser), 1)
        connectResponse(UnsafeMutableRawPointer(chooser)) { response in
            if response == GTK_RESPONSE_ACCEPT.rawValue, let files = gtk_file_chooser_get_files(asChooser) {
                var items: [String] = []
                for index in 0..<g_list_model_get_n_items(files) {
                    guard let file = g_list_model_get_item(files, index) else { continue }
                    items.append(ImportChooser.item(OpaquePointer(file)))
                    g_object_unref(file)
                }
                g_object_unref(UnsafeMutableRawPointer(files))
                if let parent { ImportChooser.importItems(items, from: parent) }
            }
            // The chooser is ours until it answers (nothing else holds a GtkNativeDialog).
            g_object_unref(UnsafeMutableRawPointer(chooser))
        }
        gtk_native_dialog_show(cast(chooser))
    }

    /// A GFile as app.import-files takes it: its path, or its URI when it has none (a remote
    /// file, which the import refuses by name).
    static func item(_ file: OpaquePointer) -> String {
        if let path = g_file_get_path(file) {
            defer { g_free(path) }
            return String(cString: path)
        }
        guard let uri = g_file_get_uri(file) else { return "" }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// Runs app.import-files with `items` from `widget` (so the chooser, a drop and D-Bus take one way).
    static func importItems(_ items: [String], from widget: Widget) {
        guard !items.isEmpty else { return }
        var pointers: [UnsafePointer<CChar>?] = items.map { UnsafePointer(strdup($0)) }
        let variant = pointers.withUnsafeMutableBufferPointer { g_variant_new_strv($0.baseAddress, gssize($0.count)) }
        for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
        gtk_widget_activate_action_variant(widget, "app.import-files", variant)
    }
}

/// Files dropped on the window (from a file manager: a GdkFileList, which GTK makes from the
/// text/uri-list other programs offer) are imported through app.import-files; the app's own
/// drags (items dragged out of the gallery) are not taken.
@MainActor
enum FileDrop {
    /// Accepts dropped files anywhere on `window`.
    static func attach(to window: Widget) {
        guard let target = gtk_drop_target_new(pinhole_type_file_list(), GDK_ACTION_COPY) else { return }
        connectDrop(UnsafeMutableRawPointer(target)) { value in
            // A drag out of the gallery let go over this window is not an import of what is
            // already in the library (the drop has a GdkDrag only when this app started it).
            if let drop = gtk_drop_target_get_current_drop(target), gdk_drop_get_drag(drop) != nil { return false }
            guard let value, let boxed = g_value_get_boxed(value) else { return false }
            let files = gdk_file_list_get_files(OpaquePointer(boxed))
            var items: [String] = []
            var node = files
            while let current = node {
                if let file = current.pointee.data { items.append(ImportChooser.item(OpaquePointer(file))) }
                node = current.pointee.next
            }
            g_slist_free(files)
            ImportChooser.importItems(items, from: window)
            return !items.isEmpty
        }
        gtk_widget_add_controller(window, target)
    }

    /// Connects a handler for GtkDropTarget's "drop" (the dropped value and where; returns whether taken).
    @discardableResult
    private static func connectDrop(_ instance: UnsafeMutableRawPointer, _ handler: @escaping @MainActor (UnsafePointer<GValue>?) -> Bool) -> UInt {
        let box = ClosureBox(handler)
        let trampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<GValue>?, Double, Double, UnsafeMutableRawPointer?) -> gboolean = { _, value, _, _, data in
            let box = Unmanaged<ClosureBox<@MainActor (UnsafePointer<GValue>?) -> Bool>>.fromOpaque(data!).takeUnretainedValue()
            nonisolated(unsafe) let value = value
            return MainActor.assumeIsolated { box.body(value) } ? 1 : 0
        }
        return g_signal_connect_data(instance, "drop", unsafeBitCast(trampoline, to: GCallback.self), Unmanaged.passRetained(box).toOpaque(),
                                     { data, _ in Unmanaged<ClosureBox<@MainActor (UnsafePointer<GValue>?) -> Bool>>.fromOpaque(data!).release() }, GConnectFlags(0))
    }
}
