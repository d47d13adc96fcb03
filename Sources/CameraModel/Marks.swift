import CSysprof
import Glibc

/// One moment of the app's timing that someone measuring it wants to see: the benchmark
/// (`pinhole-bench`) or a profiler (Sysprof). The views and the model say each through
/// `Marks.mark(_:at:)`; what a mark carries beside its time is its case's values.
public enum Mark: Sendable, Equatable {
    /// The first camera frame painted in the visible preview (at start).
    case firstFrame
    /// The first camera frame painted after the preview let the camera go and took it again.
    case previewResumed
    /// The preview let the camera go (its picture dropped after frames had been seen).
    case previewCleared
    /// The preview's counts when its first frame was painted (frames that replaced each other
    /// before the window could show them are start-up's).
    case previewStart(PreviewCounts)
    /// The preview's counts for the window's whole life (said when it goes).
    case preview(PreviewCounts)
    /// The camera window was asked to close (its close button, Ctrl+W, or the window manager's
    /// close request): what tells a window closed by a person from one destroyed by a quit.
    case windowCloseRequest
    /// A photo was saved into the library.
    case photoSaved
    /// A finished recording was added to the library.
    case videoSaved
    /// The gallery page was asked for.
    case galleryOpen
    /// The gallery's grid followed a change of its items.
    case gallerySplice(inserted: Int, removed: Int)
    /// One frame painted while the gallery shows, from its `start` (the frame's "before-paint")
    /// to the mark's time, with the grid's scroll position in pixels (the viewport's top, the
    /// grid's height, the viewport's height) and the position of the first item whose cell can be
    /// seen (nil for none).
    case galleryFrame(start: Int64, top: Double, height: Double, viewport: Double, firstVisible: Int?)
    /// The gallery's first screen painted: every cell that can be seen with its thumbnail.
    case galleryDrawn(cells: Int)
    /// An item that arrived after the first screen was painted where it can be seen.
    case galleryItemShown
    /// Such an item was painted with its thumbnail.
    case galleryItemThumbnail
    /// A photo was asked for in the viewer.
    case viewerOpen
    /// The viewer handed a decoded photo to its picture (`longest`: its longest side in pixels).
    case viewerDecoded(longest: Int)
    /// The viewer's decoded photo was painted (its page may still be sliding in).
    case viewerDrawn
    /// The viewer's decoded photo was painted in place (the slide-in over).
    case viewerSettled

    /// The preview's frame counts: frames drawn into the picture, frames the mailbox replaced
    /// before they were drawn, frames from the camera (delivered, or let go unconverted because
    /// the paced preview did not ask for them), and frames dropped on the way.
    public struct PreviewCounts: Sendable, Equatable {
        public var drawn: Int, replaced: Int, fromCamera: Int, dropped: Int
        /// The counts as read.
        public init(drawn: Int, replaced: Int, fromCamera: Int, dropped: Int) {
            self.drawn = drawn
            self.replaced = replaced
            self.fromCamera = fromCamera
            self.dropped = dropped
        }
    }

    /// The event's name in the benchmark's lines and on Sysprof's timeline.
    public var name: String {
        switch self {
        case .firstFrame: "first-frame"
        case .previewResumed: "preview-resumed"
        case .previewCleared: "preview-cleared"
        case .previewStart: "preview-start"
        case .preview: "preview"
        case .windowCloseRequest: "window-close-request"
        case .photoSaved: "photo-saved"
        case .videoSaved: "video-saved"
        case .galleryOpen: "gallery-open"
        case .gallerySplice: "gallery-splice"
        case .galleryFrame: "gallery-frame"
        case .galleryDrawn: "gallery-drawn"
        case .galleryItemShown: "gallery-item-shown"
        case .galleryItemThumbnail: "gallery-item-thumbnail"
        case .viewerOpen: "viewer-open"
        case .viewerDecoded: "viewer-decoded"
        case .viewerDrawn: "viewer-drawn"
        case .viewerSettled: "viewer-settled"
        }
    }

    /// When the mark's span began, if it is a span (a gallery frame); else the mark is a moment.
    var start: Int64? {
        if case let .galleryFrame(start, _, _, _, _) = self { return start }
        return nil
    }

    /// The values after the event's name in the benchmark's line, each with its name (Sysprof's
    /// message), for a mark made at `time`. The preview's counts carry no time; a gallery frame
    /// its start and end; every other mark its time first.
    public func fields(at time: Int64) -> [(name: String, value: Int64)] {
        switch self {
        case let .previewStart(counts), let .preview(counts):
            return [("drawn", Int64(counts.drawn)), ("replaced", Int64(counts.replaced)),
                    ("from-camera", Int64(counts.fromCamera)), ("dropped", Int64(counts.dropped))]
        case let .galleryFrame(start, top, height, viewport, firstVisible):
            return [("start", start), ("end", time), ("top", Int64(top.rounded())), ("height", Int64(height.rounded())),
                    ("viewport", Int64(viewport.rounded())), ("first-visible", Int64(firstVisible ?? -1))]
        case let .gallerySplice(inserted, removed):
            return [("time", time), ("inserted", Int64(inserted)), ("removed", Int64(removed))]
        case let .galleryDrawn(cells):
            return [("time", time), ("cells", Int64(cells))]
        case let .viewerDecoded(longest):
            return [("time", time), ("longest", Int64(longest))]
        case .firstFrame, .previewResumed, .previewCleared, .windowCloseRequest, .photoSaved, .videoSaved, .galleryOpen, .galleryItemShown,
             .galleryItemThumbnail, .viewerOpen, .viewerDrawn, .viewerSettled:
            return [("time", time)]
        }
    }

    /// The benchmark's line for the mark made at `time`: "pinhole-bench: EVENT VALUES…" and a
    /// newline, as `pinhole-bench` reads it (from this and from older app binaries).
    public func benchLine(at time: Int64) -> String {
        "pinhole-bench: \(name) " + fields(at: time).map { String($0.value) }.joined(separator: " ") + "\n"
    }
}

/// The app's one instrumentation seam: every `Mark` goes through `mark(_:at:)`, and `sinks`,
/// decided once from the environment, says where marks go:
///
/// - `benchLines` with PINHOLE_BENCH_REPORT=1: a line on standard error per mark
///   (`Mark.benchLine(at:)`), which `pinhole-bench` reads;
/// - `sysprof` when a Sysprof profiler started the app (`sysprof-cli -- pinhole-camera`, which
///   gives it SYSPROF_CONTROL_FD): a mark on the profiler's timeline, group "pinhole", named as
///   the event, its values as the message; a gallery frame is a span from its start.
///
/// Times are CLOCK_MONOTONIC nanoseconds, the clock Sysprof's captures use. With neither, a mark
/// costs one test of `isOn`: nothing is made, read or written. `observer` lets the app's frame
/// clock follow what the views mark (a photo handed to the viewer, the preview let go).
@MainActor
public enum Marks {
    /// Where marks go.
    public struct Sinks: OptionSet, Sendable {
        public let rawValue: Int
        /// A set of sinks by bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The benchmark's lines on standard error.
        public static let benchLines = Sinks(rawValue: 1)
        /// Sysprof's timeline.
        public static let sysprof = Sinks(rawValue: 2)

        /// The sinks an environment asks for (`variable` reads one of its variables).
        public init(environment variable: (String) -> String?) {
            self = []
            if variable("PINHOLE_BENCH_REPORT") == "1" { insert(.benchLines) }
            if let control = variable("SYSPROF_CONTROL_FD"), !control.isEmpty { insert(.sysprof) }
        }
    }

    /// The sinks of this process, from its environment.
    public nonisolated static let sinks = Sinks { name in getenv(name).map { String(cString: $0) } }

    /// Whether any sink takes marks (nothing instruments the app otherwise).
    public nonisolated static var isOn: Bool { !sinks.isEmpty }

    /// Told every mark made (only while marks are on); the app's frame clock sets it.
    public static var observer: ((Mark) -> Void)?

    /// Now on CLOCK_MONOTONIC, in nanoseconds.
    public nonisolated static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// Makes `mark` at `time` (now when nil) in every sink; nothing when marks are off.
    public static func mark(_ mark: Mark, at time: Int64? = nil) {
        guard isOn else { return }
        let time = time ?? now
        if sinks.contains(.benchLines) {
            let line = mark.benchLine(at: time)
            _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        }
        if sinks.contains(.sysprof) {
            let message = mark.fields(at: time).map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            let start = mark.start ?? time
            sysprof_collector_mark(start, time - start, "pinhole", mark.name, message)
        }
        observer?(mark)
    }
}
