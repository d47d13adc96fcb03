import Media
import Testing

@Suite("Filters")
struct FilterTests {
    func bars(_ format: PixelFormat = .bgra) throws -> PixelBuffer {
        try PixelBuffer(format: format, width: 160, height: 16, bytes: packFrame(format, width: 160, height: 16) { x, _ in bar(atX: x, width: 160) })
    }

    func centre(_ i: Int) -> Int { i * 20 + 10 }

    @Test("mono turns every bar into its luma")
    func mono() throws {
        let image = try bars()
        try ImageFilter(.mono).apply(to: image)
        for i in 0..<8 {
            let p = image.bgraPixel(x: centre(i), y: 8)
            #expect(p.r == p.g && p.g == p.b)
            #expect(abs(Int(p.g) - colourBars[i].luma) <= 3, "bar \(i): \(p) vs luma \(colourBars[i].luma)")
            #expect(p.a == 255)
        }
    }

    @Test("noir is grey with stronger contrast than mono")
    func noir() throws {
        let mono = try bars(), noir = try bars()
        try ImageFilter(.mono).apply(to: mono)
        try ImageFilter(.noir).apply(to: noir)
        let whiteMono = Int(mono.bgraPixel(x: centre(0), y: 8).g), whiteNoir = Int(noir.bgraPixel(x: centre(0), y: 8).g)
        let blueMono = Int(mono.bgraPixel(x: centre(6), y: 8).g), blueNoir = Int(noir.bgraPixel(x: centre(6), y: 8).g)
        #expect(whiteNoir > whiteMono + 10)
        #expect(blueNoir < blueMono - 5)
        let p = noir.bgraPixel(x: centre(3), y: 8)
        #expect(p.r == p.g && p.g == p.b)
    }

    @Test("sepia gives warm tones: red over green over blue")
    func sepia() throws {
        let image = try bars()
        try ImageFilter(.sepia).apply(to: image)
        for i in [0, 1, 3, 5] {
            let p = image.bgraPixel(x: centre(i), y: 8)
            #expect(p.r > p.g && p.g > p.b, "bar \(i): \(p)")
        }
    }

    @Test("invert gives 255 minus each channel and keeps alpha")
    func invert() throws {
        let image = try bars()
        try ImageFilter(.invert).apply(to: image)
        for i in 0..<8 {
            let p = image.bgraPixel(x: centre(i), y: 8), c = colourBars[i]
            #expect(Int(p.r) == 255 - c.r && Int(p.g) == 255 - c.g && Int(p.b) == 255 - c.b && p.a == 255)
        }
    }

    @Test("brightness, contrast and saturation move pixels as asked")
    func adjust() throws {
        let brighter = try bars()
        try ImageFilter(.adjust(brightness: 0.2, contrast: 1, saturation: 1)).apply(to: brighter)
        #expect(channelError(brighter.bgraPixel(x: centre(7), y: 8), RGB(r: 67, g: 67, b: 67)) <= 1)
        let flat = try bars()
        try ImageFilter(.adjust(brightness: 0, contrast: 0, saturation: 1)).apply(to: flat)
        #expect(channelError(flat.bgraPixel(x: centre(2), y: 8), RGB(r: 128, g: 128, b: 128)) <= 1)
        let grey = try bars()
        try ImageFilter(.adjust(brightness: 0, contrast: 1, saturation: 0)).apply(to: grey)
        for i in 0..<8 {
            let p = grey.bgraPixel(x: centre(i), y: 8)
            #expect(abs(Int(p.r) - Int(p.b)) <= 2 && abs(Int(p.g) - colourBars[i].luma) <= 3, "bar \(i): \(p)")
        }
        let vivid = try bars()
        try ImageFilter(.adjust(brightness: 0, contrast: 1, saturation: 1.5)).apply(to: vivid)
        let red = vivid.bgraPixel(x: centre(5), y: 8)
        #expect(red.r > 200 && red.g == 0 && red.b == 0, "more saturated red: \(red)")
        let identity = try bars()
        try ImageFilter(.adjust(brightness: 0, contrast: 1, saturation: 1)).apply(to: identity)
        #expect(identity.packedBytes() == (try bars()).packedBytes())
        #expect(throws: MediaError.self) { try ImageFilter(.adjust(brightness: 2, contrast: 1, saturation: 1)) }
    }

    @Test("RGBA frames get the same result as BGRA ones", arguments: [ImageFilter.Kind.mono, .sepia, .adjust(brightness: 0.1, contrast: 1.2, saturation: 0.5)])
    func rgba(kind: ImageFilter.Kind) throws {
        let bgra = try bars(), rgba = try bars(.rgba)
        let filter = try ImageFilter(kind)
        try filter.apply(to: bgra)
        try filter.apply(to: rgba)
        for i in 0..<8 {
            let a = bgra.bgraPixel(x: centre(i), y: 8), b = rgba.bgraPixel(x: centre(i), y: 8)
            #expect(channelError(a, RGB(r: Int(b.r), g: Int(b.g), b: Int(b.b))) <= 1, "bar \(i)")
        }
        #expect(throws: MediaError.self) { try filter.apply(to: PixelBuffer(format: .i420, width: 8, height: 8)) }
    }
}
