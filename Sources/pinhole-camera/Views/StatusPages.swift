import CameraModel
import CGtk

/// The full-window pages for every state but the preview: no camera, access denied, busy,
/// failed, released. One AdwStatusPage whose words and buttons change.
@MainActor
final class StatusPages {
    /// The AdwStatusPage.
    let widget: Widget
    let primary: Widget
    let secondary: Widget
    /// The last screen shown (a page shown again without the preview between is not written again).
    private var logged: CameraScreen?

    /// The preview is shown: the next page is news again.
    func previewShown() { logged = .preview }

    init() {
        widget = adw_status_page_new()
        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        primary = gtk_button_new_with_label("")
        addClass(primary, "pill")
        addClass(primary, "suggested-action")
        secondary = gtk_button_new_with_label("")
        addClass(secondary, "pill")
        gtk_box_append(cast(buttons), primary)
        gtk_box_append(cast(buttons), secondary)
        adw_status_page_set_child(cast(widget), buttons)
    }

    /// Shows the page for `screen`.
    func show(_ screen: CameraScreen) {
        var icon = "camera-disabled-symbolic", title = "", body = ""
        var first: (String, String)?, second: (String, String)?
        switch screen {
        case .starting:
            icon = "camera-photo-symbolic"; title = L("Starting the Camera…")
        case .noCamera:
            title = L("No Camera Found")
            body = L("Connect a camera, or check that it is switched on and not covered by a privacy switch. Pinhole starts it as soon as it appears.")
            first = (L("Use Test Camera"), "camera.use-test-camera")
        case let .accessDenied(advice):
            icon = "action-unavailable-symbolic"; title = L("Camera Access Denied")
            body = CameraWords.translate("You may not use the camera. %@", advice)
            first = (L("Retry"), "camera.retry")
        case let .busy(program):
            title = L("The Camera Is in Use by Another App")
            body = (program.map { CameraWords.translate("It is used by “%@”. Close it, or stop its camera; Pinhole tries again by itself.", $0) }
                    ?? L("Close the other app, or stop its camera; Pinhole tries again by itself."))
            first = (L("Retry"), "camera.retry")
        case let .failed(reason):
            icon = "dialog-warning-symbolic"; title = L("The Camera Stopped Working")
            body = reason
            first = (L("Retry"), "camera.retry")
        case .released:
            icon = "camera-photo-symbolic"; title = L("Camera Paused")
            body = L("The camera is off while Pinhole is in the background.")
        case .preview:
            break
        }
        adw_status_page_set_icon_name(cast(widget), icon)
        adw_status_page_set_title(cast(widget), title)
        adw_status_page_set_description(cast(widget), body)
        // A state that keeps the camera from working goes to the journal too, once, as toasts do.
        if screen != logged {
            logged = screen
            switch screen {
            case .noCamera, .accessDenied, .busy, .failed:
                journal("\(title): \(body)")
            case .starting, .released, .preview:
                break
            }
        }
        for (button, choice) in [(primary, first), (secondary, second)] {
            gtk_widget_set_visible(button, choice == nil ? 0 : 1)
            if let choice {
                gtk_button_set_label(cast(button), choice.0)
                gtk_actionable_set_action_name(cast(button), choice.1)
            }
        }
    }
}
