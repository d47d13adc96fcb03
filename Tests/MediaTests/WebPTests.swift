import Foundation
import Media
import Testing
import TestSupport

/// The photo-like test image with an alpha ramp across it (1…255: no pixel fully transparent,
/// so lossless WebP keeps every colour).
private func translucentImage(width: Int, height: Int) throws -> PixelBuffer {
    let image = try photoLikeImage(width: width, height: height)
    for y in 0..<height {
        let row = image.baseAddress(ofPlane: 0) + y * image.planes[0].bytesPerRow
        for x in 0..<width { row[x * 4 + 3] = UInt8(1 + x * 254 / max(1, width - 1)) }
    }
    return image
}

/// The largest difference in the alpha channel between two BGRA buffers of the same size.
private func maximumAlphaError(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    var worst = 0
    for y in 0..<a.height {
        for x in 0..<a.width { worst = max(worst, abs(Int(a.bgraPixel(x: x, y: y).a) - Int(b.bgraPixel(x: x, y: y).a))) }
    }
    return worst
}

/// Reads a PAM file (as `dwebp -pam` writes it: RGB_ALPHA, 8 bits) into a BGRA buffer, by hand.
private func pamImage(_ bytes: [UInt8]) throws -> PixelBuffer {
    let end = Array("ENDHDR\n".utf8)
    let headerEnd = try #require((0...(bytes.count - end.count)).first { Array(bytes[$0..<($0 + end.count)]) == end })
    var fields: [String: String] = [:]
    for line in String(decoding: bytes[..<headerEnd], as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
    }
    #expect(fields["DEPTH"] == "4" && fields["MAXVAL"] == "255", "\(fields)")
    let width = try #require(fields["WIDTH"].flatMap { Int($0) }), height = try #require(fields["HEIGHT"].flatMap { Int($0) })
    var pixels = Array(bytes[(headerEnd + end.count)...])
    try #require(pixels.count == width * height * 4)
    for index in stride(from: 0, to: pixels.count, by: 4) { pixels.swapAt(index, index + 2) }  // RGBA → BGRA
    return try PixelBuffer(format: .bgra, width: width, height: height, bytes: pixels)
}

/// A RIFF chunk: four-character type, little-endian length, data, padding to an even length.
private func riffChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let count = UInt32(data.count)
    return Array(type.utf8) + [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)]
        + data + (data.count % 2 == 1 ? [0] : [])
}

/// A WebP file ("RIFF", size, "WEBP") holding `chunks`.
private func webpFile(_ chunks: [UInt8]) -> [UInt8] {
    let size = UInt32(4 + chunks.count)
    return Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)] + Array("WEBP".utf8) + chunks
}

/// A VP8X chunk (extended header) with `flags` and a canvas of `width`×`height`.
private func vp8x(flags: UInt8, width: Int, height: Int) -> [UInt8] {
    func le24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
    return riffChunk("VP8X", [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1))
}

@Suite("WebP")
struct WebPTests {
    @Test("lossy and lossless round trips: info reads size and alpha, pixels come back within tolerance", arguments: [false, true])
    func roundTrip(lossless: Bool) throws {
        let opaque = try photoLikeImage(width: 320, height: 240)
        let webp = try WebPCodec.encode(opaque, quality: 90, lossless: lossless)
        #expect(ImageKind(sniffing: webp) == .webp)
        #expect(ImageKind.webp.mimeType == "image/webp")
        let info = try WebPCodec.info(webp)
        #expect(info.width == 320 && info.height == 240 && !info.hasAlpha)
        let decoded = try WebPCodec.decode(webp)
        #expect(decoded.format == .bgra && decoded.width == 320 && decoded.height == 240)
        if lossless {
            #expect(decoded.packedBytes() == opaque.packedBytes(), "lossless WebP must give the pixels back exactly")
        } else {
            let error = meanAbsoluteError(opaque, decoded)
            #expect(error < 4, "mean error \(error)")
            #expect(maximumAlphaError(opaque, decoded) == 0, "an image without alpha decodes opaque")
        }

        let translucent = try translucentImage(width: 161, height: 97)
        let withAlpha = try WebPCodec.encode(translucent, quality: 90, lossless: lossless)
        let alphaInfo = try WebPCodec.info(withAlpha)
        #expect(alphaInfo.width == 161 && alphaInfo.height == 97 && alphaInfo.hasAlpha)
        let decodedAlpha = try WebPCodec.decode(withAlpha)
        if lossless {
            #expect(decodedAlpha.packedBytes() == translucent.packedBytes())
        } else {
            #expect(maximumAlphaError(translucent, decodedAlpha) <= 1, "lossy WebP codes alpha losslessly by default")
        }
    }

    @Test("YUV buffers are converted before encoding; bad quality and MJPEG payloads are refused")
    func encoderInputs() throws {
        let image = try photoLikeImage(width: 64, height: 48)
        let fromI420 = try WebPCodec.decode(WebPCodec.encode(image.converted(to: .i420), quality: 90))
        #expect(meanAbsoluteError(image, fromI420) < 6)
        #expect(throws: MediaError.encoderFailed(format: "WebP", reason: "quality 101.0 is outside 0–100")) {
            try WebPCodec.encode(image, quality: 101)
        }
        #expect(throws: MediaError.self) { try WebPCodec.encode(image, quality: .nan) }
        let mjpeg = try PixelBuffer(format: .mjpeg, width: 64, height: 48, bytes: JPEGEncoder().encode(image))
        #expect(throws: MediaError.self) { try WebPCodec.encode(mjpeg) }
    }

    @Test("files made by cwebp (lossy and lossless) decode to the picture")
    func fromCwebp() throws {
        let image = try photoLikeImage(width: 200, height: 150, seed: 4)
        let folder = try TemporaryDirectory()
        let png = try folder.file("source.png", PNGCodec.encode(image)).path
        for lossless in [false, true] {
            let output = folder.path(lossless ? "lossless.webp" : "lossy.webp")
            let made = try runTool("cwebp", (lossless ? ["-lossless"] : ["-q", "90"]) + ["-quiet", png, "-o", output])
            #expect(made.status == 0, "\(made.stderr)")
            let webp = try FileBytes.read(path: output)
            #expect(try WebPCodec.info(webp).width == 200)
            let decoded = try WebPCodec.decode(webp)
            if lossless {
                #expect(decoded.packedBytes() == image.packedBytes())
            } else {
                let error = meanAbsoluteError(image, decoded)
                #expect(error < 4, "mean error \(error)")
            }
        }
    }

    @Test("our files pass webpinfo and dwebp decodes them to the picture")
    func readByDwebp() throws {
        let image = try translucentImage(width: 180, height: 120)
        let folder = try TemporaryDirectory()
        for lossless in [false, true] {
            let webp = try WebPCodec.encode(image, quality: 90, lossless: lossless)
            let path = try folder.file("ours.webp", webp).path
            let info = try runTool("webpinfo", [path])
            #expect(info.status == 0 && info.stdout.contains("Width: 180") && info.stdout.contains("Height: 120"), "\(info.stdout) \(info.stderr)")
            let pam = folder.path("ours.pam")
            let decoded = try runTool("dwebp", [path, "-pam", "-o", pam])
            #expect(decoded.status == 0, "\(decoded.stderr)")
            let theirs = try pamImage(FileBytes.read(path: pam))
            #expect(theirs.width == 180 && theirs.height == 120)
            if lossless {
                #expect(theirs.packedBytes() == image.packedBytes())
            } else {
                let error = meanAbsoluteError(image, theirs)
                #expect(error < 4, "mean error \(error)")
                #expect(maximumAlphaError(image, theirs) <= 1)
            }
        }
    }

    @Test("random, truncated, damaged and empty data give typed errors, never a crash")
    func damaged() throws {
        let lossy = try WebPCodec.encode(photoLikeImage(width: 96, height: 64), quality: 80)
        let lossless = try WebPCodec.encode(photoLikeImage(width: 96, height: 64), lossless: true)
        #expect(throws: MediaError.self) { try WebPCodec.decode(randomBytes(3000, seed: 3)) }
        #expect(throws: MediaError.self) { try WebPCodec.decode([]) }
        #expect(throws: MediaError.self) { try WebPCodec.info(Array("RIFF".utf8)) }
        #expect(throws: MediaError.self) { try WebPCodec.decode(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBP".utf8) + randomBytes(500, seed: 8)) }
        for file in [lossy, lossless] {
            for length in stride(from: 0, to: file.count, by: 5) {
                #expect(throws: MediaError.self, "\(length) of \(file.count) bytes") { try WebPCodec.decode(Array(file.prefix(length))) }
            }
            // Damage in the middle may still decode (lossy WebP has no checksum); it must not crash.
            var seed: UInt64 = 1
            for _ in 0..<64 {
                var bad = file
                for byte in randomBytes(4, seed: seed) { bad[12 + Int(byte) * (bad.count - 13) / 255] ^= byte | 1 }
                seed += 1
                _ = try? WebPCodec.decode(bad)
                _ = try? WebPCodec.decode(bad, fittingLongestSide: 32)
            }
        }
        do {
            _ = try WebPCodec.decode(Array(lossy.prefix(lossy.count / 2)))
        } catch {
            #expect(error.description.contains("WebP"))
        }
    }

    @Test("headers claiming a huge image are refused before anything is allocated")
    func decompressionBomb() throws {
        // An extended header alone: a 60000×60000 canvas in 30 bytes.
        let canvas = webpFile(vp8x(flags: 0, width: 60_000, height: 60_000))
        #expect(canvas.count == 30)
        #expect(try WebPCodec.info(canvas).width == 60_000)
        #expect(throws: MediaError.imageTooLarge(width: 60_000, height: 60_000, maximumPixels: DecodingLimits.maximumPixels)) {
            try WebPCodec.decode(canvas)
        }
        #expect(throws: MediaError.self) { try Thumbnailer().thumbnail(of: canvas, longestSide: 128) }
        // A lossless header at WebP's largest size (16383×16383), under the default limit: a caller's limit applies.
        let side = UInt32(16_383 - 1), bits = side | side << 14
        let vp8l = webpFile(riffChunk("VP8L", [0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24), 0, 0, 0]))
        #expect(try WebPCodec.info(vp8l).width == 16_383)
        #expect(throws: MediaError.imageTooLarge(width: 16_383, height: 16_383, maximumPixels: 1 << 24)) {
            try WebPCodec.decode(vp8l, maximumPixels: 1 << 24)
        }
    }

    @Test("animated WebP (from img2webp, and a hand-made VP8X with the animation flag) is refused clearly")
    func animated() throws {
        let folder = try TemporaryDirectory()
        let first = try folder.file("a.png", PNGCodec.encode(photoLikeImage(width: 64, height: 48, seed: 1))).path
        let second = try folder.file("b.png", PNGCodec.encode(photoLikeImage(width: 64, height: 48, seed: 2))).path
        let output = folder.path("animated.webp")
        let made = try runTool("img2webp", ["-loop", "0", "-lossy", "-d", "100", first, "-d", "100", second, "-o", output])
        #expect(made.status == 0, "\(made.stderr)")
        let byHand = webpFile(vp8x(flags: 0x02, width: 64, height: 48) + riffChunk("ANIM", [0, 0, 0, 0, 0, 0]))
        for animation in [try FileBytes.read(path: output), byHand] {
            #expect(ImageKind(sniffing: animation) == .webp)
            do {
                _ = try WebPCodec.info(animation)
                Issue.record("an animated WebP was read as a still")
            } catch {
                guard case .unsupported = error else { Issue.record("\(error)"); continue }
                #expect(error.description.contains("animated WebP"), "\(error.description)")
            }
            #expect(throws: MediaError.self) { try WebPCodec.decode(animation) }
            #expect(throws: MediaError.self) { try Thumbnailer().thumbnail(of: animation, longestSide: 64) }
        }
    }

    @Test("decoding into a pool's buffer, at full size or scaled down; other formats and larger sizes are refused")
    func intoBuffers() throws {
        let image = try photoLikeImage(width: 320, height: 240)
        let webp = try WebPCodec.encode(image, quality: 90)
        let pool = try PixelBufferPool(format: .bgra, width: 320, height: 240, rowAlignment: 64)
        let buffer = try pool.dequeueBuffer()
        try WebPCodec.decode(webp, into: buffer)
        #expect(meanAbsoluteError(image, buffer) < 4)
        let half = try PixelBuffer(format: .bgra, width: 160, height: 120)
        try WebPCodec.decode(webp, into: half)
        #expect(meanAbsoluteError(try PixelTransform.scaled(image, width: 160, height: 120, filter: .box), half) < 4)
        #expect(throws: MediaError.self) { try WebPCodec.decode(webp, into: PixelBuffer(format: .rgba, width: 320, height: 240)) }
        #expect(throws: MediaError.self) { try WebPCodec.decode(webp, into: PixelBuffer(format: .bgra, width: 640, height: 480)) }
        #expect(throws: MediaError.imageTooLarge(width: 320, height: 240, maximumPixels: 1000)) {
            try WebPCodec.decode(webp, into: buffer, maximumPixels: 1000)
        }
    }

    @Test("Thumbnailer makes WebP thumbnails that fit, true to the picture, never enlarged")
    func thumbnails() throws {
        let thumbnailer = Thumbnailer()
        let image = try photoLikeImage(width: 800, height: 600)
        let webp = try WebPCodec.encode(image, quality: 85)
        let thumbnail = try thumbnailer.thumbnail(of: webp, size: .large)
        #expect(thumbnail.format == .bgra && thumbnail.width == 256 && thumbnail.height == 192)
        let reference = try PixelTransform.scaled(image, width: 256, height: 192, filter: .box)
        #expect(meanAbsoluteError(reference, thumbnail) < 6)
        let portrait = try thumbnailer.thumbnail(of: WebPCodec.encode(photoLikeImage(width: 300, height: 500), lossless: true), longestSide: 100)
        #expect(portrait.width == 60 && portrait.height == 100)
        let tiny = try thumbnailer.thumbnail(of: WebPCodec.encode(photoLikeImage(width: 50, height: 40)), longestSide: 256)
        #expect(tiny.width == 50 && tiny.height == 40)
    }
}
