import Media
import Testing

@Suite("Rotate, mirror, scale")
struct TransformTests {
    /// A 4×2 BGRA image with a distinct colour per pixel.
    func marker() throws -> PixelBuffer {
        try PixelBuffer(format: .bgra, width: 4, height: 2, bytes: packFrame(.bgra, width: 4, height: 2) { x, y in RGB(r: x * 60, g: y * 200, b: 10) })
    }

    @Test("rotation moves the top-left pixel where a clockwise turn puts it")
    func rotate() throws {
        let image = try marker()
        let topLeft = image.bgraPixel(x: 0, y: 0)
        let r90 = try PixelTransform.rotated(image, by: .clockwise90)
        #expect(r90.width == 2 && r90.height == 4)
        #expect(r90.bgraPixel(x: 1, y: 0) == topLeft)
        let r180 = try PixelTransform.rotated(image, by: .clockwise180)
        #expect(r180.bgraPixel(x: 3, y: 1) == topLeft)
        let r270 = try PixelTransform.rotated(image, by: .clockwise270)
        #expect(r270.bgraPixel(x: 0, y: 3) == topLeft)
        #expect(try Rotation(degrees: -90) == .clockwise270)
        #expect(throws: MediaError.self) { try Rotation(degrees: 45) }
    }

    @Test("I420, NV12 and GREY rotate too", arguments: [PixelFormat.i420, .nv12, .grey])
    func rotatePlanar(format: PixelFormat) throws {
        let bars = try PixelBuffer(format: format, width: 64, height: 32, bytes: packFrame(format, width: 64, height: 32) { x, _ in bar(atX: x, width: 64) })
        let rotated = try PixelTransform.rotated(bars, by: .clockwise90)
        #expect(rotated.width == 32 && rotated.height == 64)
        // The first bar (left) is now at the top.
        let want = format == .grey ? RGB(r: colourBars[0].luma, g: colourBars[0].luma, b: colourBars[0].luma) : colourBars[0]
        #expect(channelError(rotated.bgraPixel(x: 16, y: 2), want) <= 3)
    }

    @Test("mirroring swaps left and right", arguments: [PixelFormat.bgra, .i420, .grey])
    func mirror(format: PixelFormat) throws {
        let bars = try PixelBuffer(format: format, width: 64, height: 16, bytes: packFrame(format, width: 64, height: 16) { x, _ in bar(atX: x, width: 64) })
        let mirrored = try PixelTransform.mirrored(bars)
        #expect(channelError(mirrored.bgraPixel(x: 2, y: 8), bars.bgraPixel(x: 61, y: 8) |> rgb) <= 1)
        #expect(channelError(mirrored.bgraPixel(x: 61, y: 8), bars.bgraPixel(x: 2, y: 8) |> rgb) <= 1)
    }

    @Test("scaling keeps colours and fits sizes", arguments: [PixelFormat.bgra, .i420, .nv12, .grey])
    func scale(format: PixelFormat) throws {
        let bars = try PixelBuffer(format: format, width: 640, height: 480, bytes: packFrame(format, width: 640, height: 480) { x, _ in bar(atX: x, width: 640) })
        let small = try PixelTransform.scaled(bars, width: 160, height: 120, filter: .box)
        for i in 0..<8 {
            let x = i * 20 + 10
            let want = format == .grey ? RGB(r: colourBars[i].luma, g: colourBars[i].luma, b: colourBars[i].luma) : colourBars[i]
            #expect(channelError(small.bgraPixel(x: x, y: 60), want) <= 3, "\(format) bar \(i)")
        }
        #expect(PixelTransform.fitting(width: 4000, height: 3000, longestSide: 256) == (256, 192))
        #expect(PixelTransform.fitting(width: 3000, height: 4000, longestSide: 256) == (192, 256))
        #expect(PixelTransform.fitting(width: 100, height: 50, longestSide: 256) == (100, 50))
        #expect(PixelTransform.fitting(width: 10000, height: 1, longestSide: 128) == (128, 1))
    }

    @Test("unsupported formats and wrong destination sizes are refused")
    func refusals() throws {
        let yuyv = try PixelBuffer(format: .yuyv, width: 8, height: 8)
        #expect(throws: MediaError.self) { try PixelTransform.rotated(yuyv, by: .clockwise90) }
        let image = try marker()
        let wrong = try PixelBuffer(format: .bgra, width: 4, height: 2)
        #expect(throws: MediaError.self) { try PixelTransform.rotate(image, by: .clockwise90, into: wrong) }
    }
}

infix operator |>: AdditionPrecedence
/// Pipes a value into a function (keeps pixel assertions on one line).
func |> <A, B>(value: A, function: (A) -> B) -> B { function(value) }
/// The RGB of a BGRA pixel tuple.
func rgb(_ p: (b: UInt8, g: UInt8, r: UInt8, a: UInt8)) -> RGB { RGB(r: Int(p.r), g: Int(p.g), b: Int(p.b)) }
