import CameraModel
import CGtk

/// The camera page: the header's controls over the live preview with the control bar on it,
/// beside the status page (no preview, and why) and the photo waiting for confirmation. It owns
/// the camera's actions (`camera.*`: the shutter and the control bar's buttons, the status
/// page's choices) and their single keys (Space, V, C, …), which work only while the page is
/// shown: elsewhere the same keys belong to the gallery's grid and the viewer.
@MainActor
final class CameraPage {
    /// The whole page: the header over `stack`.
    let widget: Widget
    /// The live preview.
    let preview: PreviewArea
    /// The buttons over the preview (shutter, gallery, switch camera, pause).
    let controls = ControlBar()
    /// The header bar: mode, flash, timer, grid and filter, the main menu.
    let header: HeaderControls
    /// Why there is no preview, with what can be done.
    let status = StatusPages()
    /// The photo waiting to be saved or discarded.
    let confirm = ConfirmPhoto()
    /// The preview ("camera"), the status page ("status") or the confirmation ("confirm").
    let stack: Widget

    init(model: CameraModel) {
        preview = PreviewArea(mailbox: model.mailbox) { [unowned model] width, height in model.setPreviewSize(width: width, height: height) }
        header = HeaderControls(model: model)
        let camera = gtk_overlay_new()!
        gtk_overlay_set_child(cast(camera), preview.widget)
        gtk_overlay_add_overlay(cast(camera), controls.widget)
        stack = gtk_stack_new()
        gtk_stack_set_transition_type(cast(stack), GTK_STACK_TRANSITION_TYPE_CROSSFADE)
        gtk_stack_add_named(cast(stack), camera, "camera")
        gtk_stack_add_named(cast(stack), status.widget, "status")
        gtk_stack_add_named(cast(stack), confirm.widget, "confirm")
        gtk_widget_set_vexpand(stack, 1)
        widget = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        gtk_box_append(cast(widget), header.widget)
        gtk_box_append(cast(widget), stack)
        CameraPage.addActions(on: widget, model: model)
    }

    /// The camera's actions and keys, held by the page's widget. The choices (mode, flash,
    /// timer, filter, grid) are the application's stateful actions, which scripts and other
    /// programs reach too; G shows the grid only from here.
    private static func addActions(on widget: Widget, model: CameraModel) {
        let actions = WidgetActions("camera", on: widget)
        actions.add("shutter", keys: ["space", "Return", "KP_Enter"]) { model.shutter() }
        actions.add("burst", keys: ["b"]) { model.burst() }
        actions.add("pause", keys: ["p"]) { model.togglePause() }
        actions.add("switch-camera", keys: ["c"]) { model.switchCamera() }
        actions.add("toggle-mode", keys: ["v"]) { model.setMode(model.mode == .photo ? .video : .photo) }
        actions.add("cycle-timer", keys: ["t"]) {
            let steps = [0, 3, 5, 10]
            model.setCountdown(steps[((steps.firstIndex(of: model.countdown) ?? 0) + 1) % steps.count])
        }
        actions.add("cancel-timer", keys: ["Escape"]) { model.cancelCountdown() }
        actions.add("use-test-camera") { model.useTestCameras() }
        actions.add("retry") { model.retry() }
        actions.bind(["g"], to: "app.toggle-grid")
    }

    /// What the page's parts follow in the model; the window keeps the subscriptions.
    func watch(_ model: CameraModel) -> [Subscription] {
        preview.watch(model) + controls.watch(model) + header.watch(model)
    }
}
