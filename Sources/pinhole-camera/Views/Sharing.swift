import CameraModel
import CGtk
import Glibc
import Media
import PhotoLibrary

/// Sharing the Linux way, where there is no system share sheet: copy (image data and files),
/// drag out, Show in Files and Save As… (Open With… is `OpenWith`).
@MainActor
enum Sharing {
    /// The header bar's Share menu: Copy, Open With…, Show in Files, Save As… (the app's
    /// actions, which act on the viewer's item or the gallery's selection).
    static func menuButton() -> Widget {
        let menu = g_menu_new()!
        for (title, action) in [(L("Copy"), "app.copy"), (L("Open With…"), "app.open-with"), (L("Show in Files"), "app.show-in-files"), (L("Save As…"), "app.save-as")] {
            g_menu_append(menu, title, action)
        }
        let button = gtk_menu_button_new()!
        gtk_menu_button_set_icon_name(cast(button), "send-to-symbolic")
        gtk_menu_button_set_menu_model(cast(button), cast(menu))
        g_object_unref(UnsafeMutableRawPointer(menu))
        label(button, L("Share"))
        return button
    }

    /// The last component of a path.
    static func fileName(of path: String) -> String {
        String(path[(path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex)...])
    }

    /// `file://` URIs of `paths`.
    static func uris(_ paths: [String]) -> [String] {
        paths.compactMap { path in
            guard let uri = g_filename_to_uri(path, nil, nil) else { return nil }
            defer { g_free(uri) }
            return String(cString: uri)
        }
    }

    /// Content for the clipboard or a drag: the files as `text/uri-list` (what file managers and
    /// most apps accept) and GNOME's `x-special/gnome-copied-files` (what Files pastes), plus the
    /// picture itself when `texture` is given (GTK offers it as image/png and more). The caller
    /// owns the returned provider.
    static func provider(for paths: [String], texture: OpaquePointer? = nil) -> UnsafeMutablePointer<GdkContentProvider> {
        let list = uris(paths)
        var parts: [UnsafeMutablePointer<GdkContentProvider>?] = []
        for (type, text) in [("text/uri-list", list.map { $0 + "\r\n" }.joined()), ("x-special/gnome-copied-files", (["copy"] + list).joined(separator: "\n"))] {
            let bytes = text.withCString { g_bytes_new($0, gsize(strlen($0))) }
            parts.append(gdk_content_provider_new_for_bytes(type, bytes))
            g_bytes_unref(bytes)
        }
        if let texture {
            var value = GValue()
            g_value_init(&value, gdk_texture_get_type())
            g_value_set_object(&value, UnsafeMutableRawPointer(texture))
            parts.insert(gdk_content_provider_new_for_value(&value), at: 0)
            g_value_unset(&value)
        }
        return parts.withUnsafeMutableBufferPointer { gdk_content_provider_new_union($0.baseAddress, gsize($0.count)) }
    }

    /// Puts `assets` on the clipboard of `widget`'s display: the files, and a single photo's
    /// picture too (decoded upright off the main thread first), so both image editors and file
    /// managers can paste. `done` is told when it is there.
    static func copy(_ assets: [Asset], widget: Widget, done: @escaping @MainActor () -> Void) {
        guard !assets.isEmpty else { return }
        let paths = assets.map(\.path)
        let clipboard = gtk_widget_get_clipboard(widget)
        guard assets.count == 1, let photo = assets.first, photo.mediaType == .photo else {
            let content = provider(for: paths)
            gdk_clipboard_set_content(clipboard, content)
            g_object_unref(UnsafeMutableRawPointer(content))
            return done()
        }
        let longest = max(1, photo.pixelWidth, photo.pixelHeight)
        Task {
            let texture = await decodedTexture(ofFile: photo.path, longestSide: longest)
            let content = provider(for: paths, texture: texture)
            if let texture { g_object_unref(UnsafeMutableRawPointer(texture)) }
            gdk_clipboard_set_content(clipboard, content)
            g_object_unref(UnsafeMutableRawPointer(content))
            done()
        }
    }

    /// Makes `widget` a drag source of the items `items` gives at drag time (files, as
    /// `text/uri-list`): any app that accepts files takes them.
    static func dragOut(from widget: Widget, items: @escaping @MainActor () -> [Asset]) {
        let source = gtk_drag_source_new()!
        gtk_drag_source_set_actions(source, GDK_ACTION_COPY)
        // Not by touch: a finger moving across a photo swipes to the next one, and across the
        // gallery it scrolls; a drag source that took those moves would start a drag-and-drop instead.
        // (A touch is told by its sequence: Broadway's touches come from its pointer device.)
        connect(UnsafeMutableRawPointer(source), "begin") { (sequence: UnsafeMutableRawPointer?) in
            if sequence != nil { gtk_gesture_set_state(cast(source), GTK_EVENT_SEQUENCE_DENIED) }
        }
        connectPrepare(UnsafeMutableRawPointer(source)) {
            let chosen = items()
            return chosen.isEmpty ? nil : provider(for: chosen.map(\.path))
        }
        gtk_widget_add_controller(widget, cast(source))
    }

    /// Shows the files selected in the file manager (`org.freedesktop.FileManager1.ShowItems`
    /// over the session bus, which Files, Dolphin, Nemo and others serve), or opens their folder
    /// when no file manager answers.
    static func showInFiles(_ paths: [String], connection: OpaquePointer?) {
        guard let first = paths.first else { return }
        let folder = String(first[..<(first.lastIndex(of: "/") ?? first.endIndex)])
        let openFolder: @MainActor () -> Void = {
            guard let uri = uris([folder]).first else { return }
            g_app_info_launch_default_for_uri(uri, nil, nil)
        }
        guard let connection else { return openFolder() }
        let list = uris(paths)
        var pointers: [UnsafePointer<CChar>?] = list.map { UnsafePointer(strdup($0)) }
        let array = pointers.withUnsafeMutableBufferPointer { g_variant_new_strv($0.baseAddress, gssize($0.count)) }
        for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
        var children: [OpaquePointer?] = [array, g_variant_new_string("")]
        let parameters = children.withUnsafeMutableBufferPointer { g_variant_new_tuple($0.baseAddress, 2) }
        callDBus(connection, destination: "org.freedesktop.FileManager1", path: "/org/freedesktop/FileManager1", interface: "org.freedesktop.FileManager1",
                 method: "ShowItems", parameters: parameters) { succeeded in
            if !succeeded { openFolder() }
        }
    }

    /// Save As…: a file chooser named like the item, with "Remove location" offered (and on)
    /// when the item has one in any metadata (`Asset.hasLocation`); the library writes the copy (complete or not at all). `done` gets
    /// the path saved, or nil when cancelled or failed.
    static func saveAs(_ asset: Asset, parent: Widget, gallery: GalleryModel, done: @escaping @MainActor (String?) -> Void) {
        let chooser = gtk_file_chooser_native_new(L("Save As"), cast(parent), GTK_FILE_CHOOSER_ACTION_SAVE, L("_Save"), L("_Cancel"))!
        let fileChooser = chooser
        gtk_file_chooser_set_current_name(fileChooser, fileName(of: asset.path))
        if let pictures = g_get_user_special_dir(G_USER_DIRECTORY_PICTURES) {
            let folder = g_file_new_for_path(pictures)
            gtk_file_chooser_set_current_folder(fileChooser, folder, nil)
            g_object_unref(UnsafeMutableRawPointer(folder))
        }
        if asset.hasLocation {
            gtk_file_chooser_add_choice(fileChooser, "remove-location", L("Remove location"), nil, nil)
            gtk_file_chooser_set_choice(fileChooser, "remove-location", "true")
        }
        connectResponse(UnsafeMutableRawPointer(chooser)) { response in
            defer { g_object_unref(UnsafeMutableRawPointer(chooser)) }
            guard response == GTK_RESPONSE_ACCEPT.rawValue, let file = gtk_file_chooser_get_file(fileChooser) else { return done(nil) }
            defer { g_object_unref(UnsafeMutableRawPointer(file)) }
            guard let raw = g_file_get_path(file) else { return done(nil) }
            let path = String(cString: raw)
            g_free(raw)
            let strip = gtk_file_chooser_get_choice(fileChooser, "remove-location").map { String(cString: $0) } == "true"
            Task { done(await gallery.export(asset, to: path, removingLocation: strip) ? path : nil) }
        }
        gtk_native_dialog_show(cast(chooser))
    }
}
