import CameraModel
import CGtk

/// Import's actions: `app.import` (Ctrl+I: the file chooser for files), `app.import-folder`
/// (Shift+Ctrl+I: for folders), `app.import-files` (a list of paths or file URIs: what the chooser
/// and a drop on the window run, and what D-Bus can run:
/// `gapplication action io.github.pinhole.Camera import-files "['/home/me/a.jpg']"`) and
/// `app.cancel-import`. An import shows the gallery, where its progress is, and says what it did
/// in toasts.
extension CameraApplication {
    /// Adds the import actions to `map` (the application), for `model`'s library and the
    /// window `window` gives (nil before the first activation).
    func addImportActions(_ map: UnsafeMutableRawPointer, model: CameraModel, window: @escaping @MainActor () -> CameraWindow?) {
        let importer = model.importer
        subscriptions.append(importer.messages.subscribe { text in
            if let window = window() { window.toast(text) } else { journal(text) }
        })
        addAction(map, "import") { _ in ImportChooser.present(folders: false, parent: window()?.window) }
        addAction(map, "import-folder") { _ in ImportChooser.present(folders: true, parent: window()?.window) }
        addListAction(map, "import-files") { items in
            guard !items.isEmpty else { return }
            // The gallery shows the progress and the new items (not while recording: the import
            // runs all the same, and its toasts say how it went).
            window()?.show(.gallery)
            importer.start(items)
        }
        addAction(map, "cancel-import") { _ in importer.cancel() }
        let app: UnsafeMutablePointer<GtkApplication> = cast(self.app)
        setAccels(app, "app.import", ["<Control>i"])
        setAccels(app, "app.import-folder", ["<Shift><Control>i"])
    }
}
