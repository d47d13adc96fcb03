import CameraModel
import CGtk
import Media

/// The live camera filling the window: a `GtkPicture` (aspect kept, letterboxed) fed from the
/// model's one-slot mailbox, with overlays for the grid, the countdown, the "disconnected" dimming
/// and the screen flash.
///
/// Frames come at the screen's pace: the mailbox is paced (`FrameMailbox.setPaced`), and the next
/// frame is asked for once the last one handed to the picture has been painted (`painted()`,
/// from the window's frame clock). Where the screen paints less often than the camera sends (a
/// busy compositor, a slow machine), the frames it could not show are never converted; where it
/// paints more often (a desktop at 60 Hz), every camera frame is.
@MainActor
final class PreviewArea {
    /// The widget to place in the window (a GtkOverlay).
    let widget: Widget
    let picture: Widget
    let grid: Widget
    let dim: Widget
    let countdownLabel: Widget
    let flash: Widget
    private let mailbox: FrameMailbox
    /// Frames drawn so far (the window's visibility check and the frame marks read it).
    private(set) var drawnFrames = 0
    /// Told the picture's size in device pixels whenever it changes (frames are then made that size).
    private let onResize: (_ width: Int, _ height: Int) -> Void
    private var shownSize = (width: 0, height: 0)
    /// When a frame handed to the picture began waiting to be painted (monotonic seconds), nil
    /// when none waits: the next frame is asked for once it has been painted.
    private var awaitingPaintSince: Double?
    /// Seconds a handed frame may wait for its paint before the next is asked for all the same
    /// (a paint that never comes must not freeze the preview; this costs one frame per wait).
    static let paintPatience = 2.0

    init(mailbox: FrameMailbox, onResize: @escaping (_ width: Int, _ height: Int) -> Void) {
        self.mailbox = mailbox
        self.onResize = onResize
        widget = gtk_overlay_new()
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(cast(picture), GTK_CONTENT_FIT_CONTAIN)
        gtk_picture_set_can_shrink(cast(picture), 1)
        gtk_widget_set_hexpand(picture, 1)
        gtk_widget_set_vexpand(picture, 1)
        addClass(picture, "preview")
        pinhole_set_accessible_label(picture, L("Camera preview"))
        gtk_overlay_set_child(cast(widget), picture)

        grid = gtk_drawing_area_new()
        gtk_widget_set_can_target(grid, 0)
        gtk_widget_set_visible(grid, 0)
        gtk_drawing_area_set_draw_func(cast(grid), { _, cr, width, height, _ in
            guard let cr else { return }
            cairo_set_source_rgba(cr, 1, 1, 1, 0.45)
            cairo_set_line_width(cr, 1)
            for i in 1...2 {
                let x = Double(width) * Double(i) / 3, y = Double(height) * Double(i) / 3
                cairo_move_to(cr, x.rounded() + 0.5, 0); cairo_line_to(cr, x.rounded() + 0.5, Double(height))
                cairo_move_to(cr, 0, y.rounded() + 0.5); cairo_line_to(cr, Double(width), y.rounded() + 0.5)
            }
            cairo_stroke(cr)
        }, nil, nil)
        gtk_overlay_add_overlay(cast(widget), grid)

        dim = gtk_label_new(CameraWords.disconnected)
        addClass(dim, "dimmed-preview")
        gtk_widget_set_can_target(dim, 0)
        gtk_widget_set_visible(dim, 0)
        gtk_overlay_add_overlay(cast(widget), dim)

        countdownLabel = gtk_label_new("")
        addClass(countdownLabel, "countdown")
        // Centred and only as large as the number: a blurred shadow or a full-window overlay
        // would cost the software renderer a whole-window redraw per preview frame.
        gtk_widget_set_halign(countdownLabel, GTK_ALIGN_CENTER)
        gtk_widget_set_valign(countdownLabel, GTK_ALIGN_CENTER)
        gtk_widget_set_can_target(countdownLabel, 0)
        gtk_widget_set_visible(countdownLabel, 0)
        gtk_overlay_add_overlay(cast(widget), countdownLabel)

        flash = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)
        addClass(flash, "screen-flash")
        gtk_widget_set_can_target(flash, 0)
        gtk_overlay_add_overlay(cast(widget), flash)
        gtk_widget_set_visible(flash, 0)

        // Frames: the camera's side wakes the main loop once per empty slot. The wake holds the
        // area weakly (a wake racing the area's end finds nil, never freed memory), and each idle
        // holds it strongly (a retain, no allocation) until it has run, so one still queued when
        // the window goes finds it detached rather than freed.
        mailbox.setWake { [weak self] in
            guard let self else { return }
            let area = Unmanaged.passRetained(self)
            g_idle_add_full(G_PRIORITY_DEFAULT, { data in
                let area = Unmanaged<PreviewArea>.fromOpaque(data!).takeUnretainedValue()
                MainActor.assumeIsolated { area.drawNewest() }
                return 0
            }, area.toOpaque(), { data in Unmanaged<PreviewArea>.fromOpaque(data!).release() })
        }
        mailbox.setPaced(true)
    }

    /// The window painted (its frame clock's "after-paint"): the frame handed to the picture, if
    /// one waited, is on screen, and the next is asked for.
    func painted() {
        guard awaitingPaintSince != nil, !detached else { return }
        askForNext()
    }

    /// A periodic look (about every second) at `now`, in monotonic seconds: a frame that has
    /// waited `paintPatience` for its paint no longer holds the next one back.
    func check(at now: Double) {
        guard let since = awaitingPaintSince, now - since >= Self.paintPatience, !detached else { return }
        askForNext()
    }

    /// No frame waits for its paint any more: the camera's next one is asked for.
    private func askForNext() {
        awaitingPaintSince = nil
        mailbox.requestFrame()
    }

    /// Whether the window's widgets are gone (`detach`): nothing is drawn any more.
    private var detached = false

    /// The window is being destroyed: frames stop waking the main loop, and an idle already
    /// queued draws nothing.
    func detach() {
        detached = true
        mailbox.setWake(nil)
        mailbox.setPaced(false)
    }

    /// Shows the newest frame: its pooled memory is lent to a texture (no copy) and given back
    /// to the pool when GTK lets go of the texture; the next frame is asked for once this one
    /// has been painted.
    func drawNewest() {
        guard !detached else { return }
        let scale = Int(gtk_widget_get_scale_factor(picture))
        let onScreen = (width: Int(gtk_widget_get_width(picture)) * scale, height: Int(gtk_widget_get_height(picture)) * scale)
        if onScreen != shownSize {
            shownSize = onScreen
            onResize(onScreen.width, onScreen.height)
        }
        guard let frame = mailbox.take() else { return }
        guard frame.format == .bgra || frame.format == .bgr24 else {
            mailbox.requestFrame()  // not one to show: the next is
            return
        }
        let texture = lendTexture(frame)
        gtk_picture_set_paintable(cast(picture), cast(texture))
        g_object_unref(UnsafeMutableRawPointer(texture))
        drawnFrames += 1
        awaitingPaintSince = CameraWindow.seconds
    }

    /// Drops the picture (the camera was let go or failed); a picture that was shown is marked
    /// let go (`Mark.previewCleared`).
    func clear() {
        let hadPicture = gtk_picture_get_paintable(cast(picture)) != nil
        gtk_picture_set_paintable(cast(picture), nil)
        // No frame waits for its paint: the next one comes as soon as the camera sends it.
        if awaitingPaintSince != nil { askForNext() }
        if hadPicture { Marks.mark(.previewCleared) }
    }

    /// Shows the model's overlays (the grid, the dimming of an unplugged camera, the self-timer's
    /// count, the screen flash), each from what it observes, until the subscriptions end.
    func watch(_ model: CameraModel) -> [Subscription] {
        [observe { [grid] in gtk_widget_set_visible(grid, model.showsGrid ? 1 : 0) },
         observe { [dim] in gtk_widget_set_visible(dim, model.isDisconnected ? 1 : 0) },
         observe { [countdownLabel] in
             if let left = model.countdownRemaining {
                 gtk_label_set_text(cast(countdownLabel), "\(left)")
                 gtk_widget_set_visible(countdownLabel, 1)
             } else {
                 gtk_widget_set_visible(countdownLabel, 0)
             }
         },
         // The screen flash: the whole window white at full brightness.
         observe { [flash] in gtk_widget_set_visible(flash, model.isScreenFlashOn ? 1 : 0) }]
    }

    /// The short visual flash of the shutter.
    func blink() {
        addClass(widget, "shutter-blink")
        after(milliseconds: 120) { [weak self] in
            guard let self, !self.detached else { return }
            gtk_widget_remove_css_class(self.widget, "shutter-blink")
        }
    }
}
