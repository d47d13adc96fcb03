import CameraModel
import CGtk
import Glibc

/// Quitting without losing a photo. The model's `WorkInFlight` holds the application
/// (`g_application_hold`) while any capture, save, recording, import or Save As is in flight, so
/// quitting only hides the windows and lets the model finish: GApplication's main loop ends by
/// itself once the last window is gone and the last work has ended — no nested main loop, and
/// `g_application_quit` (which ends the loop whatever is in flight) is never called while work
/// can finish.
///
/// - From the window (Ctrl+Q is `win.quit`, the close button, Ctrl+W): photos waiting for
///   confirmation are asked about first (Save, Discard, or Cancel the quit).
/// - Where no one can answer (`app.quit` over D-Bus, SIGTERM and SIGHUP as at logout, SIGINT):
///   they are kept (saved). A second signal while quitting ends the process's loop at once.
extension CameraApplication {
    /// Holds the application while the model has work in flight, and quits on SIGTERM, SIGINT
    /// and SIGHUP as D-Bus's `app.quit` does (called once, at startup).
    func followWorkInFlight(_ model: CameraModel) {
        model.work.onBusyChange = { [weak self] busy in
            guard let self else { return }
            if busy { g_application_hold(cast(self.app)) } else { g_application_release(cast(self.app)) }
        }
        for signal in [SIGTERM, SIGINT, SIGHUP] {
            onUnixSignal(signal) { [weak self] in
                guard let self else { return }
                // Asked twice: the person (or the session) will not wait for work in flight.
                if self.isQuitting { return g_application_quit(cast(self.app)) }
                self.quitUnattended()
            }
        }
    }

    /// Quits where no one can answer: photos waiting for confirmation are saved.
    func quitUnattended() {
        model?.keepPendingPhotos()
        quitNow()
    }

    /// Quits from the window: photos waiting for confirmation are asked about first.
    func quitFromWindow() {
        guard let model, let window, model.pendingPhoto != nil else { return quitNow() }
        askAboutPendingPhotos(model: model, parent: window.window) { [weak self] in self?.quitNow() }
    }

    /// The main window's close button (or Ctrl+W): photos waiting for confirmation are asked
    /// about first; true when the window may close now.
    func windowMayClose() -> Bool {
        Marks.mark(.windowCloseRequest)
        guard let model, let window, model.pendingPhoto != nil else { return true }
        askAboutPendingPhotos(model: model, parent: window.window) { [weak window] in
            guard let window else { return }
            gtk_window_destroy(cast(window.window))
        }
        return false
    }

    /// The main window is gone (closed, or destroyed by a quit): its views are cut from the
    /// model first, then the camera is let go once work in flight has finished (the model's
    /// shutdown is itself work in flight, so the app lives until the camera is off). Pickers
    /// open for other programs live on; `activate` makes a new window.
    func windowGone() {
        guard let window, let model else { return }
        if Marks.isOn { Marks.mark(.preview(FrameMarks.previewCounts(window))) }
        window.detach()
        self.window = nil
        // Nothing can confirm a photo any more: it is kept.
        model.keepPendingPhotos()
        model.shutDown()
    }

    /// Hides every window at once and lets the work in flight finish: pickers end with nothing
    /// chosen, and the main window's going shuts the model down.
    private func quitNow() {
        isQuitting = true
        for picker in Array(pickers.values) { gtk_window_destroy(cast(picker.window)) }
        // The application's windows (the camera window, Preferences, About, dialogs): a copy of
        // the list, since each destroy removes its window from it.
        var windows: [UnsafeMutablePointer<GtkWindow>] = []
        var node = gtk_application_get_windows(gtkApp)
        while let current = node {
            if let data = current.pointee.data { windows.append(data.assumingMemoryBound(to: GtkWindow.self)) }
            node = current.pointee.next
        }
        for toplevel in windows { gtk_window_destroy(toplevel) }
        // No window was open (a picker's run): the model stops all the same.
        model?.keepPendingPhotos()
        model?.shutDown()
    }

    /// Asks what to do with the photos waiting for confirmation: Save (then `proceed`), Discard
    /// (then `proceed`) or Cancel (nothing happens).
    private func askAboutPendingPhotos(model: CameraModel, parent: Widget, proceed: @escaping @MainActor () -> Void) {
        let count = model.pendingPhotos.count
        let heading = count == 1 ? L("Save the Photo?") : CameraWords.translate("Save %@ Photos?", String(count))
        let body = count == 1 ? L("The photo just taken waits to be saved. If you discard it, it is lost.")
                              : L("The photos just taken wait to be saved. If you discard them, they are lost.")
        let dialog = adw_message_dialog_new(cast(parent), heading, body)!
        adw_message_dialog_add_response(cast(dialog), "cancel", L("_Cancel"))
        adw_message_dialog_add_response(cast(dialog), "discard", L("_Discard"))
        adw_message_dialog_add_response(cast(dialog), "save", L("_Save"))
        adw_message_dialog_set_response_appearance(cast(dialog), "discard", ADW_RESPONSE_DESTRUCTIVE)
        adw_message_dialog_set_response_appearance(cast(dialog), "save", ADW_RESPONSE_SUGGESTED)
        adw_message_dialog_set_default_response(cast(dialog), "save")
        adw_message_dialog_set_close_response(cast(dialog), "cancel")
        // `proceed` runs once the dialog has finished its response and closed itself: destroyed
        // inside its own signal, libadwaita went on with a freed dialog.
        connect(UnsafeMutableRawPointer(dialog), "response") { [weak model] (response: UnsafeMutableRawPointer?) in
            guard let model, let response else { return }
            switch String(cString: response.assumingMemoryBound(to: CChar.self)) {
            case "save":
                model.keepPendingPhotos()
                after(milliseconds: 0, proceed)
            case "discard":
                model.discardPendingPhotos()
                after(milliseconds: 0, proceed)
            default:
                break
            }
        }
        gtk_window_present(cast(dialog))
    }
}
