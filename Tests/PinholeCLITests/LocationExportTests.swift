import Foundation
import Testing
import TestSupport

/// `pinhole library export --strip-location` from the command line, as issue 19's item 14 found
/// it: a photo whose location is only in XMP and IPTC was neither said to have one nor cleaned.
@Suite("pinhole library export --strip-location")
struct LocationExportTests {
    @Test("a JPEG located only by XMP and IPTC is listed with a location and exported with none, camera and date kept")
    func xmpAndIPTC() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let photo = folder.path("walk.jpg")
        #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=96x64", "-frames:v", "1", photo]).status == 0)
        let exiftool = try ExifTool.locate()
        try exiftool.write(URL(fileURLWithPath: photo), ["-EXIF:Model=Pinhole Cam", "-EXIF:DateTimeOriginal=2025:06:01 10:00:00",
                                                         "-XMP:GPSLatitude=48.8577 N", "-XMP:GPSLongitude=2.2950 E",
                                                         "-XMP-photoshop:City=Paris", "-IPTC:City=Paris", "-IPTC:Country-PrimaryLocationName=France"])
        let imported = try pinhole(["library", "import", photo], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let id = try #require(imported.stdout.split(separator: "\t").first.map(String.init))
        let info = try pinhole(["library", "info", id, "--json"], environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect((object["hasLocation"] as? Bool) == true, "the library says the photo has a location: \(info.stdout)")

        let exported = try pinhole(["library", "export", id, "--to", folder.path("out"), "--strip-location"], environment: env)
        #expect(exported.status == 0, "\(exported.stderr)")
        let copy = exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let left = try exiftool.run(["-a", "-G1", "-*gps*", "-*location*", "-*city*", "-*country*", copy])
        #expect(left.isEmpty, "exiftool finds no location in the export: \(String(decoding: left, as: UTF8.self))")
        let kept = try exiftool.tags(URL(fileURLWithPath: copy), options: ["-G1"])
        #expect(jsonText(kept["IFD0:Model"]) == "Pinhole Cam" && jsonText(kept["ExifIFD:DateTimeOriginal"]) == "2025:06:01 10:00:00", "\(kept)")
    }
}
