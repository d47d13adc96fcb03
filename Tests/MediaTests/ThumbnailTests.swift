import Foundation
import Media
import Testing
import TestSupport

@Suite("Thumbnails")
struct ThumbnailTests {
    let thumbnailer = Thumbnailer()

    @Test("a 12 MP JPEG gives thumbnails at every freedesktop size, fitting and true to the picture", arguments: ThumbnailSize.allCases)
    func jpegSizes(size: ThumbnailSize) throws {
        let photo = try photoLikeImage(width: 4000, height: 3000)
        let jpeg = try JPEGEncoder().encode(photo, quality: 90)
        let thumbnail = try thumbnailer.thumbnail(of: jpeg, size: size)
        #expect(thumbnail.width == size.rawValue)
        #expect(thumbnail.height == size.rawValue * 3 / 4)
        let reference = try PixelTransform.scaled(photo, width: thumbnail.width, height: thumbnail.height, filter: .box)
        #expect(meanAbsoluteError(reference, thumbnail) < 6)
    }

    @Test("PNG and HEIF thumbnails; small images are not enlarged; portrait fits its height")
    func otherFormats() throws {
        let image = try photoLikeImage(width: 600, height: 800)
        let png = try PNGCodec.encode(image)
        let fromPNG = try thumbnailer.thumbnail(of: png, longestSide: 256)
        #expect(fromPNG.width == 192 && fromPNG.height == 256)
        let heif = try HEIFCodec.encode(image, quality: 60)
        let fromHEIF = try thumbnailer.thumbnail(of: heif, longestSide: 128)
        #expect(fromHEIF.width == 96 && fromHEIF.height == 128)
        #expect(meanAbsoluteError(try PixelTransform.scaled(image, width: 96, height: 128, filter: .box), fromHEIF) < 8)
        let tiny = try PNGCodec.encode(photoLikeImage(width: 50, height: 40))
        let notEnlarged = try thumbnailer.thumbnail(of: tiny, longestSide: 256)
        #expect(notEnlarged.width == 50 && notEnlarged.height == 40)
    }

    @Test("a JPEG with EXIF orientation gives an upright thumbnail", arguments: ExifOrientation.allCases)
    func orientation(orientation: ExifOrientation) throws {
        // Stored 400×300: left half red, right half blue, top band green.
        let stored = try PixelBuffer(format: .bgra, width: 400, height: 300, bytes: packFrame(.bgra, width: 400, height: 300) { x, y in
            y < 60 ? RGB(r: 0, g: 200, b: 0) : (x < 200 ? RGB(r: 220, g: 0, b: 0) : RGB(r: 0, g: 0, b: 220))
        })
        let jpeg = try JPEGExif.inserting(ExifMetadata(orientation: orientation), into: JPEGEncoder().encode(stored, quality: 95))
        let thumbnail = try thumbnailer.thumbnail(of: jpeg, longestSide: 200)
        let reference = try PixelTransform.upright(PixelTransform.scaled(stored, width: 200, height: 150, filter: .box), orientation: orientation)
        #expect(thumbnail.width == (orientation.swapsWidthAndHeight ? 150 : 200))
        #expect(meanAbsoluteError(reference, thumbnail) < 4)
        // Independent check of one case: "Rotate 90 CW" puts the stored top band on the right.
        if orientation == .right {
            let p = thumbnail.bgraPixel(x: 145, y: 100)
            #expect(p.g > 150 && p.r < 60 && p.b < 60, "\(p)")
        }
    }

    @Test("PNG (eXIf) and WebP (EXIF chunk) photos turned by exiftool give upright thumbnails, as JPEGs do")
    func orientationOfPNGAndWebP() throws {
        let folder = try TemporaryDirectory()
        let stored = try PixelBuffer(format: .bgra, width: 400, height: 300, bytes: packFrame(.bgra, width: 400, height: 300) { x, y in
            y < 60 ? RGB(r: 0, g: 200, b: 0) : (x < 200 ? RGB(r: 220, g: 0, b: 0) : RGB(r: 0, g: 0, b: 220))
        })
        for (name, data) in [("turned.png", try PNGCodec.encode(stored)), ("turned.webp", try WebPCodec.encode(stored, quality: 95))] {
            let path = folder.path(name)
            try Data(data).write(to: URL(fileURLWithPath: path))
            let tagged = try runTool("exiftool", ["-overwrite_original", "-Orientation=6", "-n", path])
            try #require(tagged.status == 0, "exiftool \(name): \(tagged.stderr)")
            let thumbnail = try thumbnailer.thumbnail(ofFile: path, longestSide: 200)
            #expect(thumbnail.width == 150 && thumbnail.height == 200, "\(name): \(thumbnail.width)×\(thumbnail.height)")
            // "Rotate 90 CW" puts the stored top band on the right.
            let p = thumbnail.bgraPixel(x: 145, y: 100)
            #expect(p.g > 150 && p.r < 60 && p.b < 60, "\(name): \(p)")
        }
    }

    @Test("files: thumbnails from a path, and clear errors for directories, missing files and non-images")
    func files() throws {
        let folder = try TemporaryDirectory()
        let path = try folder.file("photo.jpg", JPEGEncoder().encode(photoLikeImage(width: 640, height: 480))).path
        #expect(try thumbnailer.thumbnail(ofFile: path, longestSide: 128).width == 128)
        #expect(throws: MediaError.self) { try thumbnailer.thumbnail(ofFile: folder.url.path, longestSide: 128) }
        #expect(throws: MediaError.self) { try thumbnailer.thumbnail(ofFile: folder.path("missing.jpg"), longestSide: 128) }
        let junk = try folder.file("junk.png", randomBytes(1000, seed: 1)).path
        do {
            _ = try thumbnailer.thumbnail(ofFile: junk, longestSide: 128)
            Issue.record("random bytes made a thumbnail")
        } catch {
            #expect(error.description.contains("not a JPEG, PNG, HEIF or WebP"))
        }
        #expect(throws: MediaError.self) { try thumbnailer.thumbnail(of: pngHeaderOnly(width: 100_000, height: 100_000), longestSide: 128) }
    }
}
