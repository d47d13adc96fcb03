import Foundation
import Media
import Testing
import TestSupport

// MARK: - Fixtures

/// Metadata using every field: south-west hemisphere and below sea level, so every sign goes
/// through a reference tag; taken half an hour after midnight at UTC+2, so the GPS (UTC) date is
/// the day before the local one.
func sampleMetadata(orientation: ExifOrientation = .right) throws -> ExifMetadata {
    ExifMetadata(
        make: "Pinhole Test Cameras", model: "Virtual Camera 3000", software: "Pinhole 0.1",
        dateTimeOriginal: try ExifDateTime(year: 2026, month: 11, day: 29, hour: 0, minute: 30, second: 22,
                                           millisecond: 45, utcOffsetSeconds: 2 * 3600),
        pixelWidth: 320, pixelHeight: 240, orientation: orientation,
        location: ExifLocation(latitude: -33.856784, longitude: -151.215297, altitude: -12.5,
                               timestamp: Date(timeIntervalSince1970: 1_795_905_021.5)))  // 2026-11-28 22:30:21.5 UTC
}

/// A 320×240 photo-like JPEG straight from the encoder (JFIF APP0, no EXIF).
func plainJPEG(seed: UInt64 = 7) throws -> [UInt8] {
    try JPEGEncoder().encode(photoLikeImage(width: 320, height: 240, seed: seed), quality: 85)
}

/// The header segments of a JPEG as (marker, start, end), walked independently of `Media`.
func markerSegments(_ jpeg: [UInt8]) -> [(marker: UInt8, start: Int, end: Int)] {
    var segments: [(UInt8, Int, Int)] = []
    var i = 2
    while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
        let marker = jpeg[i + 1]
        let end = i + 2 + Int(jpeg[i + 2]) << 8 + Int(jpeg[i + 3])
        segments.append((marker, i, end))
        if marker == 0xDA { break }
        i = end
    }
    return segments
}

/// The start of every EXIF APP1 segment of a JPEG.
func exifSegmentStarts(_ jpeg: [UInt8]) -> [Int] {
    markerSegments(jpeg).filter { $0.marker == 0xE1 && jpeg[($0.start + 4)...].starts(with: Array("Exif\0\0".utf8)) }.map(\.start)
}

/// Whether `haystack` contains `needle` anywhere.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// The error `body` throws, or nil (recording an issue) when it returns.
func mediaError<T>(_ body: () throws(MediaError) -> T, sourceLocation: SourceLocation = #_sourceLocation) -> MediaError? {
    do {
        _ = try body()
        Issue.record("expected a MediaError, got a result", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

// MARK: - Orientation

/// `ExifOrientation`: the angle and mirroring mapping and its errors.
@Suite("EXIF orientation")
struct EXIFOrientationTests {
    @Test("clockwise rotation angles and mirroring map to the EXIF values 1–8, and back")
    func angles() throws {
        let table: [(Int, Bool, Int)] = [(0, false, 1), (90, false, 6), (180, false, 3), (270, false, 8),
                                         (0, true, 2), (90, true, 7), (180, true, 4), (270, true, 5)]
        for (angle, mirrored, value) in table {
            let orientation = try ExifOrientation(clockwiseRotation: angle, mirrored: mirrored)
            #expect(orientation.rawValue == value, "\(angle)° mirrored: \(mirrored)")
            #expect(orientation.clockwiseRotation == angle && orientation.isMirrored == mirrored, "inverse of \(value)")
            #expect(try ExifOrientation(clockwiseRotation: Double(angle), mirrored: mirrored) == orientation)
        }
        #expect(Set(table.map(\.2)) == Set(ExifOrientation.allCases.map(\.rawValue)))
        #expect(ExifOrientation.allCases.filter(\.swapsWidthAndHeight).map(\.rawValue) == [5, 6, 7, 8])
    }

    @Test("negative angles and whole turns are normalised")
    func normalisation() throws {
        #expect(try ExifOrientation(clockwiseRotation: -90) == .left)
        #expect(try ExifOrientation(clockwiseRotation: -270) == .right)
        #expect(try ExifOrientation(clockwiseRotation: 360) == .up)
        #expect(try ExifOrientation(clockwiseRotation: 450) == .right)
        #expect(try ExifOrientation(clockwiseRotation: -900, mirrored: true) == .downMirrored)
        #expect(try ExifOrientation(clockwiseRotation: 630.0) == .left)
    }

    @Test("angles that are not multiples of 90° are refused with a typed error")
    func badAngles() {
        for angle in [45, 1, -30, 100, 359] {
            let error = mediaError { () throws(MediaError) in try ExifOrientation(clockwiseRotation: angle) }
            guard case .invalidMetadata(let reason)? = error else { Issue.record("\(angle)°: \(String(describing: error))"); continue }
            #expect(reason.contains("\(angle)°"))
        }
        for angle in [90.5, -0.1, .nan, .infinity, 1e300] {
            #expect(throws: MediaError.self) { try ExifOrientation(clockwiseRotation: angle) }
        }
    }
}

// MARK: - Date and time

/// `ExifDateTime`: conversion from `Date` and validation.
@Suite("EXIF date and time")
struct EXIFDateTimeTests {
    @Test("a Date in a time zone becomes its wall-clock reading, milliseconds and UTC offset")
    func fromDate() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let instant = Date(timeIntervalSince1970: 1_782_907_200.25)  // 2026-07-01 12:00:00.250 UTC
        let summer = try ExifDateTime(date: instant, timeZone: berlin)
        #expect(summer.exifDateTime == "2026:07:01 14:00:00")
        #expect(summer.exifSubSecTime == "250")
        #expect(summer.exifOffsetTime == "+02:00")
        #expect(summer.date == instant)
        let newfoundland = try #require(TimeZone(identifier: "America/St_Johns"))
        let winter = try ExifDateTime(date: Date(timeIntervalSince1970: 1_767_225_599.9996), timeZone: newfoundland)
        #expect(winter.description == "2025:12:31 20:30:00.000-03:30")  // rounds to the next millisecond, carrying into the second
        #expect(winter.utcOffsetSeconds == -12_600)
    }

    @Test("impossible dates, times and offsets are refused")
    func validation() throws {
        #expect(try ExifDateTime(year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0).day == 29)
        /// Expects `body` to throw `.invalidMetadata`.
        func expectInvalid(_ body: () throws(MediaError) -> ExifDateTime, sourceLocation: SourceLocation = #_sourceLocation) {
            guard case .invalidMetadata? = mediaError(body, sourceLocation: sourceLocation) else {
                Issue.record("expected .invalidMetadata", sourceLocation: sourceLocation)
                return
            }
        }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 2025, month: 2, day: 29, hour: 0, minute: 0, second: 0) }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 2025, month: 13, day: 1, hour: 0, minute: 0, second: 0) }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0) }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 2025, month: 1, day: 1, hour: 24, minute: 0, second: 0) }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 1000) }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0, utcOffsetSeconds: 90) }
        expectInvalid { () throws(MediaError) in try ExifDateTime(year: 2025, month: 1, day: 1, hour: 0, minute: 0, second: 0, utcOffsetSeconds: 19 * 3600) }
        let utc = try #require(TimeZone(secondsFromGMT: 0))
        expectInvalid { () throws(MediaError) in try ExifDateTime(date: Date(timeIntervalSince1970: 1e13), timeZone: utc) }
    }
}

// MARK: - Encoding and reading

/// `ExifMetadata`: encoding with libexif and reading back, limits and invalid values.
@Suite("EXIF metadata encoding and reading")
struct EXIFMetadataTests {
    @Test("every field survives encode → read in both byte orders", arguments: TIFFByteOrder.allCases)
    func roundTrip(order: TIFFByteOrder) throws {
        let metadata = try sampleMetadata()
        let payload = try metadata.encoded(byteOrder: order)
        #expect(payload.starts(with: ExifPayload.header))
        #expect(Array(payload[6..<8]) == (order == .bigEndian ? Array("MM".utf8) : Array("II".utf8)))
        let read = try ExifMetadata(exifPayload: payload)
        var expected = metadata
        let location = try #require(read.location)
        #expect(abs(location.latitude - metadata.location!.latitude) < 1e-7)
        #expect(abs(location.longitude - metadata.location!.longitude) < 1e-7)
        #expect(location.altitude == -12.5)
        #expect(abs(location.timestamp!.timeIntervalSince(metadata.location!.timestamp!)) < 1e-6)
        expected.location = location
        #expect(read == expected)
        // A bare TIFF block, as HEIF stores EXIF, reads the same.
        #expect(try ExifMetadata(exifPayload: Array(payload.dropFirst(6))) == read)
    }

    @Test("empty fields write nothing and read back as nil")
    func emptyFields() throws {
        let minimal = ExifMetadata(make: "M")
        let read = try ExifMetadata(exifPayload: minimal.encoded())
        #expect(read == minimal)
        #expect(try ExifPayload.containsLocation(minimal.encoded()) == false)
        let noOffset = ExifMetadata(dateTimeOriginal: try ExifDateTime(year: 2026, month: 1, day: 2, hour: 3, minute: 4, second: 5))
        #expect(try ExifMetadata(exifPayload: noOffset.encoded()) == noOffset)
        let noAltitude = ExifMetadata(location: ExifLocation(latitude: 48.858370, longitude: 2.294481))
        let readLocation = try #require(try ExifMetadata(exifPayload: noAltitude.encoded()).location)
        #expect(readLocation.altitude == nil && readLocation.timestamp == nil)
        #expect(abs(readLocation.latitude - 48.858370) < 1e-7 && abs(readLocation.longitude - 2.294481) < 1e-7)
    }

    @Test("coordinates at the edges of their ranges round-trip within 1/10000 arc-second",
          arguments: [(0.0, 0.0), (90, 180), (-90, -180), (59.999_999_99, 0.000_000_01), (-0.5, 179.999_999_99)])
    func coordinateEdges(latitude: Double, longitude: Double) throws {
        let written = ExifMetadata(location: ExifLocation(latitude: latitude, longitude: longitude, altitude: 0))
        let read = try #require(try ExifMetadata(exifPayload: written.encoded()).location)
        #expect(abs(read.latitude - latitude) <= 1.0 / 36_000_000 && abs(read.longitude - longitude) <= 1.0 / 36_000_000)
        #expect(read.altitude == 0)
    }

    @Test("values EXIF cannot hold are refused with .invalidMetadata")
    func badValues() throws {
        let cases: [ExifMetadata] = [
            ExifMetadata(make: "Nul\0byte"),
            ExifMetadata(pixelWidth: 0),
            ExifMetadata(pixelHeight: Int(UInt32.max) + 1),
            ExifMetadata(location: ExifLocation(latitude: 90.5, longitude: 0)),
            ExifMetadata(location: ExifLocation(latitude: 0, longitude: -180.01)),
            ExifMetadata(location: ExifLocation(latitude: .nan, longitude: 0)),
            ExifMetadata(location: ExifLocation(latitude: 0, longitude: 0, altitude: .infinity)),
            ExifMetadata(location: ExifLocation(latitude: 0, longitude: 0, altitude: -5e6)),
        ]
        for metadata in cases {
            let error = mediaError { () throws(MediaError) in try metadata.encoded() }
            guard case .invalidMetadata? = error else { Issue.record("\(metadata): \(String(describing: error))"); continue }
        }
    }

    @Test("a block larger than an APP1 segment can hold is refused, at encoding and insertion")
    func sizeLimit() throws {
        let huge = ExifMetadata(make: String(repeating: "x", count: 70_000))
        guard case .invalidMetadata(let reason)? = mediaError({ () throws(MediaError) in try huge.encoded() }) else {
            Issue.record("a 70 kB Make was accepted"); return
        }
        #expect(reason.contains("65533"))
        // Fits as one string, but the whole block does not.
        let almost = ExifMetadata(make: String(repeating: "x", count: 65_000), model: String(repeating: "y", count: 1_000))
        guard case .invalidMetadata(let total)? = mediaError({ () throws(MediaError) in try almost.encoded() }) else {
            Issue.record("a 66 kB block was accepted"); return
        }
        #expect(total.hasPrefix("the EXIF block is 66") && total.hasSuffix("more than the 65533 bytes a JPEG APP1 segment can hold"))

        let jpeg = try plainJPEG()
        let largest = ExifPayload.header + [UInt8](repeating: 0, count: ExifPayload.maximumSize - 6)
        let inserted = try JPEGExif.inserting(exifPayload: largest, into: jpeg)
        #expect(Array(inserted[2..<6]) == [0xFF, 0xE1, 0xFF, 0xFF])
        #expect(throws: MediaError.self) { try JPEGExif.inserting(exifPayload: largest + [0], into: jpeg) }
        #expect(throws: MediaError.self) { try ExifMetadata(exifPayload: largest + [0]) }
        #expect(throws: MediaError.invalidMetadata("an APP1 EXIF payload must start with \"Exif\\0\\0\"")) {
            try JPEGExif.inserting(exifPayload: [1, 2, 3], into: jpeg)
        }
    }
}

// MARK: - Files checked by exiftool

/// `JPEGExif` on real JPEG files, checked against exiftool in both directions.
@Suite("EXIF in JPEG files, checked with exiftool")
struct EXIFJPEGTests {
    @Test("exiftool's JSON reads when it prints a Matroska UID such as 74e365 as a bare number (too large for a Double)")
    func hugeNumbersInExiftoolJSON() throws {
        let printed = Data(#"[{"SourceFile": "a.mkv", "Matroska:TagTrackUID": 74e365, "Matroska:Duration": 1.5e2, "List": [3e999, 1]}]"#.utf8)
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: printed) }
        let read = try #require(try JSONSerialization.jsonObject(with: ExifTool.quotingHugeNumbers(printed)) as? [[String: Any]])
        #expect(read[0]["Matroska:TagTrackUID"] as? String == "74e365")
        #expect(read[0]["Matroska:Duration"] as? Double == 150)
        #expect((read[0]["List"] as? [Any])?.first as? String == "3e999")
    }

    @Test("exiftool reads every field Pinhole writes, and the pixels are not touched")
    func exiftoolReadsOurTags() throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let plain = try plainJPEG()
        let jpeg = try JPEGExif.inserting(sampleMetadata(), into: plain)
        let file = try directory.file("ours.jpg", jpeg)
        let tags = try exiftool.tags(file)
        let validation = try exiftool.tags(file, options: ["-validate", "-warning", "-error", "-a", "-G"])
        #expect(jsonText(validation["ExifTool:Validate"]) == "OK", "exiftool -validate: \(validation)")
        #expect(jsonText(tags["EXIF:Make"]) == "Pinhole Test Cameras")
        #expect(jsonText(tags["EXIF:Model"]) == "Virtual Camera 3000")
        #expect(jsonText(tags["EXIF:Software"]) == "Pinhole 0.1")
        #expect(jsonText(tags["EXIF:DateTimeOriginal"]) == "2026:11:29 00:30:22")
        #expect(jsonText(tags["EXIF:ModifyDate"]) == "2026:11:29 00:30:22")
        #expect(jsonText(tags["EXIF:CreateDate"]) == "2026:11:29 00:30:22")
        #expect(jsonText(tags["EXIF:SubSecTimeOriginal"]) == "045")
        #expect(jsonText(tags["EXIF:OffsetTimeOriginal"]) == "+02:00")
        #expect(jsonText(tags["EXIF:OffsetTime"]) == "+02:00")
        #expect(jsonText(tags["Composite:SubSecDateTimeOriginal"]) == "2026:11:29 00:30:22.045+02:00")
        #expect(jsonNumber(tags["EXIF:ExifImageWidth"]) == 320)
        #expect(jsonNumber(tags["EXIF:ExifImageHeight"]) == 240)
        #expect(jsonNumber(tags["EXIF:Orientation"]) == 6)
        #expect(jsonText(tags["EXIF:ExifVersion"]) == "0231")
        #expect(jsonText(tags["EXIF:GPSVersionID"]) == "2 3 0 0")
        #expect(jsonText(tags["EXIF:GPSLatitudeRef"]) == "S")
        #expect(jsonText(tags["EXIF:GPSLongitudeRef"]) == "W")
        #expect(jsonNumber(tags["EXIF:GPSAltitudeRef"]) == 1)
        let latitude = try #require(jsonNumber(tags["Composite:GPSLatitude"]))
        let longitude = try #require(jsonNumber(tags["Composite:GPSLongitude"]))
        #expect(abs(latitude - -33.856784) < 1e-7 && abs(longitude - -151.215297) < 1e-7, "\(latitude), \(longitude)")
        #expect(jsonNumber(tags["Composite:GPSAltitude"]) == -12.5)
        #expect(jsonText(tags["EXIF:GPSDateStamp"]) == "2026:11:28")
        #expect(jsonText(tags["Composite:GPSDateTime"]) == "2026:11:28 22:30:21.5Z")
        // Metadata only: the stored pixels keep their size and values.
        #expect(jsonNumber(tags["File:ImageWidth"]) == 320 && jsonNumber(tags["File:ImageHeight"]) == 240)
        #expect(try JPEGDecoder().decode(jpeg).packedBytes() == JPEGDecoder().decode(plain).packedBytes())
    }

    @Test("exiftool sees each of the eight orientations, by number and by name")
    func orientations() throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let plain = try plainJPEG()
        var files: [URL] = []
        for orientation in ExifOrientation.allCases {
            let jpeg = try JPEGExif.inserting(ExifMetadata(pixelWidth: 320, pixelHeight: 240, orientation: orientation), into: plain)
            #expect(try JPEGExif.metadata(in: jpeg)?.orientation == orientation)
            files.append(try directory.file("orientation-\(orientation.rawValue).jpg", jpeg))
        }
        let numbers = try exiftool.tags(files, options: ["-n", "-Orientation"])
        let names = try exiftool.tags(files, options: ["-Orientation"])
        for (index, orientation) in ExifOrientation.allCases.enumerated() {
            #expect(jsonNumber(numbers[index]["Orientation"]) == Double(orientation.rawValue))
            #expect(jsonText(names[index]["Orientation"]) == orientation.description)
        }
        #expect(ExifOrientation.right.description == "Rotate 90 CW" && ExifOrientation.left.description == "Rotate 270 CW")
        #expect(ExifOrientation.rightMirrored.description == "Mirror horizontal and rotate 90 CW")
        #expect(ExifOrientation.leftMirrored.description == "Mirror horizontal and rotate 270 CW")
        #expect(ExifOrientation.downMirrored.description == "Mirror vertical")
    }

    @Test("inserting puts EXIF right after SOI, replaces an old EXIF and keeps every other byte")
    func insertion() throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let plain = try plainJPEG()
        #expect(Array(plain[2..<4]) == [0xFF, 0xE0] && Array(plain[6..<11]) == Array("JFIF\0".utf8))
        #expect(try JPEGExif.exifPayload(in: plain) == nil && JPEGExif.metadata(in: plain) == nil)

        let first = try sampleMetadata().encoded()
        let once = try JPEGExif.inserting(exifPayload: first, into: plain)
        #expect(Array(once[0..<4]) == [0xFF, 0xD8, 0xFF, 0xE1])
        #expect(Int(once[4]) << 8 | Int(once[5]) == first.count + 2)
        #expect(Array(once[6..<(6 + first.count)]) == first)
        #expect(Array(once[(6 + first.count)...]) == Array(plain[2...]))
        #expect(try JPEGExif.exifPayload(in: once) == first)

        // Replacing: the old EXIF goes wherever it was, here after APP0 where exiftool puts it.
        let viaExiftool = try directory.file("exiftool.jpg", plain)
        try exiftool.write(viaExiftool, ["-Make=Old", "-Artist=Somebody"])
        let edited = try directory.read(viaExiftool)
        #expect(exifSegmentStarts(edited).count == 1)
        let second = try ExifMetadata(make: "New", orientation: .left).encoded(byteOrder: .littleEndian)
        let replaced = try JPEGExif.inserting(exifPayload: second, into: edited)
        #expect(exifSegmentStarts(replaced) == [2])
        let old = try #require(markerSegments(edited).first { $0.marker == 0xE1 })
        #expect(Array(replaced[(6 + second.count)...]) == Array(edited[2..<old.start] + edited[old.end...]))
        let tags = try exiftool.tags(directory.file("replaced.jpg", replaced))
        #expect(jsonText(tags["EXIF:Make"]) == "New" && tags["EXIF:Artist"] == nil)
        #expect(jsonNumber(tags["EXIF:Orientation"]) == 8)
        #expect(jsonText(tags["File:ExifByteOrder"]) == "II")
        // Inserting twice leaves one EXIF segment.
        #expect(exifSegmentStarts(try JPEGExif.inserting(exifPayload: first, into: once)) == [2])
    }

    @Test("stripping location removes every GPS tag and its bytes; pixels and all other bytes stay")
    func stripLocation() throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let plain = try plainJPEG()
        for order in TIFFByteOrder.allCases {
            let jpeg = try JPEGExif.inserting(sampleMetadata(), into: plain, byteOrder: order)
            let before = try exiftool.tags(directory.file("located.jpg", jpeg), options: ["-n", "-G", "-a", "-u"])
            #expect(before.keys.contains("EXIF:GPSLatitude"))
            let payload = try #require(try JPEGExif.exifPayload(in: jpeg))
            #expect(try ExifPayload.containsLocation(payload))
            #expect(contains(payload, Array("2026:11:28".utf8)))

            let stripped = try JPEGExif.removingLocation(from: jpeg)
            let strippedFile = try directory.file("stripped.jpg", stripped)
            let after = try exiftool.tags(strippedFile, options: ["-n", "-G", "-a", "-u"])
            #expect(after.keys.filter { $0.contains("GPS") }.isEmpty, "exiftool still sees \(after.keys.filter { $0.contains("GPS") })")
            let validation = try exiftool.tags(strippedFile, options: ["-validate", "-warning", "-error", "-a", "-G"])
            #expect(jsonText(validation["ExifTool:Validate"]) == "OK", "exiftool -validate: \(validation)")
            #expect(jsonText(after["EXIF:Make"]) == "Pinhole Test Cameras" && jsonNumber(after["EXIF:Orientation"]) == 6)
            #expect(jsonText(after["EXIF:SubSecTimeOriginal"]) == "045" && jsonNumber(after["EXIF:ExifImageWidth"]) == 320)

            // Same length; only bytes inside the EXIF payload changed; the GPS date is gone from it.
            #expect(stripped.count == jpeg.count)
            let changed = stripped.indices.filter { stripped[$0] != jpeg[$0] }
            #expect(!changed.isEmpty && changed.allSatisfy { (6..<(6 + payload.count)).contains($0) })
            let strippedPayload = try #require(try JPEGExif.exifPayload(in: stripped))
            #expect(!contains(strippedPayload, Array("2026:11:28".utf8)))
            #expect(try ExifPayload.containsLocation(strippedPayload) == false)
            var expected = try sampleMetadata()
            expected.location = nil
            #expect(try JPEGExif.metadata(in: stripped) == expected)
            #expect(try JPEGDecoder().decode(stripped).packedBytes() == JPEGDecoder().decode(jpeg).packedBytes())
            // Stripping again, or a JPEG without EXIF, changes nothing.
            #expect(try JPEGExif.removingLocation(from: stripped) == stripped)
            #expect(try JPEGExif.removingLocation(from: plain) == plain)
        }
    }

    /// A little-endian block built by hand: IFD0 (Make, EXIF and GPS pointers) at 8, the EXIF IFD
    /// (PixelXDimension and a second, non-standard GPS pointer) at 50, GPS IFDs at 80 and 110, and
    /// the first GPS IFD's latitude at 128.
    func handBuiltPayload() -> [UInt8] {
        func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        var tiff: [UInt8] = Array("II".utf8) + le16(42) + le32(8)
        tiff += le16(3) + entry(0x010F, 2, 4, Array("Cam\0".utf8)) + entry(0x8769, 4, 1, le32(50)) + entry(0x8825, 4, 1, le32(80)) + le32(0)
        tiff += le16(2) + entry(0x8825, 4, 1, le32(110)) + entry(0xA002, 4, 1, le32(640)) + le32(0)
        tiff += le16(2) + entry(0x0001, 2, 2, Array("N\0".utf8)) + entry(0x0002, 5, 3, le32(128)) + le32(0)
        tiff += le16(1) + entry(0x0001, 2, 2, Array("S\0".utf8)) + le32(0)
        tiff += [12, 0, 0, 0, 1, 0, 0, 0, 30, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]
        return ExifPayload.header + tiff
    }

    @Test("every GPS pointer is removed, even one in the EXIF IFD, and other writers' blocks keep their layout")
    func stripHandBuilt() throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let payload = handBuiltPayload()
        #expect(payload.count == 6 + 152)
        let before = try ExifMetadata(exifPayload: payload)
        #expect(before.make == "Cam" && before.pixelWidth == 640)
        #expect(before.location == nil)  // a latitude without a longitude is no position
        let stripped = try ExifPayload.removingLocation(from: payload)
        #expect(stripped.count == payload.count)
        #expect(try ExifPayload.containsLocation(payload) && !ExifPayload.containsLocation(stripped))
        #expect(stripped[(6 + 80)...].allSatisfy { $0 == 0 }, "the GPS IFDs and the latitude are zeroed")
        #expect(Array(stripped[0..<(6 + 8 + 2)]) == Array(payload[0..<(6 + 8 + 2)]).enumerated().map { $0.offset == 14 ? 2 : $0.element })
        var after = before
        after.location = nil
        #expect(try ExifMetadata(exifPayload: stripped) == after)
        let jpeg = try JPEGExif.inserting(exifPayload: stripped, into: plainJPEG())
        let tags = try exiftool.tags(directory.file("hand-built.jpg", jpeg), options: ["-n", "-G", "-a", "-u"])
        #expect(tags.keys.filter { $0.contains("GPS") }.isEmpty, "\(tags.keys.filter { $0.contains("GPS") })")
        #expect(jsonText(tags["EXIF:Make"]) == "Cam" && jsonNumber(tags["EXIF:ExifImageWidth"]) == 640)

        // IFDs whose tables overlap are damaged, and refused.
        var overlapping = payload
        overlapping[6 + 8 + 2 + 12 + 8] = 26  // the EXIF IFD now starts inside IFD0 (where its count reads 1)
        #expect(throws: MediaError.corruptData(format: "EXIF", reason: "the IFD0 and the EXIF IFD overlap")) {
            try ExifPayload.removingLocation(from: overlapping)
        }
    }

    @Test("tags exiftool writes onto a plain JPEG are read back, in both byte orders", arguments: ["MM", "II"])
    func readExiftoolFile(order: String) throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let file = try directory.file("written.jpg", try plainJPEG())
        try exiftool.write(file, [
            "-ExifByteOrder#=\(order)", "-Make=ExifTool Maker", "-Model=ExifTool Model", "-Software=ExifTool",
            "-DateTimeOriginal=2025:03:04 05:06:07", "-SubSecTimeOriginal=5", "-OffsetTimeOriginal=-03:30",
            "-Orientation#=8", "-ExifImageWidth=320", "-ExifImageHeight=240",
            "-GPSLatitude=12.3456", "-GPSLatitudeRef=N", "-GPSLongitude=98.7654", "-GPSLongitudeRef=W",
            "-GPSAltitude=123.4", "-GPSAltitudeRef#=0", "-GPSDateStamp=2025:03:04", "-GPSTimeStamp=08:36:07.25",
        ])
        let jpeg = try directory.read(file)
        let payload = try #require(try JPEGExif.exifPayload(in: jpeg))
        #expect(Array(payload[6..<8]) == Array(order.utf8))
        let metadata = try #require(try JPEGExif.metadata(in: jpeg))
        #expect(metadata.make == "ExifTool Maker" && metadata.model == "ExifTool Model" && metadata.software == "ExifTool")
        #expect(metadata.dateTimeOriginal == (try ExifDateTime(year: 2025, month: 3, day: 4, hour: 5, minute: 6, second: 7,
                                                               millisecond: 500, utcOffsetSeconds: -12_600)))
        #expect(metadata.orientation == .left)
        #expect(metadata.pixelWidth == 320 && metadata.pixelHeight == 240)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 12.3456) < 1e-6 && abs(location.longitude - -98.7654) < 1e-6)
        #expect(location.altitude.map { abs($0 - 123.4) < 1e-6 } == true)
        #expect(location.timestamp.map { abs($0.timeIntervalSince1970 - 1_741_077_367.25) < 1e-3 } == true)

        let stripped = try JPEGExif.removingLocation(from: jpeg)
        let after = try exiftool.tags(directory.file("stripped.jpg", stripped), options: ["-n", "-G", "-a", "-u"])
        #expect(after.keys.filter { $0.contains("GPS") }.isEmpty)
        #expect(jsonText(after["EXIF:Make"]) == "ExifTool Maker")
    }

    @Test("tags exiftool edits in one of our JPEGs are read back with ours")
    func readExiftoolEdits() throws {
        let exiftool = try ExifTool.locate()
        let directory = try TemporaryDirectory()
        let file = try directory.file("edited.jpg", JPEGExif.inserting(sampleMetadata(), into: plainJPEG()))
        try exiftool.write(file, ["-Model=Edited Model", "-Orientation#=3", "-GPSLatitudeRef=N", "-SubSecTimeOriginal=999"])
        let metadata = try #require(try JPEGExif.metadata(in: try directory.read(file)))
        var expected = try sampleMetadata()
        expected.model = "Edited Model"
        expected.orientation = .down
        expected.dateTimeOriginal = try ExifDateTime(year: 2026, month: 11, day: 29, hour: 0, minute: 30, second: 22,
                                                     millisecond: 999, utcOffsetSeconds: 7200)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 33.856784) < 1e-7 && abs(location.longitude - -151.215297) < 1e-7)
        #expect(location.altitude == -12.5 && location.timestamp == expected.location?.timestamp)
        expected.location = location
        #expect(metadata == expected)
    }
}

// MARK: - Damaged input

/// Damaged EXIF blocks and JPEGs: typed errors, no crash, and fuzzing.
@Suite("EXIF with damaged input")
struct EXIFRobustnessTests {
    /// Sets the 32-bit big-endian value after the first occurrence of `prefix` in `bytes`.
    func patch(_ bytes: [UInt8], after prefix: [UInt8], with value: UInt32) throws -> [UInt8] {
        let at = try #require((0...(bytes.count - prefix.count)).first { bytes[$0..<($0 + prefix.count)].elementsEqual(prefix) })
        var out = bytes
        let position = at + prefix.count
        out.replaceSubrange(position..<(position + 4), with: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
        return out
    }

    /// Expects `.corruptData` for `format` with a one-line message containing `words`.
    func expectCorrupt<T>(_ format: String, _ words: String, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () throws(MediaError) -> T) {
        let error = mediaError(body, sourceLocation: sourceLocation)
        guard case .corruptData(format, let reason)? = error else {
            Issue.record("expected .corruptData(\(format)), got \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(reason.contains(words), "\(reason)", sourceLocation: sourceLocation)
        #expect(!error!.description.contains("\n"), sourceLocation: sourceLocation)
    }

    @Test("absurd offsets, random bytes and a wrong header give .corruptData for EXIF")
    func badPayloads() throws {
        let payload = try sampleMetadata().encoded()  // big-endian: tags and types can be searched as bytes
        let farIFD0 = try patch(payload, after: Array("Exif\0\0MM\0*".utf8), with: 0xFFFF_FFF0)
        expectCorrupt("EXIF", "IFD0 offset 4294967280") { () throws(MediaError) in try ExifMetadata(exifPayload: farIFD0) }
        let farEXIF = try patch(payload, after: [0x87, 0x69, 0, 4, 0, 0, 0, 1], with: 0x7FFF_FFFF)
        expectCorrupt("EXIF", "EXIF IFD offset 2147483647") { () throws(MediaError) in try ExifMetadata(exifPayload: farEXIF) }
        let farMake = try patch(payload, after: [0x01, 0x0F, 0, 2, 0, 0, 0, 21], with: 0xFFFF_FF00)
        expectCorrupt("EXIF", "tag 0x010F in IFD0") { () throws(MediaError) in try ExifMetadata(exifPayload: farMake) }
        let farLatitude = try patch(payload, after: [0, 2, 0, 5, 0, 0, 0, 3], with: 0x0001_0000)
        expectCorrupt("EXIF", "tag 0x0002 in GPS IFD") { () throws(MediaError) in try ExifPayload.removingLocation(from: farLatitude) }
        let manyEntries = try patch(payload, after: Array("Exif\0\0MM\0*\0\0\0\u{8}".utf8), with: 0xFFFF_0000)
        expectCorrupt("EXIF", "run past the end") { () throws(MediaError) in try ExifMetadata(exifPayload: manyEntries) }
        var random = SeededGenerator(seed: 42)
        let noise = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &random) }
        expectCorrupt("EXIF", "neither") { () throws(MediaError) in try ExifMetadata(exifPayload: noise) }
        expectCorrupt("EXIF", "byte order") { () throws(MediaError) in try ExifMetadata(exifPayload: ExifPayload.header + noise) }
        expectCorrupt("EXIF", "too short") { () throws(MediaError) in try ExifMetadata(exifPayload: [0x45, 0x78]) }
        expectCorrupt("EXIF", "magic number") { () throws(MediaError) in
            try ExifMetadata(exifPayload: ExifPayload.header + [0x4D, 0x4D, 0, 43, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0])
        }
        // IFD0 pointing at itself as its EXIF IFD does not loop.
        let loop = try patch(payload, after: [0x87, 0x69, 0, 4, 0, 0, 0, 1], with: 8)
        #expect(try ExifMetadata(exifPayload: loop).make == "Pinhole Test Cameras")
    }

    @Test("every truncation of a payload is either refused or reads without crashing; cutting into data is refused")
    func truncations() throws {
        for order in TIFFByteOrder.allCases {
            let payload = try sampleMetadata().encoded(byteOrder: order)
            for length in 0..<payload.count {
                let cut = Array(payload.prefix(length))
                do {
                    _ = try ExifMetadata(exifPayload: cut)
                    #expect(length >= payload.count - 1, "a payload cut to \(length) of \(payload.count) bytes was accepted")
                } catch {
                    if case .corruptData("EXIF", _) = error {} else { Issue.record("\(length): \(error)") }
                }
            }
        }
    }

    @Test("JPEGs without SOI, with a segment running past the end, or cut before the image give .corruptData for JPEG")
    func badJPEGs() throws {
        let jpeg = try JPEGExif.inserting(sampleMetadata(), into: plainJPEG())
        expectCorrupt("JPEG", "start-of-image") { () throws(MediaError) in try JPEGExif.metadata(in: Array(jpeg.dropFirst(2))) }
        expectCorrupt("JPEG", "start-of-image") { () throws(MediaError) in try JPEGExif.inserting(exifPayload: ExifPayload.header, into: []) }
        var long = jpeg
        long[4] = 0xFF  // the APP1 claims 65 kB more than there is after it in a small file
        long.removeSubrange(3000...)
        expectCorrupt("JPEG", "declares") { () throws(MediaError) in try JPEGExif.metadata(in: long) }
        expectCorrupt("JPEG", "declares") { () throws(MediaError) in try JPEGExif.removingLocation(from: long) }
        let tiny: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x40, 0x00, 0x45, 0x78]
        expectCorrupt("JPEG", "declares 16384 bytes but only 4 remain") { () throws(MediaError) in try JPEGExif.exifPayload(in: tiny) }
        expectCorrupt("JPEG", "before the start-of-scan") { () throws(MediaError) in try JPEGExif.metadata(in: [0xFF, 0xD8]) }
        expectCorrupt("JPEG", "where a marker") { () throws(MediaError) in
            try JPEGExif.inserting(exifPayload: ExifPayload.header, into: [0xFF, 0xD8, 0x12, 0x34, 0x56])
        }
        expectCorrupt("JPEG", "less than 2") { () throws(MediaError) in try JPEGExif.metadata(in: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01]) }
        // A damaged EXIF block inside a sound JPEG is an EXIF error.
        var damaged = jpeg
        damaged[6 + 8] = 0x99  // the TIFF magic number
        expectCorrupt("EXIF", "magic number") { () throws(MediaError) in try JPEGExif.metadata(in: damaged) }
    }

    @Test("fuzz: 3000 mutated EXIF payloads give a result or a MediaError, and stripping always removes GPS")
    func fuzzPayloads() throws {
        var random = SeededGenerator(seed: 0x5EED_E71F)
        let originals = try TIFFByteOrder.allCases.map { try sampleMetadata().encoded(byteOrder: $0) }
        var results = 0, errors = 0
        for iteration in 0..<3000 {
            var bytes = originals[iteration % 2]
            switch random.next() % 5 {
            case 0:
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                }
            case 1:
                bytes.removeSubrange(Int.random(in: 0..<bytes.count, using: &random)...)
            case 2:
                let at = Int.random(in: 6..<(bytes.count - 4), using: &random)
                let huge: [UInt8] = [[0xFF, 0xFF, 0xFF, 0xF0], [0x7F, 0xFF, 0xFF, 0xFF], [0x00, 0x01, 0x00, 0x00], [0xF0, 0xFF, 0xFF, 0xFF]][Int(random.next() % 4)]
                bytes.replaceSubrange(at..<(at + 4), with: huge)
            case 3:
                let at = Int.random(in: 0..<bytes.count, using: &random)
                let span = min(bytes.count - at, Int.random(in: 1...64, using: &random))
                for i in at..<(at + span) { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            default:
                // Entry counts and IFD offsets: the 16-bit fields just before IFD0's entries.
                bytes[14 + Int(random.next() % 2)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try ExifMetadata(exifPayload: bytes)
                results += 1
            } catch {
                errors += 1
            }
            if let stripped = try? ExifPayload.removingLocation(from: bytes) {
                #expect(stripped.count == bytes.count)
                #expect((try? ExifPayload.containsLocation(stripped)) == false, "iteration \(iteration)")
                #expect((try? ExifMetadata(exifPayload: stripped))?.location == nil, "iteration \(iteration)")
            }
        }
        #expect(results > 100 && errors > 100, "\(results) results, \(errors) errors")
    }

    @Test("fuzz: 2000 mutated JPEG headers give a result or a MediaError")
    func fuzzJPEGs() throws {
        var random = SeededGenerator(seed: 0xC0FF_EE00)
        let original = try JPEGExif.inserting(sampleMetadata(), into: JPEGEncoder().encode(photoLikeImage(width: 48, height: 32), quality: 60))
        let headerEnd = try #require(markerSegments(original).last { $0.marker == 0xDA }).end
        let replacement = try ExifMetadata(make: "Fuzz").encoded()
        var results = 0, errors = 0
        for _ in 0..<2000 {
            var bytes = original
            switch random.next() % 3 {
            case 0:
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    bytes[Int.random(in: 0..<headerEnd, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
                }
            case 1:
                bytes.removeSubrange(Int.random(in: 0..<headerEnd, using: &random)...)
            default:
                // Segment lengths: the two bytes after a marker.
                let markers = markerSegments(original)
                let segment = markers[Int(random.next() % UInt64(markers.count))]
                bytes[segment.start + 2] = UInt8.random(in: 0...255, using: &random)
                bytes[segment.start + 3] = UInt8.random(in: 0...255, using: &random)
            }
            let inserted: [UInt8]
            do {
                _ = try JPEGExif.metadata(in: bytes)
                _ = try JPEGExif.removingLocation(from: bytes)
                inserted = try JPEGExif.inserting(exifPayload: replacement, into: bytes)
                results += 1
            } catch {
                errors += 1
                continue
            }
            // Whatever the header held, a JPEG that took new EXIF reads it back.
            #expect(try JPEGExif.metadata(in: inserted)?.make == "Fuzz")
        }
        #expect(results > 100 && errors > 100, "\(results) results, \(errors) errors")
    }
}
