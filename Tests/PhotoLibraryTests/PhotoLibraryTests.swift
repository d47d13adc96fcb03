import Foundation
import Media
import PhotoLibrary
import Testing
import TestSupport

/// A JPEG of a photo-like picture with EXIF taken at `hour`:`minute` on 2026-11-29 (UTC+1).
func jpeg(hour: Int, minute: Int, seed: UInt64 = 1, orientation: ExifOrientation = .up) throws -> [UInt8] {
    let image = try SyntheticImage.photoLike(width: 320, height: 240, seed: seed)
    let date = try ExifDateTime(year: 2026, month: 11, day: 29, hour: hour, minute: minute, second: 0, millisecond: 250, utcOffsetSeconds: 3600)
    let metadata = ExifMetadata(make: "Pinhole", model: "Test", dateTimeOriginal: date, pixelWidth: 320, pixelHeight: 240, orientation: orientation)
    return try JPEGExif.inserting(metadata, into: JPEGEncoder().encode(image, quality: 85))
}

/// Runs sqlite3 (the command-line tool, not our code) on the index.
func sqlite(_ index: String, _ sql: String) throws -> String {
    let result = try runTool("sqlite3", [index, sql])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("Photo library")
struct PhotoLibraryTests {
    @Test("added photos are files named by their EXIF date, rows in a WAL index that sqlite3 checks, listed newest first")
    func addAndList() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.url.path)
        let library = try await PhotoLibrary(location: location)
        let early = try await library.addPhoto(data: jpeg(hour: 9, minute: 5, seed: 1))
        let late = try await library.addPhoto(data: jpeg(hour: 18, minute: 30, seed: 2, orientation: .right))
        let middle = try await library.addPhoto(data: jpeg(hour: 12, minute: 0, seed: 3))
        // Named by the EXIF time (09:05:00.250 at UTC+1), shown in local time.
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH-mm-ss.SSS"
        formatter.timeZone = .current
        let taken = Date(timeIntervalSince1970: 1_795_939_500.25)  // 2026-11-29 08:05:00.250 UTC
        #expect(early.path == location.photos + "/Photo from \(formatter.string(from: taken)).jpg", "\(early.path)")
        #expect(early.creationDate == taken.timeIntervalSince1970)
        let names = try FileManager.default.contentsOfDirectory(atPath: location.photos).sorted()
        #expect(names.count == 3 && names.allSatisfy { $0.hasPrefix("Photo from 2026-11-29 ") && $0.hasSuffix(".jpg") }, "\(names)")
        let listed = try await library.assets()
        #expect(listed.map(\.id) == [late.id, middle.id, early.id])
        #expect(late.orientation == .right && late.pixelWidth == 320 && late.pixelHeight == 240)
        #expect(try await library.assets(limit: 1, offset: 1).map(\.id) == [middle.id])
        // 12:00 at UTC+1 is 11:00 UTC: a range from 10:00 UTC to 17:00 UTC holds only the middle one.
        let day = 1_795_910_400.0  // 2026-11-29 00:00 UTC
        #expect(try await library.assets(since: day + 10 * 3600, until: day + 17 * 3600).map(\.id) == [middle.id])
        #expect(try sqlite(location.index, "PRAGMA journal_mode") == "wal")
        #expect(try sqlite(location.index, "PRAGMA integrity_check") == "ok")
        #expect(try sqlite(location.index, "SELECT COUNT(*) FROM assets") == "3")
        #expect(try sqlite(location.index, "SELECT path FROM assets WHERE id = '\(early.id)'") == early.path)
    }

    @Test("damaged, fake, empty, oversized and duplicate files are refused with one clear line, leaving nothing behind")
    func refusals() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"))
        let library = try await PhotoLibrary(location: location)
        let good = try jpeg(hour: 10, minute: 0)
        let cases: [(String, [UInt8], String)] = [
            ("half.jpg", Array(good.prefix(good.count / 2)), "truncated"),
            ("random.png", randomBytes(4000, seed: 3), "not a JPEG, PNG, HEIF or WebP"),
            ("empty.jpg", [], "empty"),
            ("bomb.png", pngHeaderOnly(width: 100_000, height: 100_000), "over the limit"),
        ]
        for (name, bytes, reason) in cases {
            let path = try folder.file(name, bytes).path
            do {
                _ = try await library.importFile(at: path)
                Issue.record("\(name) was imported")
            } catch {
                #expect(error.description.contains(reason), "\(name): \(error.description)")
                #expect(!error.description.contains("\n"))
            }
        }
        do {
            _ = try await library.importFile(at: folder.url.path)
            Issue.record("a directory was imported")
        } catch {
            #expect(error.description.contains("not a regular file"))
        }
        let first = try await library.importFile(at: folder.file("good.jpg", good).path)
        await #expect(throws: LibraryError.duplicate(path: folder.path("good.jpg"), existing: first.path)) {
            try await library.importFile(at: folder.path("good.jpg"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.photos) == [URL(fileURLWithPath: first.path).lastPathComponent])
        #expect(try await library.count == 1)
    }

    @Test("a deleted or damaged index is rebuilt from the files with the same identifiers; leftovers of a crash are removed")
    func rebuild() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.url.path)
        var ids: [String] = []
        do {
            let library = try await PhotoLibrary(location: location)
            for hour in 8..<12 { ids.append(try await library.addPhoto(data: jpeg(hour: hour, minute: 0, seed: UInt64(hour))).id) }
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.index + suffix) }
        // A crash between write and rename leaves a temporary file: it must not become an asset.
        try Data(jpeg(hour: 20, minute: 0)).write(to: URL(fileURLWithPath: location.photos + "/.Photo from x.jpg.pinhole-123-0.tmp"))
        let rebuilt = try await PhotoLibrary(location: location)
        #expect(try await rebuilt.assets().map(\.id).sorted() == ids.sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.photos).count == 4)

        try Data(randomBytes(8192, seed: 9)).write(to: URL(fileURLWithPath: location.index))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location.index + suffix) }
        let repaired = try await PhotoLibrary(location: location)
        #expect(try await repaired.assets().map(\.id).sorted() == ids.sorted())
        #expect(try sqlite(location.index, "PRAGMA integrity_check") == "ok")
    }

    @Test("files other programs add or remove are noticed")
    func foreignChanges() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.url.path)
        let library = try await PhotoLibrary(location: location)
        let kept = try await library.addPhoto(data: jpeg(hour: 7, minute: 0))
        let gone = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 5))
        try Data(jpeg(hour: 9, minute: 0, seed: 6)).write(to: URL(fileURLWithPath: location.photos + "/from another app.jpg"))
        try FileManager.default.removeItem(atPath: gone.path)
        let changes = try await library.synchronize()
        #expect(changes.added == 1 && changes.removed == 1)
        let paths = try await library.assets().map(\.path)
        #expect(paths.contains(location.photos + "/from another app.jpg") && paths.contains(kept.path) && !paths.contains(gone.path))
    }

    @Test("two libraries on the same folders adding at once get distinct files and rows")
    func concurrentWriters() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.url.path)
        let a = try await PhotoLibrary(location: location), b = try await PhotoLibrary(location: location)
        let photos = try (0..<20).map { try jpeg(hour: 10, minute: 0, seed: UInt64(100 + $0)) }  // same EXIF time: same file name
        async let first: [Asset] = { var added: [Asset] = []; for data in photos[..<10] { added.append(try await a.addPhoto(data: data)) }; return added }()
        async let second: [Asset] = { var added: [Asset] = []; for data in photos[10...] { added.append(try await b.addPhoto(data: data)) }; return added }()
        let all = try await first + second
        #expect(Set(all.map(\.path)).count == 20 && Set(all.map(\.id)).count == 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: location.photos).count == 20)
        #expect(try sqlite(location.index, "SELECT COUNT(*) FROM assets") == "20")
        #expect(try sqlite(location.index, "PRAGMA integrity_check") == "ok")
    }
}

@Suite("Photo library changes")
struct PhotoLibraryChangeTests {
    @Test("favourites; delete to the freedesktop Trash and restore with the same identifier and favourite")
    func trashAndRestore() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"))
        let library = try await PhotoLibrary(location: location)
        let photo = try await library.addPhoto(data: jpeg(hour: 11, minute: 11))
        let other = try await library.addPhoto(data: jpeg(hour: 12, minute: 12, seed: 4))
        try await library.setFavorite(true, ids: [photo.id])
        #expect(try await library.assets(favoritesOnly: true).map(\.id) == [photo.id])
        try await library.delete(ids: [photo.id])
        #expect(try await library.assets().map(\.id) == [other.id])
        let name = (photo.path as NSString).lastPathComponent
        #expect(FileManager.default.fileExists(atPath: folder.path("Trash/files") + "/" + name))
        let info = try String(contentsOfFile: folder.path("Trash/info") + "/" + name + ".trashinfo", encoding: .utf8)
        #expect(info.hasPrefix("[Trash Info]\nPath=") && info.contains(photo.path.replacingOccurrences(of: " ", with: "%20")) && info.contains("DeletionDate=20"))
        let restored = try await library.restore(ids: [photo.id])
        #expect(restored.map(\.id) == [photo.id] && restored[0].isFavorite && restored[0].path == photo.path)
        #expect(!FileManager.default.fileExists(atPath: folder.path("Trash/info") + "/" + name + ".trashinfo"))
        await #expect(throws: LibraryError.notFound("nope")) { try await library.delete(ids: [other.id, "nope"]) }
        #expect(try await library.count == 2, "a failed batch deletes nothing")
    }

    @Test("albums: create, add, list, rename, remove, delete; deleting an album keeps its photos")
    func albums() async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash")))
        let a = try await library.addPhoto(data: jpeg(hour: 9, minute: 0, seed: 11))
        let b = try await library.addPhoto(data: jpeg(hour: 10, minute: 0, seed: 12))
        try await library.createAlbum("Holidays")
        await #expect(throws: LibraryError.albumExists("Holidays")) { try await library.createAlbum(" Holidays ") }
        await #expect(throws: LibraryError.invalidAlbumName("")) { try await library.createAlbum("") }
        try await library.add(ids: [a.id, b.id], toAlbum: "Holidays")
        #expect(try await library.assets(inAlbum: "Holidays").map(\.id) == [b.id, a.id])
        // Renaming checks the new name as creating does.
        try await library.createAlbum("Walks")
        await #expect(throws: LibraryError.albumExists("Walks")) { try await library.renameAlbum("Holidays", to: "Walks") }
        await #expect(throws: LibraryError.invalidAlbumName("two\nlines")) { try await library.renameAlbum("Holidays", to: "two\nlines") }
        await #expect(throws: LibraryError.invalidAlbumName("  ")) { try await library.renameAlbum("Holidays", to: "  ") }
        await #expect(throws: LibraryError.albumNotFound("Nope")) { try await library.renameAlbum("Nope", to: "Autumn") }
        try await library.deleteAlbum("Walks")
        try await library.renameAlbum("Holidays", to: " Holidays ")  // the same name, trimmed: no clash with itself
        try await library.renameAlbum("Holidays", to: "Summer")
        try await library.remove(ids: [a.id], fromAlbum: "Summer")
        let albums = try await library.albums()
        #expect(albums.map(\.name) == ["Summer"] && albums.map(\.count) == [1])
        await #expect(throws: LibraryError.notFound("nope")) { try await library.add(ids: ["nope"], toAlbum: "Summer") }
        try await library.deleteAlbum("Summer")
        #expect(try await library.albums().isEmpty)
        #expect(try await library.count == 2)
    }

    @Test("an album's cover: its newest item until one is chosen; the chosen one (added to the album if it was not in it) through a rename; the newest again once the chosen one leaves")
    func albumCover() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"))
        let library = try await PhotoLibrary(location: location)
        let a = try await library.addPhoto(data: jpeg(hour: 9, minute: 0, seed: 21))
        let b = try await library.addPhoto(data: jpeg(hour: 10, minute: 0, seed: 22))
        let c = try await library.addPhoto(data: jpeg(hour: 11, minute: 0, seed: 23))
        try await library.createAlbum("Walks")
        #expect(try await library.cover(ofAlbum: "Walks") == nil)
        try await library.add(ids: [a.id, b.id], toAlbum: "Walks")
        #expect(try await library.cover(ofAlbum: "Walks")?.id == b.id, "the newest")
        try await library.setCover(a.id, ofAlbum: "Walks")
        #expect(try await library.cover(ofAlbum: "Walks")?.id == a.id)
        try await library.renameAlbum("Walks", to: "Hikes")
        #expect(try await library.cover(ofAlbum: "Hikes")?.id == a.id)
        #expect(try sqlite(location.index, "SELECT cover FROM albums WHERE name = 'Hikes'") == a.id)
        // Chosen from outside the album: it joins it.
        try await library.setCover(c.id, ofAlbum: "Hikes")
        #expect(try await library.assets(inAlbum: "Hikes").map(\.id) == [c.id, b.id, a.id])
        await #expect(throws: LibraryError.notFound("nope")) { try await library.setCover("nope", ofAlbum: "Hikes") }
        await #expect(throws: LibraryError.albumNotFound("Nope")) { try await library.setCover(a.id, ofAlbum: "Nope") }
        #expect(try await library.cover(ofAlbum: "Hikes")?.id == c.id)
        // Taken out of the album, or moved to the Trash, the cover falls back to the newest left.
        try await library.remove(ids: [c.id], fromAlbum: "Hikes")
        #expect(try await library.cover(ofAlbum: "Hikes")?.id == b.id)
        try await library.setCover(a.id, ofAlbum: "Hikes")
        try await library.delete(ids: [a.id])
        #expect(try await library.cover(ofAlbum: "Hikes")?.id == b.id)
    }

    @Test("export copies files unchanged, or without location, as exiftool sees")
    func export() async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash")))
        let image = try SyntheticImage.photoLike(width: 160, height: 120)
        let metadata = ExifMetadata(make: "Pinhole", location: ExifLocation(latitude: 48.8583, longitude: 2.2945, altitude: 35))
        let photo = try await library.addPhoto(data: JPEGExif.inserting(metadata, into: JPEGEncoder().encode(image)))
        #expect(photo.location?.latitude ?? 0 > 48.85)
        let plain = try await library.export(ids: [photo.id], to: folder.path("plain"))
        let private_ = try await library.export(ids: [photo.id], to: folder.path("private"), stripLocation: true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain[0])) == Data(contentsOf: URL(fileURLWithPath: photo.path)))
        let exiftool = try ExifTool.locate()
        #expect(try exiftool.tags(URL(fileURLWithPath: plain[0]))["Composite:GPSLatitude"] != nil)
        let stripped = try exiftool.tags(URL(fileURLWithPath: private_[0]))
        #expect(stripped.keys.filter { $0.contains("GPS") }.isEmpty, "\(stripped.keys.filter { $0.contains("GPS") })")
        #expect(jsonText(stripped["EXIF:Make"]) == "Pinhole")
    }

    @Test("an item's details: the format by its bytes (not its name) and the camera from EXIF, the maker not said twice")
    func details() async throws {
        let folder = try TemporaryDirectory()
        let image = try SyntheticImage.photoLike(width: 160, height: 120)
        let jpeg = try JPEGExif.inserting(ExifMetadata(make: "Pinhole", model: "Test Model"), into: JPEGEncoder().encode(image))
        let path = folder.path("photo.png")  // a JPEG under a PNG's name
        try Data(jpeg).write(to: URL(fileURLWithPath: path))
        #expect(try AssetDetails.read(path: path, mediaType: .photo) == AssetDetails(format: "JPEG", camera: "Pinhole Test Model"))
        let png = folder.path("plain.png")
        try Data(try PNGCodec.encode(image)).write(to: URL(fileURLWithPath: png))
        #expect(try AssetDetails.read(path: png, mediaType: .photo) == AssetDetails(format: "PNG", camera: nil))
        #expect(try AssetDetails.read(path: folder.path("Video.mp4"), mediaType: .video) == AssetDetails(format: "MP4", camera: nil))
        #expect(AssetDetails.cameraName(make: "Canon", model: "Canon EOS R6") == "Canon EOS R6")
        #expect(AssetDetails.cameraName(make: "Pinhole ", model: nil) == "Pinhole")
        #expect(throws: LibraryError.self) { try AssetDetails.read(path: folder.path("missing.jpg"), mediaType: .photo) }
    }

    @Test("Save As: export to a chosen name replaces the file there with the whole copy, leaves nothing else in the folder, and can drop the location")
    func exportToFile() async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash")))
        let image = try SyntheticImage.photoLike(width: 160, height: 120)
        let metadata = ExifMetadata(make: "Pinhole", location: ExifLocation(latitude: 48.8583, longitude: 2.2945, altitude: 35))
        let photo = try await library.addPhoto(data: JPEGExif.inserting(metadata, into: JPEGEncoder().encode(image)))
        let out = folder.path("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let target = out + "/holiday.jpg"
        try Data("an older file".utf8).write(to: URL(fileURLWithPath: target))
        #expect(try await library.export(id: photo.id, toFile: target, stripLocation: true) == target)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["holiday.jpg"])
        let tags = try ExifTool.locate().tags(URL(fileURLWithPath: target))
        #expect(tags.keys.filter { $0.contains("GPS") }.isEmpty && jsonText(tags["EXIF:Make"]) == "Pinhole", "\(tags.keys.sorted())")
        try await library.export(id: photo.id, toFile: target)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data(contentsOf: URL(fileURLWithPath: photo.path)))
        // Into a folder that is not there: a typed error naming the path, and nothing made.
        await #expect { try await library.export(id: photo.id, toFile: folder.path("missing/x.jpg")) } throws: { error in
            guard case let LibraryError.cannotWrite(path, _) = error else { return false }
            return path == folder.path("missing/x.jpg")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("missing")))
    }

    @Test("PNG (eXIf), HEIF and WebP exports lose their GPS tags and keep everything else: same pixels, same other tags",
          arguments: ["png", "heic", "webp"])
    func stripOtherKinds(kind: String) async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let image = try SyntheticImage.photoLike(width: 160, height: 120)
        let metadata = ExifMetadata(make: "Pinhole", model: "Strip", location: ExifLocation(latitude: 48.8583, longitude: 2.2945, altitude: 35))
        let exif = try metadata.encoded()
        let data: [UInt8]
        switch kind {
        case "png": data = try PNGCodec.encode(image, exif: exif)
        case "heic": data = try HEIFCodec.encode(image, quality: 70, exif: exif)
        default:
            // webpmux (libwebp's own tool) adds the EXIF chunk: the TIFF block, as the WebP spec has it.
            let plain = try folder.file("plain.webp", WebPCodec.encode(image, quality: 80))
            let block = try folder.file("exif.bin", Array(exif.dropFirst(ExifPayload.header.count)))
            #expect(try runTool("webpmux", ["-set", "exif", block.path, plain.path, "-o", folder.path("tagged.webp")]).status == 0)
            data = try FileBytes.read(path: folder.path("tagged.webp"))
        }
        let photo = try await library.addPhoto(data: data)
        #expect(photo.location.map { abs($0.latitude - 48.8583) < 0.001 } == true, "the library reads the \(kind)'s location")
        let exported = try await library.export(ids: [photo.id], to: folder.path("private"), stripLocation: true)[0]
        let exiftool = try ExifTool.locate()
        let before = try exiftool.tags(URL(fileURLWithPath: photo.path)), after = try exiftool.tags(URL(fileURLWithPath: exported))
        #expect(before.keys.contains { $0.contains("GPSLatitude") })
        #expect(after.keys.filter { $0.contains("GPS") }.isEmpty, "\(after.keys.filter { $0.contains("GPS") })")
        #expect(jsonText(after["EXIF:Make"]) == "Pinhole" && jsonText(after["EXIF:Model"]) == "Strip")
        #expect(after.keys.filter { $0.hasPrefix("ExifTool:Warning") || $0.hasPrefix("ExifTool:Error") }.isEmpty, "\(after)")
        let original = try FileBytes.read(path: photo.path), copy = try FileBytes.read(path: exported)
        #expect(original.count == copy.count, "same length: nothing but the GPS bytes changed")
        if kind == "png" {
            #expect(try runTool("pngcheck", [exported]).status == 0, "chunk CRCs are right")
            #expect(try PNGCodec.decode(copy, to: .bgra).packedBytes() == PNGCodec.decode(original, to: .bgra).packedBytes())
        } else if kind == "webp" {
            #expect(try runTool("webpinfo", [exported]).status == 0)
            #expect(try WebPCodec.decode(copy).packedBytes() == WebPCodec.decode(original).packedBytes())
        } else {
            #expect(try runTool("heif-info", [exported]).status == 0)
            #expect(try HEIFCodec.decode(copy, to: .bgra).packedBytes() == HEIFCodec.decode(original, to: .bgra).packedBytes())
        }
    }
}

@Suite("Thumbnail cache")
struct ThumbnailCacheTests {
    @Test("thumbnails follow the freedesktop spec: MD5 of the URI, Thumb::URI and Thumb::MTime, remade when the file changes")
    func freedesktop() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("my lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbnails"))
        let library = try await PhotoLibrary(location: location)
        let photo = try await library.addPhoto(data: jpeg(hour: 10, minute: 30))
        let path = try await library.thumbnail(for: photo.id, size: .normal)
        // Python's hashlib, not our MD5, names the file.
        let uri = URL(fileURLWithPath: photo.path).absoluteString
        #expect(uri.hasPrefix("file:///") && uri.contains("my%20lib"))
        let md5 = try runTool("/usr/bin/python3", ["-c", "import hashlib,sys; print(hashlib.md5(sys.argv[1].encode()).hexdigest())", uri])
        #expect(path == folder.path("thumbnails/normal") + "/" + md5.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ".png")
        let check = try runTool("pngcheck", ["-t", path])
        #expect(check.status == 0, "\(check.stdout)")
        var info = stat()
        stat(photo.path, &info)
        #expect(check.stdout.contains("Thumb::URI:\n    \(uri)") && check.stdout.contains("Thumb::MTime:\n    \(info.st_mtim.tv_sec)"), "\(check.stdout)")
        #expect(check.stdout.contains("(128x96,"))
        // Unchanged file: the same thumbnail is reused; a newer file makes a new one.
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        #expect(try await library.thumbnail(for: photo.id, size: .normal) == path)
        let after = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        #expect(after == before)
        var times = [timespec(tv_sec: Int(info.st_mtim.tv_sec) + 100, tv_nsec: 0), timespec(tv_sec: Int(info.st_mtim.tv_sec) + 100, tv_nsec: 0)]
        utimensat(AT_FDCWD, photo.path, &times, 0)
        _ = try await library.thumbnail(for: photo.id, size: .normal)
        let remade = try runTool("pngcheck", ["-t", path])
        #expect(remade.stdout.contains("Thumb::MTime:\n    \(info.st_mtim.tv_sec + 100)"))
        let large = try await library.thumbnail(for: photo.id, size: .xLarge)
        let largeCheck = try runTool("pngcheck", [large])
        #expect(large.contains("/x-large/") && largeCheck.stdout.contains("(320x240,"), "small images are not enlarged")
    }
}

@Suite("Observing the library")
struct LibraryObservingTests {
    @Test("changes made by another library instance (another process) and by other programs reach observers")
    func changesFromOutside() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        let gallery = try await PhotoLibrary(location: location), terminal = try await PhotoLibrary(location: location)
        let stream = await gallery.changes()
        let added = try await terminal.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 31))
        let start = ContinuousClock.now
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [added.id], removed: [], changed: []))
        print("another connection's add reached the stream \(ContinuousClock.now - start) after its commit")
        try await terminal.setFavorite(true, ids: [added.id])
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [], removed: [], changed: [added.id]))
        try await terminal.delete(ids: [added.id])
        #expect(await collect(stream, count: 1, seconds: patience).first == LibraryChange(inserted: [], removed: [added.id], changed: []))
        // A file copied in by a file manager.
        try Data(jpeg(hour: 9, minute: 0, seed: 32)).write(to: URL(fileURLWithPath: location.photos + "/dropped.jpg"))
        let dropped = await collect(stream, count: 1, seconds: patience).first
        #expect(dropped?.inserted.count == 1)
        #expect(try await gallery.assets().map(\.path) == [location.photos + "/dropped.jpg"])
    }
}

@Suite("Picking and access")
struct PickerTests {
    @Test("the picker offers filtered assets, keeps a limited selection and loads the picked files")
    func picker() async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let a = try await library.addPhoto(data: jpeg(hour: 7, minute: 0, seed: 41))
        let b = try await library.addPhoto(data: jpeg(hour: 8, minute: 0, seed: 42))
        let c = try await library.addPhoto(data: jpeg(hour: 9, minute: 0, seed: 43))
        try await library.createAlbum("Best")
        try await library.add(ids: [a.id, c.id], toAlbum: "Best")
        var single = PhotoPicker()
        #expect(try await single.candidates(in: library).map(\.id) == [c.id, b.id, a.id])
        single.toggle(a.id)
        single.toggle(b.id)
        #expect(single.selection == [b.id])
        var several = PhotoPicker(album: "Best", selectionLimit: 2)
        #expect(try await several.candidates(in: library).map(\.id) == [c.id, a.id])
        #expect(several.toggle(c.id) && several.toggle(a.id) && !several.toggle(b.id))
        let loaded = try await several.loadSelection(from: library)
        #expect(loaded.map(\.asset.id) == [c.id, a.id])
        #expect(try JPEGDecoder().info(loaded[0].data).width == 320)
    }

    @Test("authorization: a writable folder is authorized; an unwritable one is denied with the fix")
    func authorization() throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib/deep"))
        #expect(PhotoLibrary.authorizationStatus(for: .addOnly, location: location) == .authorized)
        // As root every folder is writable: check the logic with a library under a file.
        let file = try folder.file("plain-file", [1, 2, 3]).path
        let blocked = LibraryLocation(photos: file + "/Camera", videos: file + "/Videos", index: file + "/index")
        if case let .denied(reason) = PhotoLibrary.authorizationStatus(for: .readWrite, location: blocked) {
            #expect(reason.contains("plain-file"))
        } else {
            Issue.record("a library under a plain file was authorized")
        }
    }
}

@Suite("Batches")
struct BatchTests {
    @Test("performChanges applies creations, favourites, albums and deletions together")
    func batch() async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let old = try await library.addPhoto(data: jpeg(hour: 6, minute: 0, seed: 51))
        try await library.createAlbum("Today")
        let moved = try folder.file("moved.jpg", jpeg(hour: 7, minute: 0, seed: 52)).path
        let data = try jpeg(hour: 8, minute: 0, seed: 53)
        let ids = try await library.performChanges { batch in
            batch.createAsset(fromImageData: data)
            batch.createAsset(fromFile: moved, moving: true)
            batch.deleteAssets([old.id])
        }
        #expect(ids.count == 2)
        #expect(!FileManager.default.fileExists(atPath: moved), "a moved file is gone from where it was")
        try await library.performChanges { batch in
            batch.setFavorite(true, for: ids)
            batch.addAssets(ids, toAlbum: "Today")
        }
        #expect(try await library.assets(favoritesOnly: true).map(\.id).sorted() == ids.sorted())
        #expect(try await library.assets(inAlbum: "Today").count == 2)
        #expect(try await library.assets().map(\.id).sorted() == ids.sorted())
    }

    @Test("a batch with one bad request changes nothing: no new files, no trashed files, no marks")
    func allOrNothing() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let library = try await PhotoLibrary(location: location)
        let keep = try await library.addPhoto(data: jpeg(hour: 6, minute: 0, seed: 61))
        let before = try FileManager.default.contentsOfDirectory(atPath: location.photos).sorted()
        for bad in ["bytes", "album", "id"] {
            await #expect(throws: LibraryError.self) {
                try await library.performChanges { batch in
                    batch.createAsset(fromImageData: try! jpeg(hour: 9, minute: 0, seed: 62))
                    batch.deleteAssets([keep.id])
                    batch.setFavorite(true, for: [keep.id])
                    switch bad {
                    case "bytes": batch.createAsset(fromImageData: [1, 2, 3])
                    case "album": batch.addAssets([keep.id], toAlbum: "No such album")
                    default: batch.setFavorite(true, for: ["missing"])
                    }
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: location.photos).sorted() == before, "\(bad)")
            let assets = try await library.assets()
            #expect(assets.map(\.id) == [keep.id] && !assets[0].isFavorite, "\(bad)")
        }
    }
}
