/// Where a JPEG keeps a location: EXIF (APP1 "Exif"), XMP (APP1, its main packet and the
/// extended packet split over more APP1 segments) and IPTC (APP13's Photoshop resources); in
/// the main image and in every image stored after it (MPF's second pictures, depth and gain
/// maps, each a JPEG of its own with its own segments). Image data is never touched.
enum JPEGLocation {
    /// The header of an APP1 XMP packet.
    static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    /// The header of an APP1 extended XMP part (then a 32-byte GUID, the full length, the offset).
    static let extendedXMPHeader = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    /// The edits that remove the location from `jpeg`; empty when it has none.
    static func edits(in jpeg: [UInt8]) throws(MediaError) -> [LocationEdit] {
        let header = try JPEGSegment.header(of: jpeg)
        var edits = try imageEdits(in: jpeg, at: 0, segments: header)
        // Images stored after the first: each starts with SOI and a marker, which entropy-coded
        // data cannot contain (a 0xFF there is followed by 0x00 or a restart marker).
        var search = header.last?.end ?? jpeg.count
        while let start = nextImage(in: jpeg, from: search) {
            let tail = Array(jpeg[start...])
            guard let segments = try? JPEGSegment.header(of: tail) else {
                search = start + 2
                continue
            }
            edits += try imageEdits(in: tail, at: start, segments: segments)
            search = start + (segments.last?.end ?? 2)
        }
        return edits
    }

    /// The edits for one image whose header `segments` were walked in `jpeg`, which starts at
    /// `base` in the file.
    private static func imageEdits(in jpeg: [UInt8], at base: Int, segments: [JPEGSegment]) throws(MediaError) -> [LocationEdit] {
        var edits: [LocationEdit] = []
        var extended: [[UInt8]: [JPEGSegment]] = [:]
        for segment in segments {
            let payload = jpeg[segment.payload]
            if segment.isExif(in: jpeg) {
                let block = Array(payload)
                if try ExifPayload.containsLocation(block) {
                    edits.append(LocationEdit(range: shifted(segment.payload, by: base), replacement: try ExifPayload.removingLocation(from: block)))
                }
            } else if segment.marker == 0xE1, payload.starts(with: xmpHeader) {
                let start = segment.payload.lowerBound + xmpHeader.count
                if let clean = XMPLocation.removingLocation(from: Array(jpeg[start..<segment.payload.upperBound])) {
                    edits.append(LocationEdit(range: shifted(start..<segment.payload.upperBound, by: base), replacement: clean))
                }
            } else if segment.marker == 0xE1, payload.starts(with: extendedXMPHeader), payload.count >= extendedXMPHeader.count + 40 {
                let guid = Array(payload.dropFirst(extendedXMPHeader.count).prefix(32))
                extended[guid, default: []].append(segment)
            } else if segment.marker == 0xED, payload.starts(with: IPTCLocation.photoshopHeader) {
                let resources = jpeg[(segment.payload.lowerBound + IPTCLocation.photoshopHeader.count)..<segment.payload.upperBound]
                if let clean = try IPTCLocation.removingLocation(fromResources: resources) {
                    let length = IPTCLocation.photoshopHeader.count + clean.count + 2
                    let bytes = [0xFF, 0xED] + BigEndian.bytes(length, count: 2) + IPTCLocation.photoshopHeader + clean
                    edits.append(LocationEdit(range: shifted(segment.start..<segment.end, by: base), replacement: bytes))
                }
            }
        }
        for parts in extended.values { edits += try extendedXMPEdits(parts, in: jpeg, at: base) }
        return edits
    }

    /// The edits for one extended XMP packet, whose parts are `parts`: put together by their
    /// offsets, cleaned as one packet, and written back into the same parts (the same lengths).
    private static func extendedXMPEdits(_ parts: [JPEGSegment], in jpeg: [UInt8], at base: Int) throws(MediaError) -> [LocationEdit] {
        let headerLength = extendedXMPHeader.count + 40
        var pieces: [(offset: Int, data: Range<Int>)] = []
        var total = 0
        for part in parts {
            let fields = part.payload.lowerBound + extendedXMPHeader.count + 32
            guard let full = UntrustedBytes.bigEndian(jpeg[part.payload], at: fields, count: 4),
                  let offset = UntrustedBytes.bigEndian(jpeg[part.payload], at: fields + 4, count: 4) else { continue }
            total = full
            pieces.append((offset, (part.payload.lowerBound + headerLength)..<part.payload.upperBound))
        }
        pieces.sort { $0.offset < $1.offset }
        var packet: [UInt8] = []
        for piece in pieces {
            guard piece.offset == packet.count else {
                throw .corruptData(format: "JPEG", reason: "the extended XMP's parts do not follow each other")
            }
            packet += jpeg[piece.data]
        }
        guard packet.count == total else { throw .corruptData(format: "JPEG", reason: "the extended XMP is \(packet.count) of its \(total) bytes") }
        guard let clean = XMPLocation.removingLocation(from: packet) else { return [] }
        return pieces.map { LocationEdit(range: shifted($0.data, by: base), replacement: Array(clean[$0.offset..<($0.offset + $0.data.count)])) }
    }

    /// Where the next embedded JPEG (SOI followed by a marker) starts at or after `from`.
    private static func nextImage(in jpeg: [UInt8], from: Int) -> Int? {
        var index = max(from, 0)
        while index + 3 <= jpeg.count {
            guard let found = jpeg[index..<(jpeg.count - 2)].firstIndex(of: 0xFF) else { return nil }
            if jpeg[found + 1] == 0xD8, jpeg[found + 2] == 0xFF { return found }
            index = found + 1
        }
        return nil
    }

    /// `range` moved by `base`.
    private static func shifted(_ range: Range<Int>, by base: Int) -> Range<Int> {
        (range.lowerBound + base)..<(range.upperBound + base)
    }
}
