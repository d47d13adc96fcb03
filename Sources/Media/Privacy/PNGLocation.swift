/// Where a PNG keeps a location: EXIF in an eXIf chunk; XMP in an iTXt chunk keyed
/// "XML:com.adobe.xmp" (compressed or not); and the "Raw profile type …" text chunks that
/// ImageMagick and exiftool write (hex in a tEXt, zTXt or iTXt: "exif"/"APP1" EXIF, "iptc" and
/// "8bim" Photoshop resources or bare IPTC, "xmp"). Chunks change length as PNG allows (no
/// offsets point into a PNG) and get their CRC again; the image data chunks are untouched.
enum PNGLocation {
    /// The keyword of the iTXt chunk that holds XMP.
    static let xmpKeyword = "XML:com.adobe.xmp"
    /// The keyword prefix of ImageMagick's hex-encoded profiles.
    static let rawProfilePrefix = "Raw profile type "

    /// The edits that remove the location from `png`; empty when it has none.
    static func edits(in png: [UInt8]) throws(MediaError) -> [LocationEdit] {
        var edits: [LocationEdit] = []
        var failure: MediaError?
        let whole = Chunks.png(png) { type, range in
            do throws(MediaError) {
                if let data = try cleaned(type: type, data: png[range]) {
                    // Length, type, data and CRC: the whole chunk is written again.
                    let chunk = BigEndian.bytes(data.count, count: 4) + Array(type.utf8) + data
                        + BigEndian.bytes(Int(CRC32.checksum(Array(type.utf8) + data)), count: 4)
                    edits.append(LocationEdit(range: (range.lowerBound - 8)..<(range.upperBound + 4), replacement: chunk))
                }
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        guard whole else { throw .corruptData(format: "PNG", reason: "a chunk runs past the end of the file") }
        return edits
    }

    /// The data of a chunk without location, or nil when it has none.
    private static func cleaned(type: String, data: ArraySlice<UInt8>) throws(MediaError) -> [UInt8]? {
        switch type {
        case "eXIf":
            let block = Array(data)
            return try ExifPayload.containsLocation(block) ? try ExifPayload.removingLocation(from: block) : nil
        case "tEXt":
            guard let zero = data.firstIndex(of: 0) else { return nil }
            let keyword = String(decoding: data[..<zero], as: UTF8.self)
            return try profile(keyword, Array(data[(zero + 1)...])).map { Array(data[...zero]) + $0 }
        case "zTXt":
            guard let zero = data.firstIndex(of: 0), zero + 2 <= data.endIndex else { return nil }
            let keyword = String(decoding: data[..<zero], as: UTF8.self)
            guard keyword.hasPrefix(rawProfilePrefix) else { return nil }
            let text = try Deflate.inflate(data[(zero + 2)...], format: "PNG")
            guard let clean = try profile(keyword, text) else { return nil }
            return Array(data[...(zero + 1)]) + (try Deflate.deflate(clean, format: "PNG"))
        case "iTXt":
            return try international(data)
        default:
            return nil
        }
    }

    /// An iTXt chunk's data without location: keyword, compression flag and method, language
    /// and translated keyword (both NUL-ended), then the text.
    private static func international(_ data: ArraySlice<UInt8>) throws(MediaError) -> [UInt8]? {
        guard let zero = data.firstIndex(of: 0), data.endIndex - zero >= 3 else { return nil }
        let keyword = String(decoding: data[..<zero], as: UTF8.self)
        guard keyword == xmpKeyword || keyword.hasPrefix(rawProfilePrefix) else { return nil }
        let compressed = data[zero + 1] == 1
        guard let language = data[(zero + 3)...].firstIndex(of: 0), let translated = data[(language + 1)...].firstIndex(of: 0) else {
            throw .corruptData(format: "PNG", reason: "an iTXt chunk's header is not NUL-ended")
        }
        let head = Array(data[...translated])
        let stored = data[(translated + 1)...]
        let text = compressed ? try Deflate.inflate(stored, format: "PNG") : Array(stored)
        let clean: [UInt8]?
        if keyword == xmpKeyword {
            clean = XMPLocation.removingLocation(from: text)
        } else {
            clean = try profile(keyword, text)
        }
        guard let clean else { return nil }
        return head + (compressed ? try Deflate.deflate(clean, format: "PNG") : clean)
    }

    /// A "Raw profile type NAME" text ("\nlabel\n   length\nhex…\n") without location, in the
    /// same form; nil when it has none or is another profile (ICC, …).
    private static func profile(_ keyword: String, _ text: [UInt8]) throws(MediaError) -> [UInt8]? {
        guard keyword.hasPrefix(rawProfilePrefix) else { return nil }
        let name = keyword.dropFirst(rawProfilePrefix.count).lowercased()
        guard ["exif", "app1", "iptc", "8bim", "xmp"].contains(name) else { return nil }
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard lines.count >= 2, let declared = Int(String(decoding: lines[1].filter { $0 != 0x20 }, as: UTF8.self)) else {
            throw .corruptData(format: "PNG", reason: "the \(keyword) chunk has no length line")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(declared, text.count / 2))
        var high: UInt8?
        for character in lines.dropFirst(2).joined() where character != 0x20 && character != 0x0D && character != 0x09 {
            guard let nibble = hexValue(character) else { throw .corruptData(format: "PNG", reason: "the \(keyword) chunk holds a non-hex byte") }
            if let first = high { bytes.append(first << 4 | nibble); high = nil } else { high = nibble }
        }
        guard bytes.count == declared else {
            throw .corruptData(format: "PNG", reason: "the \(keyword) chunk holds \(bytes.count) of its \(declared) bytes")
        }
        let clean: [UInt8]?
        switch name {
        case "xmp": clean = XMPLocation.removingLocation(from: bytes)
        case "iptc", "8bim":
            clean = bytes.first == 0x1C ? try IPTCLocation.removingLocation(fromIIM: bytes[...]) : try IPTCLocation.removingLocation(fromResources: bytes[...])
        default:
            clean = try ExifPayload.containsLocation(bytes) ? try ExifPayload.removingLocation(from: bytes) : nil
        }
        guard let clean else { return nil }
        return encodeProfile(label: lines[0], clean)
    }

    /// ImageMagick's profile text: "\nlabel\n" + the length in 8 columns + "\n" + hex in lines of 72.
    private static func encodeProfile(label: ArraySlice<UInt8>, _ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        let count = String(bytes.count)
        var out: [UInt8] = [0x0A] + label + [0x0A] + Array((String(repeating: " ", count: max(0, 8 - count.count)) + count).utf8) + [0x0A]
        for (index, byte) in bytes.enumerated() {
            out += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            if index % 36 == 35 || index == bytes.count - 1 { out.append(0x0A) }
        }
        return out
    }

    /// The value of a hexadecimal digit.
    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case 0x30...0x39: character - 0x30
        case 0x41...0x46: character - 0x37
        case 0x61...0x66: character - 0x57
        default: nil
        }
    }
}
