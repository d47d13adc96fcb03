import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Media
import Testing
import TestSupport

/// What an independent XML parser (FoundationXML's, libxml2) sees in a packet: whether it is
/// well-formed, the qualified names of its elements and attributes, and its text.
final class XMLSummary: NSObject, XMLParserDelegate {
    /// Element and attribute names as written ("exif:GPSLatitude").
    var names: [String] = []
    /// All character data, CDATA included.
    var text = ""
    /// Whether the parser got to the end without an error.
    private(set) var wellFormed = false

    /// Parses `packet`.
    init(_ packet: [UInt8]) {
        super.init()
        let parser = XMLParser(data: Data(packet))
        parser.delegate = self
        parser.shouldProcessNamespaces = false
        wellFormed = parser.parse()
    }

    /// Notes an element's name and its attributes' names.
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        names.append(elementName)
        names += attributes.keys
    }

    /// Keeps character data.
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    /// Keeps CDATA as text.
    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) { text += String(decoding: CDATABlock, as: UTF8.self) }
}

/// Removing a location from hand-made and damaged files: XMP edited property by property, and
/// sizes read from files never trusted.
@Suite("Location removal")
struct LocationRemovalTests {
    /// A small JPEG with `packet` as its XMP (APP1 right after SOI).
    func jpeg(xmp packet: [UInt8]) throws -> [UInt8] {
        let plain = try JPEGEncoder().encode(SyntheticImage.photoLike(width: 32, height: 24), quality: 70)
        let payload = Array("http://ns.adobe.com/xap/1.0/\0".utf8) + packet
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload + plain.dropFirst(2)
    }

    /// The XMP packet of a JPEG made by `jpeg(xmp:)` (the same place: removal keeps its length).
    func packet(of jpeg: [UInt8], length: Int) -> [UInt8] {
        let start = 6 + "http://ns.adobe.com/xap/1.0/\0".utf8.count
        return Array(jpeg[start..<(start + length)])
    }

    @Test("XMP in attributes, elements, structures and CDATA: only the location goes, as spaces; the rest stays byte for byte and parses")
    func xmpProperties() throws {
        let xmp = Array("""
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
             <rdf:Description rdf:about="" xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
               xmlns:ps="http://ns.adobe.com/photoshop/1.0/" xmlns:ext="http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
               e:GPSLatitude="48,51.4N" e:GPSLongitude='2,17.7E' ps:State="IDF" dc:format="image/jpeg" e:DateTimeOriginal="2025-06-01T10:00:00">
              <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Walk &amp; talk</rdf:li></rdf:Alt></dc:title>
              <ext:LocationShown><rdf:Bag><rdf:li rdf:parseType="Resource"><ext:City>Paris</ext:City></rdf:li></rdf:Bag></ext:LocationShown>
              <ps:City><![CDATA[Paris <left bank>]]></ps:City>
              <!-- <ps:Country>France</ps:Country> in a comment is no property -->
              <e:GPSAltitude/>
             </rdf:Description>
            </rdf:RDF></x:xmpmeta>
            <?xpacket end="w"?>
            """.utf8)
        let original = try jpeg(xmp: xmp)
        #expect(try LocationRemoval.containsLocation(in: original))
        let stripped = try LocationRemoval.removingLocation(from: original)
        #expect(stripped.count == original.count)
        #expect(try !LocationRemoval.containsLocation(in: stripped))
        let clean = packet(of: stripped, length: xmp.count)
        #expect(zip(xmp, clean).allSatisfy { $0 == $1 || $1 == 0x20 }, "only spaces were written")
        let summary = XMLSummary(clean)
        #expect(summary.wellFormed)
        #expect(summary.names.filter { ["GPS", "State", "City", "Location"].contains(where: $0.contains) }.isEmpty, "\(summary.names)")
        #expect(summary.names.contains("dc:format") && summary.names.contains("e:DateTimeOriginal") && summary.names.contains("dc:title"))
        #expect(summary.text.contains("Walk & talk") && !summary.text.contains("Paris"))
        #expect(stripped[(6 + 29 + xmp.count)...].elementsEqual(original[(6 + 29 + xmp.count)...]), "the image is untouched")
    }

    @Test("an XMP packet that is not plain XML (a DTD, an undeclared prefix) is replaced whole by an empty packet of its length")
    func unreadableXMP() throws {
        let packets = [
            "<!DOCTYPE x [<!ENTITY where \"48.8577\">]><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><e:GPSLatitude xmlns:e=\"http://ns.adobe.com/exif/1.0/\">&where;</e:GPSLatitude></x:xmpmeta>",
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><q:GPSLatitude>48.8577</q:GPSLatitude></x:xmpmeta>" + String(repeating: " ", count: 80),
        ]
        for text in packets {
            let xmp = Array(text.utf8)
            let stripped = try LocationRemoval.removingLocation(from: jpeg(xmp: xmp))
            let clean = packet(of: stripped, length: xmp.count)
            #expect(XMLSummary(clean).wellFormed && !String(decoding: clean, as: UTF8.self).contains("48.8577"), "\(String(decoding: clean, as: UTF8.self))")
            #expect(try !LocationRemoval.containsLocation(in: stripped))
        }
    }

    @Test("damaged IPTC, HEIF item locations and MP4 box sizes are corruptData, never a trap, and no copy is left")
    func damagedStructures() throws {
        // IPTC: a City dataset that declares more bytes than the resource holds.
        let iim: [UInt8] = [0x1C, 0x02, 0x5A, 0x40, 0x00] + Array("Paris".utf8)
        let resource = Array("8BIM".utf8) + [0x04, 0x04, 0, 0] + [0, 0, 0, UInt8(iim.count)] + iim + [0]
        let app13 = Array("Photoshop 3.0\0".utf8) + resource
        let plain = try JPEGEncoder().encode(SyntheticImage.photoLike(width: 32, height: 24), quality: 70)
        let jpeg = [0xFF, 0xD8, 0xFF, 0xED, UInt8((app13.count + 2) >> 8), UInt8((app13.count + 2) & 0xFF)] + app13 + plain.dropFirst(2)
        expectCorrupt("IPTC") { () throws(MediaError) in try LocationRemoval.removingLocation(from: jpeg) }

        // HEIF: an Exif item whose extent starts near Int64.max.
        /// An ISO box of `type` around `body`.
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] { bigEndian(body.count + 8, 4) + Array(type.utf8) + body }
        let infe = box("infe", [2, 0, 0, 0] + [0, 1, 0, 0] + Array("Exif".utf8) + [0])
        let iinf = box("iinf", [0, 0, 0, 0, 0, 1] + infe)
        let iloc = box("iloc", [1, 0, 0, 0, 0x88, 0x00, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1] + bigEndian(Int(Int64.max - 16), 8) + bigEndian(64, 8))
        let hdlr = box("hdlr", [UInt8](repeating: 0, count: 8) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let heif = box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)) + box("meta", [0, 0, 0, 0] + hdlr + iinf + iloc)
        expectCorrupt("HEIF") { () throws(MediaError) in try LocationRemoval.removingLocation(from: heif) }

        // MP4: a box whose 64-bit size is near Int64.max (issue 19's item 1 file, here for location).
        let folder = try TemporaryDirectory()
        let mp4 = box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8)) + [0, 0, 0, 1] + Array("udta".utf8) + bigEndian(Int(Int64.max - 7), 8) + [UInt8](repeating: 0, count: 64)
        let path = try folder.file("huge.mp4", mp4).path
        expectCorrupt("movie") { () throws(MediaError) in try LocationRemoval.movieContainsLocation(path: path) }
        expectCorrupt("movie") { () throws(MediaError) in try LocationRemoval.copyMovie(from: path, to: folder.path("out/copy.mp4")) }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path("out"))) ?? []).isEmpty, "nothing left behind")
    }

    @Test("fuzz: 1200 mutated JPEG, PNG, WebP and HEIF files with EXIF, XMP and IPTC give a clean copy or a MediaError")
    func fuzz() throws {
        let folder = try TemporaryDirectory()
        let exiftool = try ExifTool.locate()
        var random = SeededGenerator(seed: 0x1_0CA7_1011)
        var cleaned = 0, refused = 0
        for format in ["jpg", "png", "webp", "heic"] {
            let path = folder.path("source.\(format)")
            let png = folder.path("source-\(format).png")
            #expect(try runTool("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=48x32", "-frames:v", "1", format == "jpg" ? path : png]).status == 0)
            if format == "webp" { #expect(try runTool("cwebp", ["-quiet", png, "-o", path]).status == 0) }
            if format == "heic" { #expect(try runTool("heif-enc", ["-q", "50", "-o", path, png]).status == 0) }
            if format == "png" { try FileManager.default.moveItem(atPath: png, toPath: path) }
            try exiftool.write(URL(fileURLWithPath: path), ["-EXIF:GPSLatitude=48.8577", "-EXIF:GPSLatitudeRef=N", "-XMP:GPSLongitude=2.2950 E",
                                                            "-XMP-photoshop:City=Paris", "-IPTC:City=Paris", "-EXIF:Model=Fuzz"])
            let original = try FileBytes.read(path: path)
            #expect(try LocationRemoval.containsLocation(in: original))
            for _ in 0..<300 {
                var bytes = original
                let at = Int.random(in: 12..<bytes.count, using: &random)
                switch random.next() % 3 {
                case 0: for _ in 0..<Int.random(in: 1...6, using: &random) { bytes[Int.random(in: 12..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random) }
                case 1: bytes.removeSubrange(at...)
                default: bytes.replaceSubrange(at..<min(at + 4, bytes.count), with: [0xFF, 0xFF, 0xFF, 0xF0].prefix(min(4, bytes.count - at)))
                }
                if let stripped = try? LocationRemoval.removingLocation(from: bytes) {
                    #expect((try? LocationRemoval.containsLocation(in: stripped)) == false)
                    cleaned += 1
                } else {
                    refused += 1
                }
            }
        }
        #expect(cleaned > 100 && refused > 50, "\(cleaned) cleaned, \(refused) refused")
    }

    /// `value` as `count` big-endian bytes.
    func bigEndian(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
    }

    /// Expects `body` to throw `.corruptData` for `format`.
    func expectCorrupt<T>(_ format: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(MediaError) -> T) {
        do throws(MediaError) {
            _ = try body()
            Issue.record("expected corrupt \(format) data, got a result", sourceLocation: sourceLocation)
        } catch {
            guard case let .corruptData(found, _) = error else {
                Issue.record("expected corrupt \(format) data, got \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(found == format, "\(error)", sourceLocation: sourceLocation)
        }
    }
}
