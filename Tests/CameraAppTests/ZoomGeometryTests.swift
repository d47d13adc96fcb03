import CameraModel
import Testing

/// The viewer's zoom without a display: what a person sees stay put under the pointer, the
/// fitted picture, the limits, and what is decoded.
@Suite("The viewer's zoom, without a display")
struct ZoomGeometryTests {
    typealias Point = ZoomGeometry.Point

    /// A 4000×3000 photo in an 800×600 window, fitted.
    func fitted(photo: Point = Point(x: 4000, y: 3000), window: Point = Point(x: 800, y: 600)) -> ZoomGeometry {
        var geometry = ZoomGeometry()
        geometry.photo = photo
        geometry.window = window
        return geometry
    }

    @Test("fitted: the whole photo in the window, nothing scrolls; one step in about the middle keeps the photo's middle there")
    func stepAboutTheMiddle() {
        var geometry = fitted()
        #expect(geometry.fitScale == 0.2 && geometry.zoom == nil && geometry.content == nil)
        #expect(geometry.photoPoint(under: geometry.middle) == Point(x: 2000, y: 1500))
        geometry.zoomIn()
        #expect(geometry.zoom == 0.25 && geometry.content == Point(x: 1000, y: 750))
        #expect(geometry.scroll == Point(x: 100, y: 75))
        #expect(geometry.photoPoint(under: geometry.middle) == Point(x: 2000, y: 1500))
    }

    @Test("the photo's point under the pointer stays under it while zooming in and out, wherever the pointer is")
    func pointStaysUnderThePointer() {
        for focus in [Point(x: 100, y: 80), Point(x: 700, y: 500), Point(x: 400, y: 300), Point(x: 650, y: 120)] {
            var geometry = fitted()
            geometry.zoom(to: 1)
            for _ in 0..<3 {
                let before = geometry.photoPoint(under: focus)
                geometry.zoomIn(around: focus)
                let after = geometry.photoPoint(under: focus)
                #expect(abs(before.x - after.x) < 1e-6 && abs(before.y - after.y) < 1e-6, "at \(focus): \(before) → \(after)")
            }
            let before = geometry.photoPoint(under: focus)
            geometry.zoomOut(around: focus)
            let after = geometry.photoPoint(under: focus)
            #expect(abs(before.x - after.x) < 1e-6 && abs(before.y - after.y) < 1e-6, "out at \(focus): \(before) → \(after)")
        }
    }

    @Test("at an edge the scroll stops at the photo's edge instead of showing past it")
    func edgesClamp() {
        var geometry = fitted()
        geometry.zoom(to: 1, around: Point(x: 0, y: 0))
        #expect(geometry.scroll == Point(x: 0, y: 0))
        geometry.zoom(to: 2, placing: Point(x: 4000, y: 3000), at: Point(x: 0, y: 0))
        #expect(geometry.scroll == Point(x: 8000 - 800, y: 6000 - 600))
    }

    @Test("zoomed out to or below the fitted scale: fitted again, not scrolled; never past 8×")
    func limits() {
        var geometry = fitted()
        geometry.zoom(to: 3)
        geometry.zoomOut()
        #expect(geometry.zoom == 2.4)
        geometry.zoom(to: 0.1)
        #expect(geometry.zoom == nil && geometry.scroll == Point(x: 0, y: 0) && geometry.scale == 0.2)
        geometry.zoom(to: 50)
        #expect(geometry.zoom == ZoomGeometry.maximum)
        geometry.fit()
        #expect(geometry.zoom == nil && geometry.content == nil)
    }

    @Test("fitted ↔ one photo pixel per screen pixel, on a scale-2 display too")
    func toggle() {
        var geometry = fitted()
        geometry.toggle()
        #expect(geometry.zoom == 1)
        geometry.toggle()
        #expect(geometry.zoom == nil)
        geometry.toggle(deviceScale: 2)
        #expect(geometry.zoom == 0.5)
    }

    @Test("a tall photo in a wide window is centred across while it is narrower than the window")
    func centredWhileSmaller() {
        var geometry = fitted(photo: Point(x: 1000, y: 4000), window: Point(x: 800, y: 600))
        #expect(geometry.fitScale == 0.15)
        geometry.zoom(to: 0.5)
        // 500 px wide in an 800-px window: 150 px either side, nothing to scroll across.
        #expect(geometry.content == Point(x: 800, y: 2000) && geometry.scroll.x == 0)
        #expect(geometry.photoPoint(under: Point(x: 150, y: 0)).x == 0)
        #expect(geometry.photoPoint(under: Point(x: 650, y: 0)).x == 1000)
    }

    @Test("what to decode: nothing more while fitted; past the window, the zoomed size up to the whole photo")
    func decodeSize() {
        var geometry = fitted()
        #expect(geometry.neededLongestSide(deviceScale: 1) == nil)
        geometry.zoom(to: 0.5)
        #expect(geometry.neededLongestSide(deviceScale: 1) == 2000 && geometry.neededLongestSide(deviceScale: 2) == 4000)
        geometry.zoom(to: 4)
        #expect(geometry.neededLongestSide(deviceScale: 1) == 4000)
    }

    @Test("nothing shown yet: the scale is 1 and zooming does not divide by zero")
    func empty() {
        var geometry = ZoomGeometry()
        #expect(geometry.fitScale == 1)
        geometry.zoomIn()
        #expect(geometry.zoom == 1.25 && geometry.content == Point(x: 0, y: 0))
    }
}
