import Glibc
import Media
import Testing

@Suite("Pixel conversion")
struct ConversionTests {
    let width = 320, height = 240
    let converter = PixelConverter()

    func expected(_ format: PixelFormat, _ x: Int) -> RGB {
        let c = bar(atX: x, width: width)
        return format == .grey ? RGB(r: c.luma, g: c.luma, b: c.luma) : c
    }

    @Test("colour bars packed by hand in every raw format convert to BGRA within ±3", arguments: rawFormats)
    func barsToBGRA(format: PixelFormat) throws {
        let frame = try PixelBuffer(format: format, width: width, height: height,
                                    bytes: packFrame(format, width: width, height: height) { x, _ in bar(atX: x, width: width) })
        let bgra = try converter.converted(frame, to: .bgra)
        for i in 0..<8 {
            for y in [3, height / 2, height - 4] {
                let x = i * width / 8 + width / 16
                let pixel = bgra.bgraPixel(x: x, y: y)
                #expect(channelError(pixel, expected(format, x)) <= 3, "\(format) bar \(i) at (\(x),\(y)): \(pixel) vs \(expected(format, x))")
                #expect(pixel.a == 255)
            }
        }
    }

    @Test("BGRA bars convert to every raw format and back within ±3", arguments: rawFormats)
    func roundTrip(format: PixelFormat) throws {
        let source = try PixelBuffer(format: .bgra, width: width, height: height,
                                     bytes: packFrame(.bgra, width: width, height: height) { x, _ in bar(atX: x, width: width) })
        let converted = try converter.converted(source, to: format)
        // The converted bytes agree with the hand-packed layout at bar centres.
        for i in 0..<8 {
            let x = i * width / 8 + width / 16
            #expect(channelError(converted.bgraPixel(x: x, y: 5), expected(format, x)) <= 3, "\(format) bar \(i)")
        }
        let back = try converter.converted(converted, to: .bgra)
        for i in 0..<8 {
            let x = i * width / 8 + width / 16
            #expect(channelError(back.bgraPixel(x: x, y: height / 2), expected(format, x)) <= 3, "\(format) bar \(i) after the round trip")
        }
    }

    @Test("every pair of raw formats converts, into buffers with padded strides", arguments: rawFormats)
    func allPairs(source: PixelFormat) throws {
        let frame = try PixelBuffer(format: source, width: width, height: height,
                                    bytes: packFrame(source, width: width, height: height) { x, _ in bar(atX: x, width: width) })
        for target in rawFormats {
            let destination = try PixelBuffer(format: target, width: width, height: height, rowAlignment: 256)
            try converter.convert(frame, into: destination)
            let x = 5 * width / 8 + width / 16  // the red bar
            let want = source == .grey || target == .grey ? RGB(r: expected(.grey, x).r, g: expected(.grey, x).g, b: expected(.grey, x).b) : expected(source, x)
            #expect(channelError(destination.bgraPixel(x: x, y: 100), want) <= 4, "\(source) → \(target)")
        }
    }

    @Test("odd sizes convert correctly up to the last row and column", arguments: rawFormats)
    func oddSizes(format: PixelFormat) throws {
        let colour = RGB(r: 40, g: 160, b: 220)
        let want = format == .grey ? RGB(r: colour.luma, g: colour.luma, b: colour.luma) : colour
        for (w, h) in [(1, 1), (33, 17), (3, 5)] {
            let frame = try PixelBuffer(format: format, width: w, height: h, bytes: packFrame(format, width: w, height: h) { _, _ in colour })
            let bgra = try converter.converted(frame, to: .bgra)
            for (x, y) in [(0, 0), (w - 1, h - 1), (w / 2, h / 2)] {
                #expect(channelError(bgra.bgraPixel(x: x, y: y), want) <= 3, "\(format) \(w)×\(h) at (\(x),\(y))")
            }
        }
    }

    @Test("converting between different sizes or into MJPEG is refused")
    func mismatches() throws {
        let a = try PixelBuffer(format: .bgra, width: 8, height: 8)
        let b = try PixelBuffer(format: .i420, width: 8, height: 6)
        #expect(throws: MediaError.self) { try converter.convert(a, into: b) }
        let m = try PixelBuffer(format: .mjpeg, width: 8, height: 8)
        #expect(throws: MediaError.self) { try converter.convert(a, into: m) }
    }
}

@Suite("Converting bands of rows")
struct RowConversionTests {
    @Test("converting only some rows writes exactly those rows, as a whole conversion would", arguments: [PixelFormat.yuyv, .uyvy, .nv12])
    func rows(format: PixelFormat) throws {
        let picture = try SyntheticImage.photoLike(width: 64, height: 48, seed: 5)
        let converter = PixelConverter()
        let whole = try converter.converted(picture, to: format)
        let partial = try PixelBuffer(format: format, width: 64, height: 48)
        memset(partial.baseAddress, 0x5A, partial.capacity)
        try converter.convert(picture, into: partial, rows: 8..<20)
        for plane in 0..<partial.planes.count {
            let shift = plane > 0 && format == .nv12 ? 1 : 0
            for row in 0..<(partial.planes[plane].rows) {
                let inside = (8 >> shift)..<(20 >> shift) ~= row
                let a = whole.baseAddress(ofPlane: plane) + row * Int(whole.bytesPerRow(ofPlane: plane))
                let b = partial.baseAddress(ofPlane: plane) + row * Int(partial.bytesPerRow(ofPlane: plane))
                let bytes = partial.planes[plane].rowBytes
                if inside {
                    #expect(memcmp(a, b, bytes) == 0, "plane \(plane) row \(row) differs")
                } else {
                    #expect((0..<bytes).allSatisfy { b[$0] == 0x5A }, "plane \(plane) row \(row) was touched")
                }
            }
        }
    }
}
