import Media
import Testing
import TestSupport

@Suite("JPEG")
struct JPEGTests {
    let encoder = JPEGEncoder()
    let decoder = JPEGDecoder()

    @Test("BGRA and every YUV layout encode and decode back within a mean error of 3 per channel", arguments: [PixelFormat.bgra, .rgba, .rgb24, .bgr24, .i420, .yv12, .nv12, .nv21, .yuyv, .uyvy, .i422, .i444])
    func roundTrip(format: PixelFormat) throws {
        let original = try photoLikeImage(width: 320, height: 240)
        let source = try original.converted(to: format)
        // The reference is what the source holds (YUV sources already lost a little chroma).
        let reference = try source.converted(to: .bgra)
        let jpeg = try encoder.encode(source, quality: 95, subsampling: .s444)
        #expect(jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
        let info = try decoder.info(jpeg)
        #expect(info.width == 320 && info.height == 240)
        let decoded = try decoder.decode(jpeg, to: .bgra)
        let error = meanAbsoluteError(reference, decoded)
        #expect(error < 3.0, "mean error \(error) for \(format)")
    }

    @Test("YUV sources keep their subsampling in the JPEG")
    func subsamplingFollowsSource() throws {
        let image = try photoLikeImage(width: 64, height: 48)
        #expect(try decoder.info(encoder.encode(image.converted(to: .i420))).subsampling == .s420)
        #expect(try decoder.info(encoder.encode(image.converted(to: .i422))).subsampling == .s422)
        #expect(try decoder.info(encoder.encode(image.converted(to: .grey))).subsampling == .grey)
        #expect(try decoder.info(encoder.encode(image, subsampling: .s444)).subsampling == .s444)
    }

    @Test("DCT scaling decodes at 1/2, 1/4 and 1/8 with the expected sizes and content")
    func scaledDecode() throws {
        let image = try photoLikeImage(width: 1000, height: 750)
        let jpeg = try encoder.encode(image, quality: 90)
        for scale in JPEGScale.allCases {
            let decoded = try decoder.decode(jpeg, to: .bgra, scale: scale)
            #expect(decoded.width == scale.scaled(1000) && decoded.height == scale.scaled(750))
            let reference = try PixelTransform.scaled(image, width: decoded.width, height: decoded.height, filter: .box)
            #expect(meanAbsoluteError(reference, decoded) < 8, "scale \(scale)")
        }
        // Straight to YUV planes, scaled.
        let planes = try decoder.decode(jpeg.withUnsafeBytes { Array($0) }, to: .i420, scale: .quarter)
        #expect(planes.format == .i420 && planes.width == 250)
    }

    @Test("MJPEG frames (4:2:2, as webcams send) decode to BGRA, I420 and I422")
    func mjpegFrames() throws {
        let image = try photoLikeImage(width: 640, height: 480)
        let payload = try encoder.encode(image.converted(to: .i422), quality: 85)
        let frame = try PixelBuffer(format: .mjpeg, width: 640, height: 480, bytes: payload)
        let converter = PixelConverter()
        for format in [PixelFormat.bgra, .i420, .i422, .nv12, .yuyv] {
            let out = try PixelBuffer(format: format, width: 640, height: 480)
            try converter.convert(frame, into: out)
            #expect(meanAbsoluteError(image, try out.converted(to: .bgra)) < 4, "\(format)")
        }
    }

    @Test("a JPEG cut in half, random bytes and junk after SOI give typed errors, cheaply")
    func damagedData() throws {
        let jpeg = try encoder.encode(photoLikeImage(width: 320, height: 240), quality: 90)
        let half = Array(jpeg.prefix(jpeg.count / 2))
        #expect(!half.withUnsafeBytes { JPEGBytes.looksComplete($0) })
        #expect(jpeg.withUnsafeBytes { JPEGBytes.looksComplete($0) })
        // Zero padding after EOI, as some cameras send, is still complete.
        #expect((jpeg + [0, 0, 0]).withUnsafeBytes { JPEGBytes.looksComplete($0) })
        #expect(throws: MediaError.corruptData(format: "JPEG", reason: "truncated: no end-of-image marker")) { try decoder.decode(half) }
        #expect(throws: MediaError.self) { try decoder.decode(randomBytes(5000, seed: 7)) }
        #expect(throws: MediaError.self) { try decoder.decode([0xFF, 0xD8] + randomBytes(5000, seed: 8) + [0xFF, 0xD9]) }
        #expect(throws: MediaError.self) { try decoder.decode([]) }
        // A corrupted middle (entropy data damaged) is reported, not decoded into garbage silently.
        var damaged = jpeg
        for i in stride(from: jpeg.count / 3, to: jpeg.count / 3 + 64, by: 1) { damaged[i] = 0xFF }
        let frame = try PixelBuffer(format: .mjpeg, width: 320, height: 240, bytes: damaged)
        let out = try PixelBuffer(format: .bgra, width: 320, height: 240)
        #expect(throws: MediaError.self) { try PixelConverter().convert(frame, into: out) }
        // The decoder still works after failures.
        #expect(try decoder.decode(jpeg).width == 320)
    }

    @Test("a fuzzed stream of damaged frames never crashes the decoder")
    func fuzz() throws {
        let jpeg = try encoder.encode(photoLikeImage(width: 96, height: 64), quality: 80)
        var state: UInt64 = 42
        var failures = 0
        for round in 0..<1500 {
            var bytes = jpeg
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let flips = Int(state >> 60) + 1
            for k in 0..<flips {
                let position = Int((state >> UInt64(8 + k)) % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: state >> UInt64(k * 3))
            }
            if round % 3 == 0 { bytes = Array(bytes.prefix(Int(state % UInt64(bytes.count)))) }
            do { _ = try decoder.decode(bytes, to: round % 2 == 0 ? .bgra : .i420) } catch { failures += 1 }
        }
        #expect(failures > 0)
    }

    @Test("sizes that are not a DCT scaling, bad quality and MJPEG re-encoding are refused")
    func misuse() throws {
        let image = try photoLikeImage(width: 64, height: 48)
        let jpeg = try encoder.encode(image)
        let wrong = try PixelBuffer(format: .bgra, width: 50, height: 48)
        #expect(throws: MediaError.self) { try jpeg.withUnsafeBytes { try decoder.decode($0, into: wrong) } }
        #expect(throws: MediaError.self) { try encoder.encode(image, quality: 0) }
        #expect(throws: MediaError.self) { try encoder.encode(image, quality: 101) }
        let frame = try PixelBuffer(format: .mjpeg, width: 64, height: 48, bytes: jpeg)
        #expect(throws: MediaError.self) { try encoder.encode(frame) }
    }

    @Test("a JPEG larger than the decoder's limit is refused before decoding")
    func limits() throws {
        let small = JPEGDecoder(maximumPixels: 1000)
        let jpeg = try encoder.encode(photoLikeImage(width: 64, height: 48))
        #expect(throws: MediaError.imageTooLarge(width: 64, height: 48, maximumPixels: 1000)) { try small.decode(jpeg) }
    }
}

@Suite("YUV range")
struct YUVRangeTests {
    @Test("video-range planes encode to JPEG with the right levels: black stays black, white stays white")
    func levels() throws {
        for (value, expected) in [(RGB(r: 0, g: 0, b: 0), 0), (RGB(r: 255, g: 255, b: 255), 255), (RGB(r: 128, g: 128, b: 128), 128)] {
            let frame = try PixelBuffer(format: .i420, width: 64, height: 32, bytes: packFrame(.i420, width: 64, height: 32) { _, _ in value })
            let decoded = try JPEGDecoder().decode(JPEGEncoder().encode(frame, quality: 100))
            let p = decoded.bgraPixel(x: 30, y: 15)
            #expect(abs(Int(p.r) - expected) <= 2 && abs(Int(p.g) - expected) <= 2 && abs(Int(p.b) - expected) <= 2, "\(value): \(p)")
        }
        // Every colour bar survives video-range planes → JPEG → BGRA within ±4.
        let bars = try PixelBuffer(format: .i420, width: 320, height: 32, bytes: packFrame(.i420, width: 320, height: 32) { x, _ in bar(atX: x, width: 320) })
        let decoded = try JPEGDecoder().decode(JPEGEncoder().encode(bars, quality: 100))
        for i in 0..<8 {
            let x = i * 40 + 20
            #expect(channelError(decoded.bgraPixel(x: x, y: 16), colourBars[i]) <= 4, "bar \(i)")
        }
    }
}
