import CameraModel
import CGtk
import PhotoLibrary

/// The video the viewer plays, from the keyboard (GtkVideo's own controls do it with the mouse):
/// K plays or pauses; Shift+Left and Shift+Right go back and forward `seekStep` seconds (the
/// arrows alone step to the previous and next item).
extension ViewerPage {
    /// How far one seek goes, in seconds.
    static let seekStep = 5.0

    /// The media stream of the video shown, if a video is shown and its file opened.
    private var shownStream: UnsafeMutablePointer<GtkMediaStream>? {
        guard shownItem?.mediaType == .video else { return nil }
        return gtk_video_get_media_stream(cast(video))
    }

    /// Pauses the video shown, or plays it (from the start once it has ended).
    func playOrPause() {
        guard let stream = shownStream else { return }
        gtk_media_stream_set_playing(stream, gtk_media_stream_get_playing(stream) != 0 ? 0 : 1)
    }

    /// Moves the video shown `seconds` on (or back, when negative), kept within its length;
    /// playing or paused, it stays so. Nothing happens for a photo or a stream that cannot seek.
    func seek(by seconds: Double) {
        guard let stream = shownStream, gtk_media_stream_is_seekable(stream) != 0 else { return }
        let length = gtk_media_stream_get_duration(stream)
        var target = max(0, gtk_media_stream_get_timestamp(stream) + gint64(seconds * 1_000_000))
        if length > 0 { target = min(target, length) }
        gtk_media_stream_seek(stream, target)
    }

    /// Names GtkVideo's own icon-only buttons for assistive technology and tooltips (GTK 4.8
    /// leaves its media controls' play button and volume button unnamed): the play button "Play"
    /// or "Pause" as its icon changes, the volume button's "Volume".
    static func nameControls(of video: Widget) {
        var pending: [Widget] = [video]
        while let widget = pending.popLast() {
            var child = gtk_widget_get_first_child(widget)
            while let current = child {
                pending.append(current)
                child = gtk_widget_get_next_sibling(current)
            }
            guard g_type_check_instance_is_a(UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GTypeInstance.self), gtk_button_get_type()) != 0 else { continue }
            if let parent = gtk_widget_get_parent(widget),
               g_type_check_instance_is_a(UnsafeMutableRawPointer(parent).assumingMemoryBound(to: GTypeInstance.self), gtk_scale_button_get_type()) != 0 {
                label(widget, L("Volume"))
            } else if gtk_widget_get_ancestor(widget, gtk_scale_button_get_type()) == nil {
                let button = widget
                let follow: @MainActor () -> Void = {
                    let icon = gtk_button_get_icon_name(cast(button)).map { String(cString: $0) } ?? ""
                    label(button, icon.contains("pause") ? L("Pause") : L("Play"))
                }
                follow()
                connectNotify(UnsafeMutableRawPointer(button), "icon-name", follow)
            }
        }
    }
}
