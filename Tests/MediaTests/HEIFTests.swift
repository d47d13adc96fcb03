import Media
import Testing
import TestSupport

@Suite("HEIF")
struct HEIFTests {
    @Test("libheif on Debian 12 has an HEVC encoder")
    func encoders() {
        #expect(HEIFCodec.canEncode)
        #expect(HEIFCodec.encoderNames.contains { $0.contains("x265") })
    }

    @Test("an encoded HEIF decodes back within a mean error of 4 and heif-info reads it")
    func roundTrip() throws {
        let image = try photoLikeImage(width: 320, height: 240)
        let heif = try HEIFCodec.encode(image, quality: 90)
        let size = try HEIFCodec.size(heif)
        #expect(size.width == 320 && size.height == 240)
        let decoded = try HEIFCodec.decode(heif)
        #expect(decoded.width == 320 && decoded.height == 240)
        let error = meanAbsoluteError(image, decoded)
        #expect(error < 4, "mean error \(error)")
        #expect(ImageKind(sniffing: heif) == .heif)

        let folder = try TemporaryDirectory()
        let path = try folder.file("image.heic", heif).path
        let info = try runTool("heif-info", [path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("320x240"))
    }

    @Test("random bytes, a truncated file and a fake ftyp give typed errors")
    func damaged() throws {
        let heif = try HEIFCodec.encode(photoLikeImage(width: 64, height: 64), quality: 50)
        #expect(throws: MediaError.self) { try HEIFCodec.decode(randomBytes(4000, seed: 5)) }
        #expect(throws: MediaError.self) { try HEIFCodec.decode(Array(heif.prefix(heif.count / 2))) }
        #expect(throws: MediaError.self) { try HEIFCodec.decode([0, 0, 0, 24] + Array("ftypheic".utf8) + randomBytes(200, seed: 9)) }
        #expect(throws: MediaError.self) { try HEIFCodec.decode([]) }
    }
}
