import Media

/// Draws Pinhole's test picture: 75% colour bars over a grey ramp, a square that moves one
/// step per frame, and a label with the frame number and the time of day. The static part is
/// drawn once per size; each frame copies it and draws the moving parts (a few ms at 1080p).
final class TestPattern {
    /// The colour bars, left to right (B, G, R): white, yellow, cyan, green, magenta, red, blue, black.
    static let bars: [(UInt8, UInt8, UInt8)] = [
        (191, 191, 191), (0, 191, 191), (191, 191, 0), (0, 191, 0), (191, 0, 191), (0, 0, 191), (191, 0, 0), (16, 16, 16),
    ]

    let width: Int
    let height: Int
    private let background: PixelBuffer

    /// The moving square's colour (B, G, R): yellow on the front camera, blue on the back one, so
    /// a switch between the two shows in the picture.
    let squareColour: (UInt8, UInt8, UInt8)

    /// Prepares the static picture at `width`×`height`.
    init(width: Int, height: Int, squareColour: (UInt8, UInt8, UInt8) = (40, 220, 250)) throws(MediaError) {
        self.squareColour = squareColour
        self.width = width
        self.height = height
        background = try PixelBuffer(format: .bgra, width: width, height: height, rowAlignment: 64)
        let stride = background.planes[0].bytesPerRow
        let base = background.baseAddress(ofPlane: 0)
        let barsHeight = height * 2 / 3
        for y in 0..<height {
            let row = base + y * stride
            for x in 0..<width {
                let (b, g, r): (UInt8, UInt8, UInt8)
                if y < barsHeight {
                    (b, g, r) = TestPattern.bars[min(7, x * 8 / width)]
                } else {
                    let level = UInt8(x * 255 / max(1, width - 1))
                    (b, g, r) = (level, level, level)
                }
                row[x * 4] = b
                row[x * 4 + 1] = g
                row[x * 4 + 2] = r
                row[x * 4 + 3] = 255
            }
        }
    }

    /// The bar colour (B, G, R) at column `x`, as drawn (for tests).
    func barColour(atX x: Int) -> (UInt8, UInt8, UInt8) { TestPattern.bars[min(7, x * 8 / width)] }

    /// The rows of the label (top) and of the moving square's band: all that changes between
    /// frames. Starts and ends are even, so 4:2:0 chroma rows stay whole.
    var changingRows: [Range<Int>] {
        let scale = max(1, height / 120)
        let side = max(2, height / 8)
        let band = height * 2 / 3
        let y0 = min(height - side, band + (height - band - side) / 2)
        func even(_ range: Range<Int>) -> Range<Int> { (range.lowerBound & ~1)..<min(height, (range.upperBound + 1) & ~1) }
        return [even(0..<min(height, 9 * scale)), even(y0..<(y0 + side))]
    }

    /// Draws frame number `frame` taken at `wallClockMilliseconds` (since midnight) into `canvas`
    /// (BGRA, same size). With `full`, the whole picture is drawn; otherwise `canvas` must hold
    /// the previous frame, and only `changingRows` are redrawn (what a 1080p stream needs per
    /// frame drops from copying 8 MB to about a fifth of it). Returns the rows drawn.
    @discardableResult
    func draw(frame: UInt32, wallClockMilliseconds: Int, into canvas: PixelBuffer, full: Bool = true) -> [Range<Int>] {
        let stride = canvas.planes[0].bytesPerRow
        let base = canvas.baseAddress(ofPlane: 0)
        let source = background.baseAddress(ofPlane: 0)
        let sourceStride = background.planes[0].bytesPerRow
        let rows = full ? [0..<height] : changingRows
        for range in rows {
            for y in range { (base + y * stride).update(from: source + y * sourceStride, count: width * 4) }
        }
        // The moving square, in the grey ramp's band: one step of 1/64 of the width per frame.
        let side = max(2, height / 8)
        let band = height * 2 / 3
        let travel = max(1, width - side)
        let x0 = Int(frame) * max(1, width / 64) % travel
        let y0 = min(height - side, band + (height - band - side) / 2)
        fill(base, stride, x: x0, y: y0, w: side, h: side, squareColour)
        // The label: frame number and time of day, white on black.
        let ms = wallClockMilliseconds % 86_400_000
        let label = "#" + pad(Int(frame), 6) + " " + pad(ms / 3_600_000, 2) + ":" + pad(ms / 60_000 % 60, 2) + ":" + pad(ms / 1000 % 60, 2) + "." + pad(ms % 1000, 3)
        let scale = max(1, height / 120)
        let labelWidth = label.count * 6 * scale + 2 * scale
        fill(base, stride, x: 0, y: 0, w: min(width, labelWidth), h: min(height, 9 * scale), (0, 0, 0))
        var x = scale
        for character in label {
            drawGlyph(character, base, stride, x: x, y: scale, scale: scale)
            x += 6 * scale
        }
        return rows
    }

    private func pad(_ value: Int, _ digits: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    private func fill(_ base: UnsafeMutablePointer<UInt8>, _ stride: Int, x: Int, y: Int, w: Int, h: Int, _ bgr: (UInt8, UInt8, UInt8)) {
        let x1 = min(width, x + w), y1 = min(height, y + h)
        guard x < x1, y < y1 else { return }
        for row in y..<y1 {
            let p = base + row * stride
            for column in x..<x1 {
                p[column * 4] = bgr.0
                p[column * 4 + 1] = bgr.1
                p[column * 4 + 2] = bgr.2
                p[column * 4 + 3] = 255
            }
        }
    }

    /// 5×7 glyphs, one string of 7 rows of 5 bits each.
    private static let glyphs: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        ":": [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00], ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        "#": [0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A], " ": [0, 0, 0, 0, 0, 0, 0],
    ]

    private func drawGlyph(_ character: Character, _ base: UnsafeMutablePointer<UInt8>, _ stride: Int, x: Int, y: Int, scale: Int) {
        guard let rows = TestPattern.glyphs[character] else { return }
        for (row, bits) in rows.enumerated() {
            for column in 0..<5 where bits & (0x10 >> UInt8(column)) != 0 {
                fill(base, stride, x: x + column * scale, y: y + row * scale, w: scale, h: scale, (255, 255, 255))
            }
        }
    }
}
