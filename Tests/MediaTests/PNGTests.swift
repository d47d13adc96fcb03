import Media
import Testing
import TestSupport

@Suite("PNG")
struct PNGTests {
    @Test("RGBA, BGRA, RGB, BGR and grey encode losslessly and pass pngcheck",
          arguments: [PixelFormat.bgra, .rgba, .rgb24, .bgr24, .grey], [PNGCompression.fast, .balanced])
    func roundTrip(format: PixelFormat, compression: PNGCompression) throws {
        let source = try photoLikeImage(width: 123, height: 77).converted(to: format)
        let png = try PNGCodec.encode(source, compression: compression, text: [("Thumb::URI", "file:///tmp/a%20b.jpg"), ("Thumb::MTime", "1700000000")])
        let info = try PNGCodec.info(png)
        #expect(info.width == 123 && info.height == 77 && info.bitDepth == 8)
        #expect(info.isGrey == (format == .grey))
        let decoded = try PNGCodec.decode(png, to: format)
        #expect(decoded.packedBytes() == source.packedBytes(), "PNG must be lossless for \(format)")

        let folder = try TemporaryDirectory()
        let path = try folder.file("image.png", png).path
        let check = try runTool("pngcheck", ["-t", path])
        #expect(check.status == 0, "pngcheck: \(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("Thumb::URI"))
        #expect(check.stdout.contains("file:///tmp/a%20b.jpg"))
        #expect(check.stdout.contains("(123x77,"))
    }

    @Test("a PNG made by another tool (ImageMagick-style palette and 16-bit) decodes")
    func foreignFiles() throws {
        // 2×1 palette image: red, blue; written by hand with zlib stored blocks.
        let ihdr: [UInt8] = [0, 0, 0, 2, 0, 0, 0, 1, 8, 3, 0, 0, 0]
        let plte: [UInt8] = [255, 0, 0, 0, 0, 255]
        let raw: [UInt8] = [0, 0, 1]  // filter byte, two indices
        var adler1: UInt32 = 1, adler2: UInt32 = 0
        for b in raw { adler1 = (adler1 + UInt32(b)) % 65521; adler2 = (adler2 + adler1) % 65521 }
        let adler = adler2 << 16 | adler1
        let zlib: [UInt8] = [0x78, 0x01, 0x01, 3, 0, 0xFC, 0xFF] + raw + [UInt8(adler >> 24), UInt8(adler >> 16 & 0xFF), UInt8(adler >> 8 & 0xFF), UInt8(adler & 0xFF)]
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr) + pngChunk("PLTE", plte) + pngChunk("IDAT", zlib) + pngChunk("IEND", [])
        let decoded = try PNGCodec.decode(png, to: .bgra)
        #expect(decoded.bgraPixel(x: 0, y: 0) == (0, 0, 255, 255))
        #expect(decoded.bgraPixel(x: 1, y: 0) == (255, 0, 0, 255))
    }

    @Test("random bytes, a truncated file and an empty file give typed errors")
    func damaged() throws {
        let png = try PNGCodec.encode(photoLikeImage(width: 64, height: 64))
        #expect(throws: MediaError.self) { try PNGCodec.decode(randomBytes(3000, seed: 3)) }
        #expect(throws: MediaError.self) { try PNGCodec.decode(Array(png.prefix(png.count / 2))) }
        #expect(throws: MediaError.self) { try PNGCodec.decode([]) }
        var corrupted = png
        corrupted[40] ^= 0xFF  // inside IHDR or IDAT: CRC mismatch
        #expect(throws: MediaError.self) { try PNGCodec.decode(corrupted) }
        do {
            _ = try PNGCodec.decode(Array("not a png at all".utf8))
        } catch {
            #expect(error.description.contains("PNG"))
        }
    }

    @Test("a 100000×100000 header is refused before anything is allocated")
    func decompressionBomb() throws {
        let bomb = pngHeaderOnly(width: 100_000, height: 100_000)
        #expect(bomb.count < 100)
        #expect(try PNGCodec.info(bomb).width == 100_000)
        #expect(throws: MediaError.imageTooLarge(width: 100_000, height: 100_000, maximumPixels: DecodingLimits.maximumPixels)) {
            try PNGCodec.decode(bomb)
        }
        // Under the side limit but over the pixel limit.
        let wide = pngHeaderOnly(width: 60_000, height: 60_000)
        #expect(throws: MediaError.self) { try PNGCodec.decode(wide) }
    }
}
