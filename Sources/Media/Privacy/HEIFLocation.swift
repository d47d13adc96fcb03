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
        guard let iloc = ISOBox.first("iloc", in: boxes) else { throw HEIFItems.corrupt("metadata items but no item locations (iloc)") }
        let idat = ISOBox.first("idat", in: boxes)?.payload
        let locations = try HEIFItems.extents(iloc, in: file, idat: idat, fileSize: heif.count)
        var edits: [LocationEdit] = []
        for (id, content) in items.sorted(by: { $0.key < $1.key }) {
            if locations.builtFromOthers.contains(id) { throw .unsupported("removing the location from HEIF item \(id), built from other items") }
            guard let ranges = locations.ranges[id] else { continue }  // stored in another file
            var data: [UInt8] = []
            for range in ranges { data += heif[range] }
            let clean: [UInt8]?
            switch content {
            case .xmp:
                clean = XMPLocation.removingLocation(from: data)
            case .exif:
                guard let offset = UntrustedBytes.bigEndian(data[...], at: 0, count: 4), let start = checkedSum(offset, 4), start < data.count else {
                    throw HEIFItems.corrupt("Exif item \(id)'s offset to its TIFF header points past its end")
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
            throw HEIFItems.corrupt("two metadata items share bytes")
        }
        return edits
    }

    /// The metadata items listed by `iinf`, by item ID.
    private static func metadataItems(_ iinf: ISOBox, in file: ArraySlice<UInt8>) throws(MediaError) -> [Int: Content] {
        var items: [Int: Content] = [:]
        for (id, info) in try HEIFItems.infos(iinf, in: file) {
            if info.type == "Exif" {
                items[id] = .exif
            } else if info.type == "mime" {
                guard info.contentType.lowercased().hasPrefix("application/rdf+xml") else { continue }
                guard info.encoding.isEmpty else { throw .unsupported("removing the location from an XMP item stored with \(info.encoding) encoding") }
                items[id] = .xmp
            }
        }
        return items
    }
}
