/// Where a HEIF keeps a location: in its metadata items — every `Exif` item and every `mime`
/// item holding XMP (application/rdf+xml), whichever image they describe (the primary one, the
/// others, thumbnails). Items are found through `iinf` and their bytes through `iloc` (in the
/// file or in `idat`), and edited in place to the same length, so no offset in the file changes.
enum HEIFLocation {
    /// What a metadata item holds.
    private enum Content {
        /// An `Exif` item: a 4-byte offset to the TIFF header, then the EXIF block.
        case exif
        /// An XMP packet.
        case xmp
    }

    /// The edits that remove the location from `heif`; empty when it has none.
    static func edits(in heif: [UInt8]) throws(MediaError) -> [LocationEdit] {
        let file = heif[...]
        let top = try ISOBox.children(in: file, range: 0..<heif.count, format: "HEIF")
        guard let meta = ISOBox.first("meta", in: top), meta.payload.count >= 4 else { return [] }
        let boxes = try ISOBox.children(in: file, range: (meta.payload.lowerBound + 4)..<meta.payload.upperBound, format: "HEIF")
        guard let iinf = ISOBox.first("iinf", in: boxes) else { return [] }
        let items = try metadataItems(iinf, in: file)
        guard !items.isEmpty else { return [] }
        guard let iloc = ISOBox.first("iloc", in: boxes) else { throw corrupt("metadata items but no item locations (iloc)") }
        let idat = ISOBox.first("idat", in: boxes)?.payload
        let locations = try extents(iloc, in: file, idat: idat, fileSize: heif.count)
        var edits: [LocationEdit] = []
        for (id, content) in items.sorted(by: { $0.key < $1.key }) {
            guard let ranges = locations[id] else { continue }  // stored in another file
            var data: [UInt8] = []
            for range in ranges { data += heif[range] }
            let clean: [UInt8]?
            switch content {
            case .xmp:
                clean = XMPLocation.removingLocation(from: data)
            case .exif:
                guard let offset = UntrustedBytes.bigEndian(data[...], at: 0, count: 4), let start = checkedSum(offset, 4), start < data.count else {
                    throw corrupt("Exif item \(id)'s offset to its TIFF header points past its end")
                }
                let block = Array(data[start...])
                clean = try ExifPayload.containsLocation(block) ? Array(data[..<start]) + (try ExifPayload.removingLocation(from: block)) : nil
            }
            guard let clean else { continue }
            var consumed = 0
            for range in ranges {
                edits.append(LocationEdit(range: range, replacement: Array(clean[consumed..<(consumed + range.count)])))
                consumed += range.count
            }
        }
        let sorted = edits.map(\.range).sorted { $0.lowerBound < $1.lowerBound }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.overlaps(b) {
            throw corrupt("two metadata items share bytes")
        }
        return edits
    }

    /// The metadata items listed by `iinf`, by item ID.
    private static func metadataItems(_ iinf: ISOBox, in file: ArraySlice<UInt8>) throws(MediaError) -> [Int: Content] {
        guard let version = UntrustedBytes.bigEndian(file, at: iinf.payload.lowerBound, count: 1) else { throw corrupt("the iinf box is empty") }
        let entries = iinf.payload.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard entries <= iinf.payload.upperBound else { throw corrupt("the iinf box is too short") }
        var items: [Int: Content] = [:]
        for infe in try ISOBox.children(in: file, range: entries..<iinf.payload.upperBound, format: "HEIF") where infe.name == "infe" {
            let body = file[infe.payload]
            guard let entryVersion = UntrustedBytes.bigEndian(body, at: body.startIndex, count: 1) else { throw corrupt("an infe box is empty") }
            var position = body.startIndex + 4
            let idSize = entryVersion == 3 ? 4 : 2
            guard let id = UntrustedBytes.bigEndian(body, at: position, count: idSize) else { throw corrupt("an infe box is too short") }
            position += idSize + 2  // item_protection_index
            var type = "mime"
            if entryVersion >= 2 {
                guard position + 4 <= body.endIndex else { throw corrupt("item \(id)'s infe box is too short") }
                type = String(decoding: body[position..<(position + 4)], as: UTF8.self)
                position += 4
            }
            let strings = body[min(position, body.endIndex)...].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            if type == "Exif" {
                items[id] = .exif
            } else if type == "mime" {
                // Versions 2 and 3: name, content type, encoding; 0 and 1: the same three.
                let contentType = strings.count > 1 ? strings[1] : ""
                let encoding = strings.count > 2 ? strings[2] : ""
                guard contentType.lowercased().hasPrefix("application/rdf+xml") else { continue }
                guard encoding.isEmpty else { throw .unsupported("removing the location from an XMP item stored with \(encoding) encoding") }
                items[id] = .xmp
            }
        }
        return items
    }

    /// Where each item's bytes are in the file, extent by extent, from `iloc`.
    private static func extents(_ iloc: ISOBox, in file: ArraySlice<UInt8>, idat: Range<Int>?, fileSize: Int) throws(MediaError) -> [Int: [Range<Int>]] {
        let body = file[iloc.payload]
        guard let version = UntrustedBytes.bigEndian(body, at: body.startIndex, count: 1), version <= 2,
              let sizes = UntrustedBytes.bigEndian(body, at: body.startIndex + 4, count: 2) else { throw corrupt("the iloc box is too short or of an unknown version") }
        let offsetSize = sizes >> 12, lengthSize = sizes >> 8 & 0xF, baseSize = sizes >> 4 & 0xF
        let indexSize = version >= 1 ? sizes & 0xF : 0
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize), [0, 4, 8].contains(indexSize) else {
            throw corrupt("the iloc box's field sizes are not 0, 4 or 8")
        }
        var position = body.startIndex + 6
        /// Reads the next `count`-byte field.
        func field(_ count: Int) throws(MediaError) -> Int {
            guard let value = UntrustedBytes.bigEndian(body, at: position, count: count) else { throw corrupt("the iloc box ends inside an item") }
            position += count
            return value
        }
        let itemCount = try field(version < 2 ? 2 : 4)
        var result: [Int: [Range<Int>]] = [:]
        for _ in 0..<min(itemCount, body.count) {
            let id = try field(version < 2 ? 2 : 4)
            let method = version >= 1 ? try field(2) & 0xF : 0
            let reference = try field(2)
            let base = try field(baseSize)
            let extentCount = try field(2)
            var ranges: [Range<Int>] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { _ = try field(indexSize) }
                let offset = try field(offsetSize), length = try field(lengthSize)
                guard reference == 0 else { continue }
                let (origin, limit): (Int, Int)
                switch method {
                case 0: (origin, limit) = (0, fileSize)
                case 1:
                    guard let idat else { throw corrupt("item \(id) is stored in an idat box the file does not have") }
                    (origin, limit) = (idat.lowerBound, idat.upperBound)
                default: throw .unsupported("removing the location from HEIF item \(id), built from other items")
                }
                guard let start = checkedSum(origin, base, offset), start <= limit else { throw corrupt("item \(id) starts past the end of its data") }
                let end = length == 0 ? limit : checkedSum(start, length)
                guard let end, end <= limit else { throw corrupt("item \(id) runs past the end of its data") }
                ranges.append(start..<end)
            }
            if reference == 0 { result[id] = ranges }
        }
        return result
    }

    /// The error for a damaged HEIF structure.
    private static func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: "HEIF", reason: reason)
    }
}
