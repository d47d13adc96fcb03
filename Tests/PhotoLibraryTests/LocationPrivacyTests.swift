import Foundation
import Media
import PhotoLibrary
import Testing
import TestSupport

/// One file of the privacy matrix: a format and the kind of metadata that holds its location,
/// written by a tool other than Pinhole.
struct LocationCase: Sendable, CustomTestStringConvertible {
    /// The file's extension: jpg, png, webp, heic, mp4, mov, webm, mkv.
    let format: String
    /// Where the location is: exif, xmp, iptc (photos); keys, userdata, xmp (MP4/MOV); tags (Matroska).
    let kind: String

    /// "jpg/xmp".
    var testDescription: String { "\(format)/\(kind)" }

    /// True for movies.
    var isMovie: Bool { ["mp4", "mov", "webm", "mkv"].contains(format) }

    /// Every format with every kind of metadata it can hold a location in (exiftool writes IPTC
    /// only into JPEG and PNG; Matroska's tags are written by FFmpeg, which exiftool cannot).
    static let all: [LocationCase] = [
        ("jpg", ["exif", "xmp", "iptc"]), ("png", ["exif", "xmp", "iptc"]), ("webp", ["exif", "xmp"]), ("heic", ["exif", "xmp"]),
        ("mp4", ["keys", "userdata", "xmp"]), ("mov", ["keys", "userdata", "xmp"]), ("webm", ["tags"]), ("mkv", ["tags"]),
    ].flatMap { format, kinds in kinds.map { LocationCase(format: format, kind: $0) } }

    /// The exiftool assignments that write this case's location (and only it).
    var assignments: [String] {
        switch kind {
        case "exif": ["-EXIF:GPSLatitude=48.8577", "-EXIF:GPSLatitudeRef=N", "-EXIF:GPSLongitude=2.2950", "-EXIF:GPSLongitudeRef=E", "-EXIF:GPSAltitude=35"]
        case "xmp": ["-XMP:GPSLatitude=48.8577 N", "-XMP:GPSLongitude=2.2950 E", "-XMP-photoshop:City=Paris", "-XMP-photoshop:State=IDF",
                     "-XMP-photoshop:Country=France", "-XMP-iptcCore:Location=Champ de Mars", "-XMP-iptcCore:CountryCode=FR",
                     "-XMP-iptcExt:LocationShownCity=Paris", "-XMP-iptcExt:LocationCreatedCountryName=France"]
        case "iptc": ["-IPTC:City=Paris", "-IPTC:Sub-location=Champ de Mars", "-IPTC:Province-State=IDF", "-IPTC:Country-PrimaryLocationCode=FRA",
                      "-IPTC:Country-PrimaryLocationName=France", "-IPTC:ContentLocationCode=FRA", "-IPTC:ContentLocationName=Paris"]
        case "keys": ["-Keys:GPSCoordinates=48.8577, 2.2950, 35", "-Keys:LocationName=Champ de Mars"]
        case "userdata": ["-UserData:GPSCoordinates=48.8577, 2.2950", "-UserData:LocationInformation=Champ de Mars"]
        default: []
        }
    }
}

/// What "Remove location" promises, format by format and metadata kind by kind: the library sees
/// the location, and the exported copy has none left that exiftool can find, with its picture
/// and its other metadata unchanged.
@Suite("Location privacy")
struct LocationPrivacyTests {
    /// exiftool's arguments that print every location tag (and nothing else) of a file.
    static let locationTags = ["-a", "-G1", "-*gps*", "-*location*", "-*city*", "-*country*", "-*state*", "-*xyz*"]

    /// Makes the case's file in `folder`, with the location and other metadata, and returns its path.
    func makeFile(_ item: LocationCase, in folder: TemporaryDirectory) throws -> String {
        let path = folder.path("tagged.\(item.format)")
        let exiftool = try ExifTool.locate()
        switch item.format {
        case "jpg", "png":
            #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", path]).status == 0)
        case "webp":
            #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", folder.path("source.png")]).status == 0)
            #expect(try runTool("cwebp", ["-quiet", folder.path("source.png"), "-o", path]).status == 0)
        case "heic":
            #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", folder.path("source.png")]).status == 0)
            #expect(try runTool("heif-enc", ["-q", "60", "-o", path, folder.path("source.png")]).status == 0)
        case "webm", "mkv":
            try makeTestMovie(path, seconds: 0.4, size: "96x64", rate: 10, codec: "vp9", audio: false,
                              extra: ["-metadata", "title=Walk", "-metadata", "location=+48.8577+002.2950+035.000/",
                                      "-metadata:s:v:0", "location=+48.8577+002.2950/", "-metadata", "creation_time=2025-06-01T10:00:00Z"])
            return path
        default:
            try makeTestMovie(path, seconds: 0.4, size: "96x64", rate: 10, audio: false, extra: ["-metadata", "creation_time=2025-06-01T10:00:00Z"])
        }
        let others = item.isMovie ? ["-Keys:Model=Pinhole Cam", "-XMP-dc:Title=Walk"]
            : ["-EXIF:Model=Pinhole Cam", "-EXIF:DateTimeOriginal=2025:06:01 10:00:00", "-EXIF:Orientation#=6", "-XMP-dc:Title=Walk"]
        try exiftool.write(URL(fileURLWithPath: path), others + item.assignments)
        return path
    }

    /// The decoded picture (images) or the streams' packets (movies), hashed by FFmpeg or libheif's tools.
    func pictureDigest(_ path: String, _ item: LocationCase, in folder: TemporaryDirectory) throws -> String {
        var source = path
        if item.format == "heic" {
            source = folder.path("decoded-\(UUID().uuidString).png")
            #expect(try runTool("heif-convert", [path, source]).status == 0)
        }
        let arguments = item.isMovie ? ["-v", "error", "-i", source, "-map", "0", "-c", "copy", "-f", "md5", "-"]
            : ["-v", "error", "-i", source, "-f", "md5", "-"]
        let result = try runTool("ffmpeg", arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a location in any format and metadata kind is found, and removed from the export with picture and other tags kept",
          arguments: LocationCase.all)
    func removesEveryLocation(item: LocationCase) async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let source = try makeFile(item, in: folder)
        let exiftool = try ExifTool.locate()
        let shown = String(decoding: try exiftool.run(LocationPrivacyTests.locationTags + [source]), as: UTF8.self)
        #expect(!shown.isEmpty, "exiftool sees the location written into the source")
        let asset = try await library.importFile(at: source)
        #expect(asset.hasLocation, "the library knows \(item) has a location, so Save As offers to remove it")

        let exported = try await library.export(ids: [asset.id], to: folder.path("private"), stripLocation: true)[0]
        let left = String(decoding: try exiftool.run(LocationPrivacyTests.locationTags + [exported]), as: UTF8.self)
        #expect(left.isEmpty, "no location left in the \(item) export:\n\(left)")

        let before = try exiftool.tags(URL(fileURLWithPath: asset.path), options: ["-n", "-a", "-G1"])
        let after = try exiftool.tags(URL(fileURLWithPath: exported), options: ["-n", "-a", "-G1"])
        #expect(after.keys.filter { $0.hasPrefix("ExifTool:Warning") || $0.hasPrefix("ExifTool:Error") }.isEmpty, "\(after)")
        let kept = item.isMovie ? (item.format == "webm" || item.format == "mkv" ? [] : ["Keys:Model", "XMP-dc:Title", "QuickTime:CreateDate"])
            : ["IFD0:Model", "ExifIFD:DateTimeOriginal", "IFD0:Orientation", "XMP-dc:Title"]
        for tag in kept {
            #expect(before[tag] != nil && jsonText(after[tag]) == jsonText(before[tag]), "\(tag) kept in \(item): \(String(describing: after[tag]))")
        }
        if item.format == "webm" || item.format == "mkv" {
            let tags = try runTool("ffprobe", ["-v", "error", "-show_entries", "format_tags", "-of", "default=nw=1", exported]).stdout
            #expect(tags.contains("TAG:title=Walk") || tags.contains("TAG:TITLE=Walk"), "the title is kept: \(tags)")
        }
        #expect(try pictureDigest(exported, item, in: folder) == pictureDigest(asset.path, item, in: folder), "the picture is not re-encoded")

        let again = try await library.importFile(at: exported)
        #expect(!again.hasLocation, "the exported \(item) is seen as having no location")
    }

    @Test("a HEIF with two images and their thumbnails: every image's Exif item is cleaned, not only the primary's")
    func everyHEIFItem() async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let exiftool = try ExifTool.locate()
        var inputs: [String] = []
        for index in 1...2 {
            let jpeg = folder.path("in\(index).jpg")
            #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", jpeg]).status == 0)
            try exiftool.write(URL(fileURLWithPath: jpeg), ["-EXIF:GPSLatitude=4\(index).5", "-EXIF:GPSLatitudeRef=N", "-EXIF:GPSLongitude=2", "-EXIF:GPSLongitudeRef=E", "-EXIF:Model=Cam\(index)"])
            inputs.append(jpeg)
        }
        // heif-enc copies each JPEG's EXIF into an Exif item of its image.
        let source = folder.path("two.heic")
        #expect(try runTool("heif-enc", ["-q", "50", "-t", "32", "-o", source] + inputs).status == 0)
        let shown = try exiftool.tags(URL(fileURLWithPath: source), options: ["-a", "-G3:1"])
        #expect(jsonText(shown["Doc1:GPS:GPSLatitudeRef"]) == "North", "exiftool sees the second image's GPS: \(shown.keys.sorted())")
        let asset = try await library.importFile(at: source)
        #expect(asset.hasLocation)
        let exported = try await library.export(ids: [asset.id], to: folder.path("private"), stripLocation: true)[0]
        let left = String(decoding: try exiftool.run(LocationPrivacyTests.locationTags + ["-G3:1", exported]), as: UTF8.self)
        #expect(left.isEmpty, "no location left in either image:\n\(left)")
        let kept = try exiftool.tags(URL(fileURLWithPath: exported), options: ["-a", "-G3:1"])
        #expect(jsonText(kept["IFD0:Model"]) == "Cam1" && jsonText(kept["Doc1:IFD0:Model"]) == "Cam2", "\(kept)")
        for (name, path) in [("before", asset.path), ("after", exported)] {
            #expect(try runTool("heif-convert", [path, folder.path("\(name).png")]).status == 0)
        }
        for index in 1...2 {
            let digest = { (name: String) throws -> String in
                try runTool("ffmpeg", ["-v", "error", "-i", folder.path("\(name)-\(index).png"), "-f", "md5", "-"]).stdout
            }
            #expect(try digest("after") == digest("before"), "image \(index)'s pixels are unchanged")
        }
    }

    @Test("every kind of file the library takes is in the matrix, and nothing outside Media/Privacy decides or removes a location its own way")
    func onePath() throws {
        let formats = Set(LocationCase.all.map(\.format))
        let photos: [ImageKind: String] = [.jpeg: "jpg", .png: "png", .heif: "heic", .webp: "webp"]
        for kind in ImageKind.allCases { #expect(photos[kind].map(formats.contains) == true, "\(kind) photos are in the location matrix") }
        for kind in MovieKind.allCases { #expect(formats.contains(kind.fileExtension), "\(kind) movies are in the location matrix") }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let sources = root.appendingPathComponent("Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100)
        // The format walkers and the EXIF and movie pieces they use, called only through LocationRemoval.
        let walkers = ["ExifPayload.removingLocation", "ExifPayload.containsLocation", "JPEGExif.removingLocation", "XMPLocation.", "IPTCLocation.",
                       "JPEGLocation.", "PNGLocation.", "HEIFLocation.", "MovieLocation.", "MovieRemuxer.copyWithoutLocation", "LocationMetadata."]
        // The app and the CLI decide from Asset.hasLocation, never from whether coordinates were read
        // (they may show the coordinates when there are some).
        let decisions = try NSRegularExpression(pattern: #"location\s*[!=]=\s*nil|guard let location = asset\.location"#)
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            if !file.hasPrefix("Media/Privacy/") && !file.hasPrefix("Media/EXIF/") {
                for walker in walkers { #expect(!text.contains(walker), "Sources/\(file) uses \(walker) instead of LocationRemoval") }
            }
            if ["pinhole-camera/", "pinhole/", "CameraModel/"].contains(where: file.hasPrefix) {
                let found = decisions.numberOfMatches(in: text, range: NSRange(text.startIndex..., in: text))
                #expect(found == 0, "Sources/\(file) decides about a location from its coordinates instead of Asset.hasLocation")
            }
        }
    }

    @Test("an index from before has_location (version 4) learns it from the files when opened")
    func upgrade() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t"))
        let located = try makeFile(LocationCase(format: "jpg", kind: "xmp"), in: folder)
        let plain = folder.path("plain.png")
        #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x48", "-frames:v", "1", plain]).status == 0)
        let ids: [String]
        do {
            let library = try await PhotoLibrary(location: location)
            ids = [try await library.importFile(at: located).id, try await library.importFile(at: plain).id]
        }
        // What version 4 looked like: the same table without the column.
        _ = try sqlite(location.index, """
            CREATE TABLE old AS SELECT id, media_type, path, width, height, created, orientation, favorite, latitude, longitude, altitude, size, mtime, duration FROM assets;
            DROP TABLE assets; ALTER TABLE old RENAME TO assets; PRAGMA user_version = 4;
            """)
        let library = try await PhotoLibrary(location: location)
        #expect(try sqlite(location.index, "PRAGMA user_version") == "5")
        #expect(try sqlite(location.index, "SELECT id, has_location FROM assets ORDER BY has_location DESC") == "\(ids[0])|1\n\(ids[1])|0")
        #expect(try await library.asset(id: ids[0])?.hasLocation == true)
        #expect(try await library.asset(id: ids[1])?.hasLocation == false)
    }

    @Test("a file without location is not offered removal, and its export with removal is the same bytes", arguments: ["jpg", "png", "webp", "heic", "mp4"])
    func nothingToRemove(format: String) async throws {
        let folder = try TemporaryDirectory()
        let library = try await PhotoLibrary(location: LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("t")))
        let source = try makeFile(LocationCase(format: format, kind: "none"), in: folder)
        let asset = try await library.importFile(at: source)
        #expect(!asset.hasLocation)
        let exported = try await library.export(ids: [asset.id], to: folder.path("private"), stripLocation: true)[0]
        #expect(try FileBytes.read(path: exported) == FileBytes.read(path: asset.path))
    }
}
