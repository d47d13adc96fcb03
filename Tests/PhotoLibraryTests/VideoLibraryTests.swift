import Foundation
import Media
import PhotoLibrary
import Testing
import TestSupport


@Suite("Videos in the library")
struct VideoLibraryTests {
    @Test("an imported MP4 is copied into the videos folder, named by its creation time, with size, duration and a first-frame thumbnail")
    func importMP4() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("thumbnails"))
        let library = try await PhotoLibrary(location: location)
        let source = folder.path("clip.mp4")
        try makeTestMovie(source, seconds: 2, size: "640x360", extra: ["-metadata", "creation_time=2026-01-02T03:04:05Z"])
        let asset = try await library.importFile(at: source)
        #expect(asset.mediaType == .video && asset.id.hasPrefix("v"))
        #expect(asset.pixelWidth == 640 && asset.pixelHeight == 360)
        #expect(abs((asset.duration ?? 0) - 2) < 0.1)
        #expect(asset.creationDate == 1_767_323_045)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH-mm-ss"
        formatter.timeZone = .current
        #expect(asset.path == location.videos + "/Video from \(formatter.string(from: Date(timeIntervalSince1970: 1_767_323_045))).mp4")
        #expect(FileManager.default.fileExists(atPath: source), "an import copies")
        #expect(FileManager.default.contentsEqual(atPath: source, andPath: asset.path))
        // ffprobe reads the library's copy; sqlite3 reads the row.
        #expect(try ffprobe(asset.path, "stream=codec_name")["codec_name"] == "h264")
        #expect(try sqlite(location.index, "SELECT media_type, round(duration) FROM assets WHERE id = '\(asset.id)'") == "video|2.0")
        // The large thumbnail was made from the first frame at import (pngcheck reads its keys).
        let thumbnail = ThumbnailCache(folder: location.thumbnails).path(for: asset.path, size: .large)
        let check = try runTool("pngcheck", ["-t", thumbnail])
        #expect(check.status == 0 && check.stdout.contains("(256x144,") && check.stdout.contains("Thumb::URI"), "\(check.stdout)")
        #expect(try await library.thumbnail(for: asset.id, size: .large) == thumbnail)
        #expect(try await library.assets(mediaType: .video).map(\.id) == [asset.id])
        #expect(try await library.assets(mediaType: .photo).isEmpty)
    }

    @Test("MOV, MKV and WebM keep their container; moving a movie in links it (no copy) and removes the original",
          arguments: [("mov", "h264"), ("mkv", "h264"), ("webm", "vp9")])
    func containers(fileExtension: String, codec: String) async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let source = folder.path("clip.\(fileExtension)")
        try makeTestMovie(source, seconds: 1, codec: codec)
        var before = stat()
        stat(source, &before)
        let ids = try await library.performChanges { $0.createAsset(fromVideoFile: source, moving: true) }
        let asset = try #require(try await library.asset(id: ids[0]))
        #expect(asset.path.hasSuffix(".\(fileExtension)") && asset.mediaType == .video)
        #expect(!FileManager.default.fileExists(atPath: source))
        var after = stat()
        stat(asset.path, &after)
        #expect(after.st_ino == before.st_ino, "a move within one file system is a link, not a copy")
        #expect(try ffprobe(asset.path, "stream=codec_name")["codec_name"] == codec)
    }

    @Test("fake, truncated and duplicate movies are refused with one line and leave nothing behind; a photo is not a video")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let good = folder.path("good.mp4")
        try makeTestMovie(good, seconds: 1)
        let bytes = try FileBytes.read(path: good)
        let random = try folder.file("random.mp4", randomBytes(50_000, seed: 3))
        let truncated = try folder.file("truncated.mp4", Array(bytes.prefix(bytes.count / 3)))
        let header = try folder.file("header.mkv", [0x1A, 0x45, 0xDF, 0xA3] + randomBytes(500, seed: 4))
        for url in [random, truncated, header] {
            await #expect(throws: LibraryError.self) { try await library.importFile(at: url.path) }
        }
        _ = try await library.importFile(at: good)
        do {
            _ = try await library.importFile(at: good)
            Issue.record("a duplicate movie was added")
        } catch {
            guard case .duplicate = error else { Issue.record("\(error)"); return }
        }
        let photo = try folder.file("photo.jpg", jpeg(hour: 10, minute: 0))
        do {
            _ = try await library.performChanges { $0.createAsset(fromVideoFile: photo.path) }
            Issue.record("a photo was accepted as a video")
        } catch {
            #expect(error.description.contains("not an MP4"), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.videos).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.photos).isEmpty)
        #expect(try await library.count == 1)
    }

    @Test("a movie larger than the free space: the streaming copy fails with a full disk and leaves no partial or temporary file, no row")
    func fullDisk() async throws {
        let folder = try TemporaryDirectory()
        let disk = try SmallDisk(at: folder.path("small"), size: "256k")
        defer { disk.unmount() }
        let location = LibraryLocation(folder: disk.path + "/library", trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let movie = folder.path("big.mp4")
        try makeTestMovie(movie, seconds: 4, size: "640x480", extra: ["-b:v", "2M"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: movie)[.size] as? Int)
        try #require(size > 512 * 1024, "the movie (\(size) bytes) would fit")
        do {
            _ = try await library.importFile(at: movie)
            Issue.record("the movie was imported onto a full disk")
        } catch {
            guard case .cannotWrite(_, .diskFull) = error else { Issue.record("\(error)"); return }
        }
        // Hidden names included: a temporary copy would be one.
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.videos).isEmpty)
        #expect(try await library.count == 0)
        #expect(FileManager.default.fileExists(atPath: movie))
    }

    @Test("movies other programs put in the videos folder are indexed; a rebuilt index keeps video identifiers; delete and restore")
    func foreignAndRebuild() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        try FileManager.default.createDirectory(atPath: location.videos, withIntermediateDirectories: true)
        try makeTestMovie(location.videos + "/from a phone.mp4", seconds: 1)
        try makeTestMovie(location.videos + "/screencast.webm", seconds: 1, codec: "vp9")
        try Data(randomBytes(1000, seed: 1)).write(to: URL(fileURLWithPath: location.videos + "/broken.mkv"))
        let ids: [String]
        do {
            let library = try await PhotoLibrary(location: location)
            let videos = try await library.assets(mediaType: .video)
            #expect(videos.count == 2, "the broken file is not an asset")
            ids = videos.map(\.id).sorted()
            try await library.delete(ids: [ids[0]])
            #expect(try await library.count == 1)
            let restored = try await library.restore(ids: [ids[0]])
            #expect(restored.map(\.id) == [ids[0]])
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.index + suffix) }
        let rebuilt = try await PhotoLibrary(location: location)
        #expect(try await rebuilt.assets().map(\.id).sorted() == ids)
        #expect(try await rebuilt.differences().missingFromIndex == [location.videos + "/broken.mkv"])
        let exported = try await rebuilt.export(ids: [ids[0]], to: folder.path("out"))
        let original = try #require(try await rebuilt.asset(id: ids[0]))
        #expect(FileManager.default.contentsEqual(atPath: exported[0], andPath: original.path))
    }

    @Test("a recording made in the videos folder is added where it is, also when an observer indexed it first")
    func recordingInPlace() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let first = location.videos + "/Video from 2026-11-29 10-00-00.mp4", second = location.videos + "/Video from 2026-11-29 11-00-00.mp4"
        try makeTestMovie(first, seconds: 1)
        try makeTestMovie(second, seconds: 1, size: "160x120")
        let ids = try await library.performChanges { $0.createAsset(fromVideoFile: first, moving: true) }
        #expect(try await library.asset(id: ids[0])?.path == first, "kept in place, not renamed")
        // A gallery noticed the second file before the recorder added it: same asset, no duplicate error.
        #expect(try await library.synchronize().added == 1)
        let indexed = try #require(try await library.assets().first { $0.path == second })
        let again = try await library.performChanges { $0.createAsset(fromVideoFile: second, moving: true) }
        #expect(again == [indexed.id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.videos).sorted() == [(first as NSString).lastPathComponent, (second as NSString).lastPathComponent])
    }

    @Test("a phone's movie with a location: the asset has it; exported with stripLocation it is gone, streams and rotation unchanged", arguments: ["mp4", "mov", "mkv"])
    func stripMovieLocation(fileExtension: String) async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let plain = folder.path("plain.\(fileExtension)"), source = folder.path("phone.\(fileExtension)")
        try makeTestMovie(plain, seconds: 1)
        #expect(try runTool("ffmpeg", ["-v", "error", "-i", plain, "-c", "copy", "-metadata", "location=+48.8577+002.2950/",
                                       "-metadata:s:v:0", "rotate=90", source]).status == 0)
        let asset = try await library.importFile(at: source)
        #expect(asset.location.map { abs($0.latitude - 48.8577) < 1e-6 } == true, "\(String(describing: asset.location))")
        let exported = try await library.export(ids: [asset.id], to: folder.path("out"), stripLocation: true)[0]
        // Independent readers: ffprobe's tags and exiftool's GPS fields are gone; the streams are the same packets.
        let tags = try runTool("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=noprint_wrappers=1", exported]).stdout
        #expect(!tags.lowercased().contains("location") && !tags.contains("48.8577"), "\(tags)")
        let exif = try ExifTool.locate().tags(URL(fileURLWithPath: exported))
        #expect(exif.keys.filter { $0.contains("GPS") }.isEmpty, "\(exif.keys.filter { $0.contains("GPS") })")
        #expect(try MovieFile(path: exported).info.rotation == MovieFile(path: asset.path).info.rotation)
        let hashes = { (path: String) throws -> String in
            try runTool("ffmpeg", ["-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "md5", "-"]).stdout
        }
        #expect(try hashes(exported) == hashes(asset.path), "the video packets are copied, not re-encoded")
        let kept = try await library.export(ids: [asset.id], to: folder.path("plain-out"))[0]
        #expect(FileManager.default.contentsEqual(atPath: kept, andPath: asset.path), "without stripLocation, unchanged")
    }

    @Test("an index from before videos (no duration column) is upgraded in place, keeping its rows")
    func upgrade() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let photoID: String
        do {
            let library = try await PhotoLibrary(location: location)
            photoID = try await library.addPhoto(data: jpeg(hour: 11, minute: 0)).id
            try await library.setFavorite(true, ids: [photoID])
        }
        // What version 1 looked like: the same table without the column.
        _ = try sqlite(location.index, """
            CREATE TABLE old AS SELECT id, media_type, path, width, height, created, orientation, favorite, latitude, longitude, altitude, size, mtime FROM assets;
            DROP TABLE assets; ALTER TABLE old RENAME TO assets; PRAGMA user_version = 1;
            """)
        #expect(try !sqlite(location.index, "PRAGMA table_info(assets)").contains("duration"))
        let library = try await PhotoLibrary(location: location)
        #expect(try await library.asset(id: photoID)?.isFavorite == true)
        #expect(try sqlite(location.index, "PRAGMA table_info(assets)").contains("duration"))
        #expect(try sqlite(location.index, "PRAGMA user_version") == "5")
    }
}

@Suite("Thumbnails ahead of time")
struct BackgroundThumbnailTests {
    @Test("files that appear without thumbnails get them in the background; prepareThumbnails fills a size once")
    func background() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("thumbnails"))
        try FileManager.default.createDirectory(atPath: location.photos, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: location.videos, withIntermediateDirectories: true)
        for hour in 8..<11 { try Data(jpeg(hour: hour, minute: 0, seed: UInt64(hour))).write(to: URL(fileURLWithPath: location.photos + "/copied \(hour).jpg")) }
        try makeTestMovie(location.videos + "/copied.mp4", seconds: 1)
        let cache = ThumbnailCache(folder: location.thumbnails)
        let library = try await PhotoLibrary(location: location)
        #expect(await library.waitForBackgroundThumbnails() == 4)
        let assets = try await library.assets()
        #expect(assets.count == 4)
        for asset in assets {
            let check = try runTool("pngcheck", ["-t", cache.path(for: asset.path, size: .large)])
            #expect(check.status == 0 && check.stdout.contains("Thumb::MTime"), "\(asset.path): \(check.stdout)")
        }
        // Another program adds a file while the library is open: synchronize() notices it and
        // its thumbnail follows in the background.
        try Data(jpeg(hour: 12, minute: 0, seed: 12)).write(to: URL(fileURLWithPath: location.photos + "/later.jpg"))
        #expect(try await library.synchronize().added == 1)
        #expect(await library.waitForBackgroundThumbnails() == 5)
        #expect(cache.hasCurrentThumbnail(of: location.photos + "/later.jpg", size: .large))
        // Another size on request: made once, then current.
        #expect(try await library.prepareThumbnails(size: .normal) == 5)
        #expect(try await library.prepareThumbnails(size: .normal) == 0)
        #expect(assets.allSatisfy { cache.hasCurrentThumbnail(of: $0.path, size: .normal) })
    }
}
