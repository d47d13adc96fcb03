/// Location datasets taken out of IPTC-IIM data (the IPTC "NAA" block), and out of the Photoshop
/// image resources that carry it (JPEG's APP13, PNG's "Raw profile type iptc"). Which datasets are
/// a location is `LocationMetadata`'s to say; every other dataset and resource is copied as it was.
///
/// Every length is checked against the data before it is used; damaged data throws
/// `.corruptData(format: "IPTC", …)`, never traps.
enum IPTCLocation {
    /// The Photoshop resource that holds IPTC-IIM data.
    static let iptcResource: UInt16 = 0x0404
    /// The Photoshop resource that holds the MD5 digest of the IPTC data (stale once it changes).
    static let digestResource: UInt16 = 0x0425
    /// The header of a JPEG APP13 segment's Photoshop resources.
    static let photoshopHeader = Array("Photoshop 3.0\0".utf8)

    /// `data` (a sequence of IIM datasets) without its location datasets; nil when it has none.
    static func removingLocation(fromIIM data: ArraySlice<UInt8>) throws(MediaError) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var position = data.startIndex
        var removed = false
        while position < data.endIndex {
            guard data[position] == 0x1C else {
                // Writers pad the block with zeros; anything else is damage.
                guard data[position...].allSatisfy({ $0 == 0 }) else { throw corrupt("byte \(position - data.startIndex) is no dataset tag (0x1C)") }
                out += data[position...]
                break
            }
            guard data.endIndex - position >= 5 else { throw corrupt("a dataset header runs past the end") }
            let record = data[position + 1], dataset = data[position + 2]
            guard var length = UntrustedBytes.bigEndian(data, at: position + 3, count: 2) else { throw corrupt("a dataset header runs past the end") }
            var start = position + 5
            if length & 0x8000 != 0 {
                // Extended dataset: the low bits say how many bytes of length follow.
                let count = length & 0x7FFF
                guard count >= 1, count <= 4, data.endIndex - start >= count else { throw corrupt("an extended dataset's length is malformed") }
                guard let extended = UntrustedBytes.bigEndian(data, at: start, count: count) else { throw corrupt("an extended dataset's length is malformed") }
                length = extended
                start += count
            }
            guard length <= data.endIndex - start else { throw corrupt("dataset \(record):\(dataset) declares \(length) bytes, past the end") }
            let end = start + length
            if record == LocationMetadata.iptcRecord && LocationMetadata.iptcDatasets.contains(dataset) {
                removed = true
            } else {
                out += data[position..<end]
            }
            position = end
        }
        return removed ? out : nil
    }

    /// Photoshop image resources (a sequence of "8BIM" blocks) with the location datasets taken
    /// out of their IPTC resource, and the IPTC digest dropped when they were (it would no longer
    /// match); nil when there were none.
    static func removingLocation(fromResources data: ArraySlice<UInt8>) throws(MediaError) -> [UInt8]? {
        var blocks: [(id: UInt16, bytes: ArraySlice<UInt8>, header: ArraySlice<UInt8>, payload: ArraySlice<UInt8>)] = []
        var position = data.startIndex
        while data.endIndex - position >= 12 {
            let signature = String(decoding: data[position..<(position + 4)], as: UTF8.self)
            guard ["8BIM", "PHUT", "AgHg", "DCSR", "MeSa"].contains(signature) else {
                guard data[position...].allSatisfy({ $0 == 0 }) else { throw corrupt("a Photoshop resource without its signature") }
                break
            }
            guard let id = UntrustedBytes.bigEndian(data, at: position + 4, count: 2).map(UInt16.init) else { throw corrupt("a Photoshop resource header runs past the end") }
            let nameLength = Int(data[position + 6])
            let nameEnd = position + 6 + ((1 + nameLength + 1) & ~1)  // the Pascal name, padded to even
            guard data.endIndex - nameEnd >= 4 else { throw corrupt("resource 0x\(hex(id)) runs past the end") }
            guard let size = UntrustedBytes.bigEndian(data, at: nameEnd, count: 4) else { throw corrupt("resource 0x\(hex(id)) runs past the end") }
            guard size <= data.endIndex - nameEnd - 4 else { throw corrupt("resource 0x\(hex(id)) declares \(size) bytes, past the end") }
            let payloadEnd = nameEnd + 4 + size
            let end = min(payloadEnd + (size & 1), data.endIndex)
            blocks.append((id, data[position..<end], data[position..<nameEnd], data[(nameEnd + 4)..<payloadEnd]))
            position = end
        }
        var changed = false
        var out: [UInt8] = []
        for block in blocks where block.id == iptcResource {
            if try removingLocation(fromIIM: block.payload) != nil { changed = true }
        }
        guard changed else { return nil }
        for block in blocks {
            switch block.id {
            case digestResource:
                continue
            case iptcResource:
                let payload = try removingLocation(fromIIM: block.payload) ?? Array(block.payload)
                out += block.header
                out += [UInt8(payload.count >> 24 & 0xFF), UInt8(payload.count >> 16 & 0xFF), UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
                out += payload
                if payload.count & 1 == 1 { out.append(0) }
            default:
                out += block.bytes
            }
        }
        out += data[position...]
        return out
    }

    /// The error for damaged IPTC data.
    private static func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: "IPTC", reason: reason)
    }
}
