import CameraModel
import CGtk

/// The marks read from the window's frame clock (`Marks`, only while marks are on): a frame
/// counts as drawn at its "after-paint", once GTK has painted it into the window. It reads what
/// the window and its pages show (the page, the stack's slide, the preview's picture, the
/// gallery's visible cells and scroll position) and what the pages mark themselves (a decoded
/// photo handed to the viewer, the preview let go), and marks:
///
/// - `galleryOpen` when the gallery page is asked for (`CameraWindow.show(.gallery)`), and
///   `galleryDrawn` at the end of the first frame after that in which every cell visible in the
///   grid (even in part) was painted with its thumbnail, the page's slide-in over;
/// - `galleryFrame` for every frame while the gallery shows, from its "before-paint";
/// - `galleryItemShown` and `galleryItemThumbnail`: the first frame that painted the cell of an
///   item that arrived after the first screen (a photo another program added) where it can be
///   seen, and the first that painted it with its thumbnail;
/// - `viewerOpen` when a photo is asked for in the viewer, `viewerDrawn` at the end of the first
///   frame after its `viewerDecoded` (the page may still be sliding in), `viewerSettled` at the
///   first that painted it in place;
/// - `firstFrame` and `previewResumed`: the end of the first frame that painted a camera frame in
///   the visible preview, at start and after `previewCleared`; after `firstFrame`, `previewStart`
///   with the preview's counts until then.
///
/// Nothing is made or connected when marks are off.
@MainActor
final class FrameMarks {
    /// The window whose frame clock is followed (it owns this).
    private unowned let window: CameraWindow
    /// When the frame being drawn started (its "before-paint").
    private var frameStart: Int64 = 0
    /// Whether the gallery's first screen is awaited.
    private var awaitingGallery = false
    /// Whether the viewer was asked for a photo whose picture has not been painted in place yet.
    private var awaitingPicture = false
    /// Whether that photo's decoded picture was handed to the viewer (`viewerDecoded`).
    private var pictureHanded = false
    /// Whether the awaited picture has been painted (its painting in place is awaited then).
    private var pictureDrawn = false
    /// The items the gallery had when it last drew its first screen: any other is an arrival.
    private var known: Set<String> = []
    /// Arrivals whose cell has been painted, awaiting their thumbnail.
    private var arrived: Set<String> = []
    /// Whether the preview's first camera frame has been painted.
    private var previewPainted = false
    /// Whether the preview let the camera go since it last painted a camera frame.
    private var previewCleared = false

    /// Follows `window`'s frame clock once the window has one; nil when marks are off.
    init?(window: CameraWindow) {
        guard Marks.isOn else { return nil }
        self.window = window
        connect(UnsafeMutableRawPointer(window.window), "realize") { [weak self] in self?.attach() }
        Marks.observer = { [weak self] mark in self?.follow(mark) }
    }

    /// The preview's counts now: frames drawn by the window's preview, replaced in the model's
    /// mailbox, from the camera and dropped.
    static func previewCounts(_ window: CameraWindow) -> Mark.PreviewCounts {
        let model = window.model
        return Mark.PreviewCounts(drawn: window.preview.drawnFrames, replaced: model.mailbox.counts.replaced,
                                  fromCamera: model.previewFrameCount + model.previewUnrequestedFrames, dropped: model.previewDroppedFrames)
    }

    /// Connects to the realized window's frame clock.
    private func attach() {
        guard let clock = gtk_widget_get_frame_clock(window.window) else { return }
        connect(UnsafeMutableRawPointer(clock), "before-paint") { [weak self] in self?.frameStart = Marks.now }
        connect(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in self?.afterPaint() }
    }

    /// Follows what the pages mark themselves.
    private func follow(_ mark: Mark) {
        switch mark {
        case .viewerDecoded where awaitingPicture:
            pictureHanded = true
        case .previewCleared where previewPainted:
            previewCleared = true
        default:
            break
        }
    }

    /// The window was asked for `page` (before it switches to it).
    func pageRequested(_ page: CameraWindow.Page) {
        switch page {
        case .gallery:
            Marks.mark(.galleryOpen)
            awaitingGallery = true
        case .viewer:
            Marks.mark(.viewerOpen)
            awaitingPicture = true
            pictureHanded = false
            pictureDrawn = false
        case .camera, .trash:
            break
        }
    }

    /// Marks what the frame just painted.
    private func afterPaint() {
        let end = Marks.now
        let settled = gtk_stack_get_transition_running(cast(window.pages)) == 0
        switch window.page {
        case .gallery:
            let gallery = window.gallery
            let position = gallery.scrollPosition
            let visible = gallery.visibleItems
            Marks.mark(.galleryFrame(start: frameStart, top: position.value, height: position.upper, viewport: position.page,
                                     firstVisible: visible.map(\.position).min()), at: end)
            if awaitingGallery {
                guard settled, !visible.isEmpty, visible.allSatisfy(\.hasThumbnail) else { return }
                awaitingGallery = false
                known.formUnion(window.model.gallery.items.map(\.id))
                Marks.mark(.galleryDrawn(cells: visible.count), at: end)
            }
            for item in visible where !known.contains(item.id) {
                if arrived.insert(item.id).inserted { Marks.mark(.galleryItemShown, at: end) }
                if item.hasThumbnail {
                    known.insert(item.id)
                    arrived.remove(item.id)
                    Marks.mark(.galleryItemThumbnail, at: end)
                }
            }
        case .viewer:
            guard awaitingPicture, pictureHanded else { return }
            if !pictureDrawn {
                pictureDrawn = true
                Marks.mark(.viewerDrawn, at: end)
            }
            guard settled else { return }
            awaitingPicture = false
            Marks.mark(.viewerSettled, at: end)
        case .camera:
            // A camera frame painted where it can be seen: the picture shows one, mapped.
            let picture = window.preview.picture
            guard gtk_widget_get_mapped(picture) != 0, gtk_picture_get_paintable(cast(picture)) != nil else { break }
            if !previewPainted {
                previewPainted = true
                Marks.mark(.firstFrame, at: end)
                // Frames that replaced each other before the window could show them (the camera
                // opens while the window is built) are start-up's.
                Marks.mark(.previewStart(Self.previewCounts(window)))
            } else if previewCleared {
                previewCleared = false
                Marks.mark(.previewResumed, at: end)
            }
        case .trash:
            break
        }
    }
}
