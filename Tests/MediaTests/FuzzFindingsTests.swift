import Foundation
@testable import Media
import Testing
import TestSupport

/// What `scripts/fuzz` found, kept: each input under Tests/Fixtures/fuzz/TARGET, refused with a
/// message a person can read, where it once took gigabytes (scripts/fuzz --replay also runs them,
/// under a 1-GiB memory cap, in CI).
@Suite struct FuzzFindingsTests {
    /// A stored finding's bytes.
    func finding(_ target: String, _ name: String) throws -> [UInt8] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fuzz/\(target)/\(name)").path
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test("a 14-KB PNG whose text chunk declares 1.8 GB (libpng allocated it whole): refused as corrupt, naming the chunk, by info, decode and the thumbnailer")
    func pngTextChunk() throws {
        let bytes = try finding("png", "text-chunk-declaring-1.8-GB.png")
        #expect(bytes.count < 20_000)
        for read in [{ _ = try PNGCodec.info(bytes) }, { _ = try PNGCodec.decode(bytes) }, { _ = try Thumbnailer().thumbnail(of: bytes, longestSide: 256) }] {
            #expect {
                try read()
            } throws: { error in
                guard case let .corruptData(format, reason) = error as? MediaError else { return false }
                return format == "PNG" && reason.contains("tEXt chunk") && reason.contains("past the end")
            }
        }
    }

    @Test("a 1.6-KB HEIF whose grid is derived from itself (libheif 1.15 recursed into it without end): refused as corrupt (a grid as its own tile) before libheif decodes")
    func heifGridLoop() throws {
        let bytes = try finding("heif", "grid-of-many-tiles.heic")
        #expect(bytes.count < 2_000)
        #expect {
            _ = try HEIFCodec.decode(bytes, preferThumbnailOf: 256)
        } throws: { error in
            guard case let .corruptData(format, reason) = error as? MediaError else { return false }
            return format == "HEIF" && reason.contains("grid 2 has grid 2 as a tile")
        }
    }

    @Test("a 1.7-KB HEIF whose grid declares 20544×65328 pixels though its properties say 64×48 (libheif allocated 2.7 GB for it): refused as too large")
    func heifHugeGrid() throws {
        let bytes = try finding("heif", "grid-declaring-1.3-gigapixels.heic")
        #expect(bytes.count < 2_000)
        #expect {
            _ = try HEIFCodec.decode(bytes, preferThumbnailOf: 256)
        } throws: { error in
            guard case let .imageTooLarge(width, height, _) = error as? MediaError else { return false }
            return width == 20544 && height == 65328
        }
    }

    @Test("a 1.6-KB HEIF whose 64×48 grid has an overlay as its tile, the overlay's canvas 65 megapixels (libheif allocated 260 MB for it): refused before libheif decodes")
    func heifGridOfOverlay() throws {
        let bytes = try finding("heif", "grid-of-an-overlay.heic")
        #expect(bytes.count < 2_000)
        #expect(throws: MediaError.self) { _ = try HEIFCodec.decode(bytes) }
        #expect(throws: MediaError.self) { _ = try Thumbnailer().thumbnail(of: bytes, longestSide: 256) }
    }

    @Test("a 1.6-KB HEIF whose grid declares 16384×12288 (within the pixel limit) while its ispe, the size readers see, says 64×48 (a thumbnail of it took 1.6 GB and 3.7 s): refused, naming both sizes")
    func heifGridLargerThanItsIspe() throws {
        let bytes = try finding("thumbnail", "grid-canvas-201-megapixels-ispe-64x48.heic")
        #expect(bytes.count < 2_000)
        for read in [{ _ = try HEIFCodec.decode(bytes) }, { _ = try Thumbnailer().thumbnail(of: bytes, longestSide: 256) }] {
            #expect {
                try read()
            } throws: { error in
                guard case let .corruptData(format, reason) = error as? MediaError else { return false }
                return format == "HEIF" && reason.contains("16384×12288") && reason.contains("ispe says 64×48")
            }
        }
        // heif-enc's own file, whose primary image is a 64×48 grid with a 64×48 ispe, decodes.
        let seed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Seeds/heif/photo.heic")
        let real = Array(try Data(contentsOf: seed))
        #expect(real.count > 1_000)
        let picture = try HEIFCodec.decode(real)
        #expect(picture.width == 64 && picture.height == 48)
    }

    @Test("HEIFs of 1.6 to 4 KB whose thumbnails took 0.9 to 7.5 s: items listing up to 26,982 extents in 0-byte-wide fields, and a grid sharing its item ID with an Exif item (libheif decoded the grid's 16384×12288 canvas, 1.2 GB, while the checks read Exif): refused as corrupt at once")
    func heifSlowThumbnails() throws {
        for (name, reason) in [("iloc-empty-extents-a.heic", "extents in fields 0 bytes wide"), ("iloc-empty-extents-b.heic", "26982 extents in fields 0 bytes wide"),
                               ("iloc-empty-extents-c.heic", "extents in fields 0 bytes wide"), ("iloc-empty-extents-d.heic", "extents in fields 0 bytes wide"),
                               ("grid-and-exif-sharing-an-item-id.heic", "item 2 is described twice (infe)")] {
            let bytes = try finding("thumbnail", name)
            #expect(bytes.count < 5_000)
            #expect {
                _ = try Thumbnailer().thumbnail(of: bytes, longestSide: 256)
            } throws: { error in
                guard case let .corruptData(format, message) = error as? MediaError else { return false }
                return format == "HEIF" && message.contains(reason)
            }
        }
    }

    @Test("HEIF derivations: a grid of coded tiles passes; a loop through two images and nesting past the limit are refused")
    func heifDerivationGraph() throws {
        /// A HEIF-shaped file holding only a meta box with `references` (from, [to]) as 'dimg' entries.
        func file(_ references: [(Int, [Int])]) -> [UInt8] {
            func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
                let size = UInt32(8 + body.count)
                return [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)] + Array(type.utf8) + body
            }
            func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
            let dimgs = references.flatMap { from, to in box("dimg", u16(from) + u16(to.count) + to.flatMap(u16)) }
            return box("ftyp", Array("heic".utf8) + [0, 0, 0, 0]) + box("meta", [0, 0, 0, 0] + box("iref", [0, 0, 0, 0] + dimgs))
        }
        try HEIFStructure.check(file([(1, [2, 3, 4, 5])]))
        try HEIFStructure.check(file([(1, [2, 3]), (2, [4]), (3, [4])]))
        #expect(throws: MediaError.self) { try HEIFStructure.check(file([(1, [2]), (2, [1])])) }
        #expect(throws: MediaError.self) { try HEIFStructure.check(file([(1, [1])])) }
        let chain = (1...HEIFStructure.maximumDepth + 1).map { ($0, [$0 + 1]) }
        #expect(throws: MediaError.self) { try HEIFStructure.check(file(chain)) }
        try HEIFStructure.check(file(Array(chain.prefix(HEIFStructure.maximumDepth))))
    }

    @Test("fragmented MP4s of 2.7 to 6 KB with a track that lost its header (tkhd), on which FFmpeg spent 1 to 3 s (0.1 s repaired): refused as corrupt before FFmpeg opens them; a real fragmented MP4 still opens")
    func movieTrackWithoutHeader() throws {
        let folder = try TemporaryDirectory()
        for name in ["track-without-header.mp4", "track-header-renamed.mp4", "slow-fragment-in-ffmpeg.mp4"] {
            try expectMovieRefused(name, in: folder, saying: ["no track header (tkhd)"])
        }
        let repaired = folder.path("repaired.mp4")
        var bytes = try finding("movie", "track-header-renamed.mp4")
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("tk%d".utf8)) })
        bytes.replaceSubrange(at..<(at + 4), with: Array("tkhd".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: repaired))
        #expect(try MovieFile(path: repaired).info.width > 0)
    }

    @Test("a 4.2-KB MP4 whose 40-byte trun declares 83,886,080 samples (FFmpeg allocated 2.1 GB opening it): refused as corrupt, naming the box, before FFmpeg opens it")
    func movieHugeTrun() throws {
        try expectMovieRefused("trun-declaring-83-million-samples.mp4", in: try TemporaryDirectory(), saying: ["trun box", "83886080"])
    }

    @Test("MP4s of 3 to 6 KB whose trun declares 33 or 83 million samples inside a box that overruns its parent (a traf 8 bytes past its moof; a trun whose 64-bit size passes its traf), which FFmpeg reads cut to the parent (2.1 and 2.2 GB, 11 s): refused as corrupt, naming the box")
    func movieTrunInOverrunningBox() throws {
        let folder = try TemporaryDirectory()
        for (name, count) in [("traf-overrunning-moof-trun-83-million.mp4", "83886080"), ("traf-overrunning-moof-trun-83-million-b.mp4", "83886080"),
                              ("trun-overrunning-traf-33-million.mp4", "33554432")] {
            try expectMovieRefused(name, in: folder, saying: ["trun box", count])
        }
    }

    /// Writes the movie finding `name` into `folder` and expects `MovieFile` to refuse it as
    /// corrupt movie data, its reason containing each of `words`.
    func expectMovieRefused(_ name: String, in folder: TemporaryDirectory, saying words: [String],
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = folder.path(name)
        try Data(try finding("movie", name)).write(to: URL(fileURLWithPath: path))
        #expect(sourceLocation: sourceLocation) {
            _ = try MovieFile(path: path)
        } throws: { error in
            guard case let .corruptData(format, reason) = error as? MediaError else { return false }
            return format == "movie" && words.allSatisfy { reason.contains($0) }
        }
    }
}
