/// Whether a window can be seen where the toolkit does not say it is minimised: GTK 4.8 on
/// Wayland (xdg-shell's `suspended` state came with GTK 4.12). It reads what a compositor does
/// give, found by experiment with mutter 43 (headless, Super+H to minimise, Alt+Tab to restore):
///
/// - a minimised window's surface leaves every monitor (`wl_surface.leave`, GDK's
///   `leave-monitor`, a fraction of a second after the focus goes) and enters one again when it
///   is restored (`enter-monitor`, with the focus);
/// - its frame callbacks stop, so GTK's frame clock stops painting (`after-paint`) while camera
///   frames keep coming. A stray paint or two can still come after
///   minimising (a focus change's redraw, released when the surface is shown or hidden).
///
/// So the window is hidden while its surface, once on a monitor, is on none — the compositor's
/// own word, which also brings the camera back — or while frames keep coming (at least
/// `stallFrames`) and none has been painted for `stallSeconds`, for compositors that keep a hidden
/// surface on its monitor but stop its frame callbacks; the next paint ends that. Free of GTK, so
/// the rules are tested without a compositor.
public struct SurfaceVisibility: Sendable {
    /// Seconds without a paint, while frames keep coming, after which the window counts as hidden.
    public static let stallSeconds = 3.0
    /// Camera frames since the last paint that make a stall (a camera that stopped sending
    /// frames paints nothing either, and is no stall). Counted from the camera, not as handed to
    /// the picture: the preview asks for a frame only once the last one was painted.
    public static let stallFrames = 10

    /// Monitors the surface is on now.
    public private(set) var monitors = 0
    /// Whether the surface was ever on a monitor (a backend that never says stays "visible").
    private var wasOnMonitor = false
    /// When the frame clock last painted (seconds on a monotonic clock), nil before the first paint.
    private var lastPaint: Double?
    /// Camera frames when the frame clock last painted.
    private var framesAtLastPaint = 0
    /// Whether frames came without being painted for too long.
    public private(set) var isStalled = false

    /// A surface not yet shown anywhere (visible until told otherwise).
    public init() {}

    /// Whether the window counts as hidden.
    public var isHidden: Bool { (wasOnMonitor && monitors == 0) || isStalled }

    /// The surface entered a monitor; true when `isHidden` changed.
    public mutating func enteredMonitor() -> Bool {
        let was = isHidden
        monitors += 1
        wasOnMonitor = true
        return was != isHidden
    }

    /// The surface left a monitor; true when `isHidden` changed.
    public mutating func leftMonitor() -> Bool {
        let was = isHidden
        monitors = max(0, monitors - 1)
        return was != isHidden
    }

    /// The frame clock painted at `now`, the camera having sent `framesGiven` frames so far;
    /// true when `isHidden` changed.
    public mutating func painted(framesGiven: Int, at now: Double) -> Bool {
        let was = isHidden
        lastPaint = now
        framesAtLastPaint = framesGiven
        isStalled = false
        return was != isHidden
    }

    /// A periodic look (about every second) at `now`, the camera having sent `framesGiven`
    /// frames so far; true when `isHidden` changed.
    public mutating func check(framesGiven: Int, at now: Double) -> Bool {
        let was = isHidden
        if let lastPaint, now - lastPaint >= Self.stallSeconds, framesGiven - framesAtLastPaint >= Self.stallFrames { isStalled = true }
        return was != isHidden
    }
}
