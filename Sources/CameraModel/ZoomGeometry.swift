/// The viewer's zoom, free of GTK: which scale the photo is drawn at in a window of a given size,
/// where the window is scrolled to, and how both change when the person zooms about a point
/// (the pointer, a double-click, the middle of two fingers) so that the part of the photo under
/// it stays there. The view copies the window's size and scroll position in, asks, and applies
/// the answer to its scrolled window.
public struct ZoomGeometry: Equatable, Sendable {
    /// A point or a size in pixels (the window's logical pixels, or the photo's).
    public struct Point: Equatable, Sendable {
        /// Across.
        public var x: Double
        /// Down.
        public var y: Double

        /// A point at `x`, `y`.
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    /// The largest zoom: eight of the window's pixels for one of the photo's.
    public static let maximum = 8.0
    /// What one step of zooming in multiplies the scale by (zooming out divides by it).
    public static let step = 1.25

    /// The photo's full size, upright (0 × 0: nothing shown yet).
    public var photo = Point(x: 0, y: 0)
    /// The size of the window the photo is drawn in.
    public var window = Point(x: 0, y: 0)
    /// Where the window is scrolled to over the zoomed photo (its top-left corner).
    public var scroll = Point(x: 0, y: 0)
    /// The zoom factor (window pixels per photo pixel); nil: the photo fits the window.
    public private(set) var zoom: Double?

    /// A geometry with nothing shown: fitted, not scrolled.
    public init() {}

    /// The scale at which the whole photo fits the window (1 while either has no size).
    public var fitScale: Double {
        guard photo.x > 0, photo.y > 0, window.x > 0, window.y > 0 else { return 1 }
        return max(0.01, min(window.x / photo.x, window.y / photo.y))
    }

    /// The scale the photo is drawn at now.
    public var scale: Double { zoom ?? fitScale }

    /// The size of what scrolls (the zoomed photo, never smaller than the window), when zoomed.
    public var content: Point? {
        guard let zoom else { return nil }
        return Point(x: max(window.x, (photo.x * zoom).rounded(.towardZero)), y: max(window.y, (photo.y * zoom).rounded(.towardZero)))
    }

    /// Where the photo starts in the scrolled content along a side of `photoSide` pixels in a
    /// window side of `windowSide`: centred while it is smaller than the window.
    private func margin(_ photoSide: Double, _ windowSide: Double) -> Double {
        max(0, (windowSide - photoSide * scale) / 2)
    }

    /// The photo's point (in its pixels) drawn under `point` of the window.
    public func photoPoint(under point: Point) -> Point {
        Point(x: (scroll.x + point.x - margin(photo.x, window.x)) / scale,
              y: (scroll.y + point.y - margin(photo.y, window.y)) / scale)
    }

    /// The middle of the window (where keyboard zooming centres).
    public var middle: Point { Point(x: window.x / 2, y: window.y / 2) }

    /// Zooms to `factor` (at or below the fitted scale: fitted again; never past `maximum`) and
    /// scrolls so the photo's point `anchor` is drawn under `focus`, as far as the photo's edges
    /// allow.
    public mutating func zoom(to factor: Double, placing anchor: Point, at focus: Point) {
        zoom = factor <= fitScale ? nil : min(factor, Self.maximum)
        guard let content else {
            scroll = Point(x: 0, y: 0)
            return
        }
        scroll = Point(x: min(max(0, anchor.x * scale + margin(photo.x, window.x) - focus.x), content.x - window.x),
                       y: min(max(0, anchor.y * scale + margin(photo.y, window.y) - focus.y), content.y - window.y))
    }

    /// Zooms to `factor` keeping the photo's point under `focus` (nil: the middle) where it is.
    public mutating func zoom(to factor: Double, around focus: Point? = nil) {
        let focus = focus ?? middle
        zoom(to: factor, placing: photoPoint(under: focus), at: focus)
    }

    /// One step larger about `focus` (nil: the middle).
    public mutating func zoomIn(around focus: Point? = nil) { zoom(to: scale * Self.step, around: focus) }

    /// One step smaller, down to the fitted photo, about `focus` (nil: the middle).
    public mutating func zoomOut(around focus: Point? = nil) { zoom(to: scale / Self.step, around: focus) }

    /// Fitted ↔ one photo pixel per screen pixel on a display whose scale factor is `deviceScale`
    /// (window pixels are that many screen pixels), about `focus` (nil: the middle).
    public mutating func toggle(around focus: Point? = nil, deviceScale: Double = 1) {
        zoom(to: zoom == nil ? 1 / deviceScale : 0, around: focus)
    }

    /// Back to the fitted photo.
    public mutating func fit() {
        zoom = nil
        scroll = Point(x: 0, y: 0)
    }

    /// The longest side, in the photo's pixels, worth decoding at the current zoom on a display of
    /// `deviceScale` (the whole photo at most); nil when fitted.
    public func neededLongestSide(deviceScale: Double) -> Int? {
        guard let zoom else { return nil }
        let full = max(photo.x, photo.y)
        return Int(min(full, (full * zoom * deviceScale).rounded(.up)))
    }
}
