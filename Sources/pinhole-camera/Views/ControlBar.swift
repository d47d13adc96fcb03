import Foundation
import CameraModel
import CGtk

/// The row over the bottom of the preview: the newest item's thumbnail (opens it), the large
/// round shutter (record/stop in video mode, with the elapsed time and a red dot), pause, and
/// the camera switch (shown with two or more cameras).
@MainActor
final class ControlBar {
    /// The bar (a centred box placed as an overlay).
    let widget: Widget
    let thumbnail: Widget
    let thumbnailImage: Widget
    let shutter: Widget
    let pause: Widget
    let switchCamera: Widget
    let elapsed: Widget

    init() {
        widget = gtk_center_box_new()
        gtk_widget_set_valign(widget, GTK_ALIGN_END)
        gtk_widget_set_hexpand(widget, 1)
        addClass(widget, "control-bar")

        thumbnail = gtk_button_new()
        thumbnailImage = gtk_image_new_from_icon_name("image-x-generic-symbolic")
        gtk_image_set_pixel_size(cast(thumbnailImage), 56)
        gtk_button_set_child(cast(thumbnail), thumbnailImage)
        addClass(thumbnail, "circular")
        addClass(thumbnail, "thumbnail-button")
        gtk_widget_set_overflow(thumbnail, GTK_OVERFLOW_HIDDEN)
        gtk_widget_set_valign(thumbnail, GTK_ALIGN_CENTER)
        label(thumbnail, L("Open Gallery"))
        gtk_actionable_set_action_name(cast(thumbnail), "app.gallery")

        let middle = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6)
        elapsed = gtk_label_new("")
        addClass(elapsed, "elapsed")
        shutter = gtk_button_new()
        addClass(shutter, "shutter")
        addClass(shutter, "circular")
        label(shutter, L("Take Photo"))
        gtk_actionable_set_action_name(cast(shutter), "camera.shutter")
        // A long press on the shutter takes a burst (the number is a preference).
        let press = gtk_gesture_long_press_new()!
        connectPoint(UnsafeMutableRawPointer(press), "pressed") { [shutter] _, _ in
            gtk_widget_activate_action_variant(shutter, "camera.burst", nil)
        }
        gtk_widget_add_controller(shutter, cast(press))
        gtk_box_append(cast(middle), elapsed)
        gtk_box_append(cast(middle), shutter)

        let right = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)
        pause = ControlBar.roundButton(icon: "media-playback-pause-symbolic", name: L("Pause Recording"), action: "camera.pause")
        switchCamera = ControlBar.roundButton(icon: "camera-switch-symbolic", name: L("Switch Camera"), action: "camera.switch-camera")
        gtk_box_append(cast(right), pause)
        gtk_box_append(cast(right), switchCamera)

        gtk_center_box_set_start_widget(cast(widget), thumbnail)
        gtk_center_box_set_center_widget(cast(widget), middle)
        gtk_center_box_set_end_widget(cast(widget), right)
    }

    /// A round, icon-only on-screen button for `action`, named for screen readers.
    static func roundButton(icon: String, name: String, action: String) -> Widget {
        let button = gtk_button_new_from_icon_name(icon)!
        for style in ["circular", "osd", "round-control"] { addClass(button, style) }
        gtk_widget_set_valign(button, GTK_ALIGN_CENTER)
        label(button, name)
        gtk_actionable_set_action_name(cast(button), action)
        return button
    }

    /// Shows the model's state, each button from what it observes (as `HeaderControls`), until
    /// the subscriptions end. The elapsed time is also ticked by the window while recording.
    func watch(_ model: CameraModel) -> [Subscription] {
        [observe { [weak self] in self?.updateElapsed(model) },
         observe { [switchCamera] in gtk_widget_set_visible(switchCamera, model.canSwitchCamera && !model.isRecording ? 1 : 0) },
         observe { [pause] in
             gtk_widget_set_visible(pause, model.isRecordingRolling ? 1 : 0)
             label(pause, model.isRecordingPaused ? L("Resume Recording") : L("Pause Recording"))
             gtk_button_set_icon_name(cast(pause), model.isRecordingPaused ? "media-record-symbolic" : "media-playback-pause-symbolic")
         },
         observe { [shutter] in
             // "Stop" and the red dot once the file's clock runs, not while the encoder starts:
             // what the window says is recorded is what the file keeps.
             let recording = model.isRecordingRolling
             if model.mode == .video {
                 addClass(shutter, "video")
                 label(shutter, recording ? L("Stop Recording") : model.isRecording ? L("Starting the Recording…") : L("Start Recording"))
             } else {
                 gtk_widget_remove_css_class(shutter, "video")
                 // The self-timer's count is read out with the shutter (GTK 4.8 has no announcements).
                 label(shutter, model.countdownRemaining.map { CameraWords.translate("Photo in %@ s", String($0)) } ?? L("Take Photo"))
             }
             if recording { addClass(shutter, "recording") } else { gtk_widget_remove_css_class(shutter, "recording") }
             gtk_widget_set_sensitive(shutter, model.isCapturing ? 0 : 1)
         },
         observe { [thumbnail] in gtk_widget_set_visible(thumbnail, model.newestItem == nil ? 0 : 1) },
         observe { [thumbnailImage] in
             if let path = model.newestThumbnail { gtk_image_set_from_file(cast(thumbnailImage), path) }
         }]
    }

    /// "● 0:07" while recording (also the shutter's accessible description, for screen readers).
    func updateElapsed(_ model: CameraModel) {
        guard model.isRecordingRolling else {
            gtk_widget_set_visible(elapsed, 0)
            return
        }
        let seconds = Int(model.recordedSeconds)
        let text = String(format: "● %d:%02d", seconds / 60, seconds % 60)
        gtk_label_set_text(cast(elapsed), text)
        let state = model.isRecordingPaused ? L("Recording paused") : L("Recording")
        pinhole_set_accessible_label(elapsed, "\(state) \(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)")
        gtk_widget_set_visible(elapsed, 1)
    }
}
