import Foundation
import Media
import PhotoLibrary
import Testing
import TestSupport

@Suite("WebP import")
struct WebPImportTests {
    @Test("a WebP file imports with its pixel size and gets a thumbnail; one copied into the folder is indexed")
    func importWebP() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let library = try await PhotoLibrary(location: location)
        let webp = try WebPCodec.encode(SyntheticImage.photoLike(width: 320, height: 240), quality: 85)
        let asset = try await library.importFile(at: folder.file("holiday.webp", webp).path)
        #expect(asset.pixelWidth == 320 && asset.pixelHeight == 240)
        #expect(asset.path.hasPrefix(location.photos + "/") && asset.path.hasSuffix(".webp"), "\(asset.path)")
        #expect(try FileBytes.read(path: asset.path) == webp)
        let thumbnail = try await library.thumbnail(for: asset.id, size: .normal)
        let check = try runTool("pngcheck", [thumbnail])
        #expect(check.status == 0 && check.stdout.contains("(128x96,"), "\(check.stdout)")

        let copied = try WebPCodec.encode(SyntheticImage.photoLike(width: 200, height: 300, seed: 2), lossless: true)
        try Data(copied).write(to: URL(fileURLWithPath: location.photos + "/copied.webp"))
        #expect(try await library.synchronize().added == 1)
        let found = try await library.assets().first { $0.path == location.photos + "/copied.webp" }
        #expect(found?.pixelWidth == 200 && found?.pixelHeight == 300)
    }
}
