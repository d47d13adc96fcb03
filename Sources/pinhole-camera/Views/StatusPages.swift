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

    /// Shows the page for `screen`, in the words `CameraWords` gives it.
    func show(_ screen: CameraScreen) {
        let page = CameraWords.page(for: screen)
        let (icon, title, body) = (page.icon, page.title, page.body)
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
        for (index, button) in [primary, secondary].enumerated() {
            let choice = index < page.buttons.count ? page.buttons[index] : nil
            gtk_widget_set_visible(button, choice == nil ? 0 : 1)
            if let choice {
                gtk_button_set_label(cast(button), choice.label)
                gtk_actionable_set_action_name(cast(button), StatusPages.action(for: choice))
            }
        }
    }

    /// The camera page's action a status page's button runs.
    static func action(for button: StatusPageButton) -> String {
        switch button {
        case .useTestCamera: "camera.use-test-camera"
        case .retry: "camera.retry"
        }
    }
}
