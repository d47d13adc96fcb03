import CGtk

/// With PINHOLE_BENCH_REPORT=1 (see `BenchReport`), tells `pinhole-bench` when the gallery and
/// the viewer have drawn what they were asked for, read from the window's frame clock: a frame
/// counts as drawn at its "after-paint", once GTK has painted it into the window. The lines
/// (times in CLOCK_MONOTONIC nanoseconds):
///
/// - `gallery-open T`: the gallery page was asked for (`CameraWindow.show(.gallery)`);
/// - `gallery-drawn T CELLS`: the end of the first frame after that in which every cell visible
///   in the grid (even in part) was painted with its thumbnail, the page's slide-in over;
/// - `gallery-frame START END VALUE UPPER PAGE FIRST`: every frame while the gallery is shown, from
///   its "before-paint" to its "after-paint", with the grid's scroll position in pixels (the top of
///   the viewport, the grid's height, the viewport's height) and the position of the first item
///   whose cell can be seen (-1 for none);
/// - `gallery-item-shown T` and `gallery-item-thumbnail T`: the end of the first frame that
///   painted the cell of an item that arrived after the first screen (a photo another program
///   added) where it can be seen, and of the first that painted it with its thumbnail;
/// - `viewer-open T`, `viewer-drawn T` and `viewer-settled T`: a photo was asked for in the viewer,
///   the end of the first frame that painted its decoded picture (the page may still be sliding
///   in), and of the first that painted it in place (the slide-in over);
/// - `first-frame T` and `preview-resumed T`: the end of the first frame that painted a camera
///   frame in the visible preview, at start and after the camera was let go and taken again
///   (`PreviewArea` says `preview-cleared T` when it lets go); after `first-frame`,
///   `preview-start DRAWN REPLACED FROM-CAMERA DROPPED`, the preview's counts until then (the
///   app's `preview` line at quit has the same counts for its whole life).
///
/// The pages add two marks of their own between those: `gallery-splice T INSERTED REMOVED` when the
/// grid's list follows a change of the gallery's items, and `viewer-decoded T` when the decoded
/// photo is handed to the picture.
///
/// Nothing is made, connected or printed when reporting is off.
@MainActor
final class DrawReport {
    /// The window whose frame clock is followed (it owns this report).
    private unowned let window: CameraWindow
    /// When the frame being drawn started (its "before-paint").
    private var frameStart: Int64 = 0
    /// Whether the gallery's first screen is awaited.
    private var awaitingGallery = false
    /// The viewer's `picturesShown` when a photo was asked for, while its picture is awaited.
    private var awaitedPicture: Int?
    /// Whether the awaited picture has been painted (its painting in place is awaited then).
    private var pictureDrawn = false
    /// The items the gallery had when it last drew its first screen: any other is an arrival.
    private var known: Set<String> = []
    /// Arrivals whose cell has been painted, awaiting their thumbnail.
    private var arrived: Set<String> = []

    /// Follows `window`'s frame clock once the window has one; nil when reporting is off.
    init?(window: CameraWindow) {
        guard BenchReport.enabled else { return nil }
        self.window = window
        connect(UnsafeMutableRawPointer(window.window), "realize") { [weak self] in self?.attach() }
    }

    /// Connects to the realized window's frame clock.
    private func attach() {
        guard let clock = gtk_widget_get_frame_clock(window.window) else { return }
        connect(UnsafeMutableRawPointer(clock), "before-paint") { [weak self] in self?.frameStart = BenchReport.now }
        connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in self?.afterPaint() }
    }

    /// The window was asked for `page` (before it switches to it).
    func pageRequested(_ page: CameraWindow.Page) {
        switch page {
        case .gallery:
            BenchReport.say("gallery-open", BenchReport.now)
            awaitingGallery = true
        case .viewer:
            BenchReport.say("viewer-open", BenchReport.now)
            awaitedPicture = window.viewer.picturesShown
            pictureDrawn = false
        case .camera, .trash:
            break
        }
    }

    /// Reports what the frame just painted.
    private func afterPaint() {
        let end = BenchReport.now
        let settled = gtk_stack_get_transition_running(cast(window.pages)) == 0
        switch window.page {
        case .gallery:
            let gallery = window.gallery
            let position = gallery.scrollPosition
            let visible = gallery.visibleItems
            BenchReport.say("gallery-frame", frameStart, end, Int64(position.value.rounded()), Int64(position.upper.rounded()),
                            Int64(position.page.rounded()), Int64(visible.map(\.position).min() ?? -1))
            if awaitingGallery {
                guard settled, !visible.isEmpty, visible.allSatisfy(\.hasThumbnail) else { return }
                awaitingGallery = false
                known.formUnion(window.model.gallery.items.map(\.id))
                BenchReport.say("gallery-drawn", end, Int64(visible.count))
            }
            for item in visible where !known.contains(item.id) {
                if arrived.insert(item.id).inserted { BenchReport.say("gallery-item-shown", end) }
                if item.hasThumbnail {
                    known.insert(item.id)
                    arrived.remove(item.id)
                    BenchReport.say("gallery-item-thumbnail", end)
                }
            }
        case .viewer:
            guard let awaited = awaitedPicture, window.viewer.picturesShown > awaited else { return }
            if !pictureDrawn {
                pictureDrawn = true
                BenchReport.say("viewer-drawn", end)
            }
            guard settled else { return }
            awaitedPicture = nil
            BenchReport.say("viewer-settled", end)
        case .camera:
            guard let event = window.preview.takePaintReport() else { break }
            BenchReport.say(event, end)
            // The preview's counts so far: frames that replaced each other before the window
            // could show them (the camera opens while the window is built) are start-up's.
            if event == "first-frame" {
                let model = window.model
                BenchReport.say("preview-start", Int64(window.preview.drawnFrames), Int64(model.mailbox.counts.replaced), Int64(model.previewFrameCount),
                                Int64(model.previewDroppedFrames))
            }
        case .trash:
            break
        }
    }
}
