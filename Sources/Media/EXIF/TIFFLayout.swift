/// The directory structure of an EXIF block, walked in pure Swift and checked against its bounds
/// before libexif sees it, so damaged input fails with a clear typed error instead of being
/// silently half-read (libexif skips what it cannot read and reports nothing).
///
/// Every IFD reachable from IFD0 (the EXIF, GPS and interoperability IFDs, and IFD1) must lie
/// inside the block, with all its entries' values, and so must IFD1's thumbnail; no two IFDs'
/// entry tables may overlap. Entries of
/// unknown types are kept but not checked, as TIFF readers must skip them.
struct TIFFLayout {
    /// Which IFD a directory is.
    enum Kind: String, Sendable {
        /// The primary image's IFD.
        case ifd0 = "IFD0"
        /// The thumbnail's IFD.
        case ifd1 = "IFD1"
        /// The EXIF sub-IFD.
        case exif = "EXIF IFD"
        /// The GPS sub-IFD.
        case gps = "GPS IFD"
        /// The interoperability sub-IFD.
        case interoperability = "interoperability IFD"
    }

    /// One 12-byte directory entry.
    struct Entry: Sendable {
        /// The tag number.
        let tag: UInt16
        /// The TIFF field type (1 BYTE … 13 IFD).
        let type: UInt16
        /// The number of values.
        let count: UInt32
        /// Index of the entry's first byte in the payload.
        let position: Int
        /// Where the value bytes are in the payload (inside the entry when 4 bytes or fewer);
        /// nil for unknown field types.
        let value: Range<Int>?

        /// True when the value is stored outside the entry, at an offset.
        var isOutOfLine: Bool { value.map { $0.count > 4 } ?? false }
    }

    /// One IFD.
    struct Directory: Sendable {
        /// Which IFD this is.
        let kind: Kind
        /// Index in the payload of its entry count.
        let position: Int
        /// Its entries, in stored order.
        let entries: [Entry]
        /// Whether the 4-byte next-IFD offset after the entries lies inside the block.
        let hasNextPointer: Bool

        /// The bytes of the table: count, entries and (when present) the next-IFD offset.
        var table: Range<Int> { position..<(position + 2 + 12 * entries.count + (hasNextPointer ? 4 : 0)) }
    }

    /// The most IFDs walked; real files have at most five.
    static let maximumDirectories = 32

    /// Index in the payload where the TIFF header starts: 6 after "Exif\0\0", 0 for a bare TIFF block.
    let tiffStart: Int
    /// True for "MM" blocks.
    let bigEndian: Bool
    /// The IFDs found, IFD0 first.
    private(set) var directories: [Directory] = []
    /// The payload walked; every number in it is read through the checked reader.
    private let reader: UntrustedBytes
    /// The payload's bytes.
    private var bytes: [UInt8] { reader.bytes }
    /// The block's byte order for the reader.
    private var order: ByteOrder { bigEndian ? .bigEndian : .littleEndian }

    /// Walks `payload` ("Exif\0\0" + TIFF, or a bare TIFF block). Throws `.corruptData` when the
    /// header is wrong or anything reachable points outside the block.
    init(payload: [UInt8]) throws(MediaError) {
        reader = UntrustedBytes(payload, format: "EXIF")
        tiffStart = try TIFFLayout.tiffStart(of: payload)
        let length = payload.count - tiffStart
        guard length >= 8 else {
            throw TIFFLayout.corrupt("truncated: the TIFF header needs 8 bytes but only \(length) follow the EXIF header")
        }
        switch (payload[tiffStart], payload[tiffStart + 1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        case let (a, b):
            throw TIFFLayout.corrupt("unknown byte order mark \(hex(a))\(hex(b)) (expected II or MM)")
        }
        let magic = try u16(at: tiffStart + 2)
        guard magic == 42 else {
            throw TIFFLayout.corrupt("the TIFF header's magic number is \(magic), not 42")
        }
        var found: [Directory] = []
        var queue: [(Kind, UInt32)] = [(.ifd0, try u32(at: tiffStart + 4))]
        var visited: Set<UInt32> = []
        var next = 0  // a cursor rather than removeFirst(), which would be quadratic in hostile blocks
        while next < queue.count {
            let (kind, offset) = queue[next]
            next += 1
            guard visited.insert(offset).inserted else { continue }
            guard found.count < TIFFLayout.maximumDirectories else {
                throw TIFFLayout.corrupt("more than \(TIFFLayout.maximumDirectories) IFDs are linked together")
            }
            let directory = try readDirectory(kind, at: offset, length: length)
            found.append(directory)
            if kind == .ifd0 {
                let ifd1 = try u32(at: directory.table.upperBound - 4)
                if ifd1 != 0 { queue.append((.ifd1, ifd1)) }
            }
            if kind == .ifd1 { try checkThumbnail(directory, length: length) }
            guard kind != .gps else { continue }
            for entry in directory.entries {
                let child: Kind
                switch entry.tag {
                case ExifTagNumber.exifIFDPointer: child = .exif
                case ExifTagNumber.gpsIFDPointer: child = .gps
                case ExifTagNumber.interoperabilityIFDPointer: child = .interoperability
                default: continue
                }
                guard entry.type == 4 || entry.type == 13, entry.count == 1 else {
                    throw TIFFLayout.corrupt("the \(child.rawValue) pointer in \(kind.rawValue) is \(entry.count) values of type \(entry.type), not one LONG")
                }
                let target = try u32(at: entry.position + 8)
                if target != 0 { queue.append((child, target)) }
            }
        }
        let tables = found.map { ($0.kind, $0.position..<($0.position + 2 + 12 * $0.entries.count)) }.sorted { $0.1.lowerBound < $1.1.lowerBound }
        for (a, b) in zip(tables, tables.dropFirst()) where a.1.overlaps(b.1) {
            throw TIFFLayout.corrupt("the \(a.0.rawValue) and the \(b.0.rawValue) overlap")
        }
        directories = found
    }

    /// A copy of the payload with every GPS IFD, the values it points to and the pointers to it
    /// removed: the GPS bytes are zeroed and each pointer entry is taken out of its table (the
    /// table shrinks by 12 bytes, left as zeros). Nothing else moves, so maker notes and other
    /// offsets stay valid and the block keeps its length.
    func removingGPS() -> [UInt8] {
        var out = bytes
        for directory in directories where directory.kind == .gps {
            for entry in directory.entries where entry.isOutOfLine { zero(&out, entry.value!) }
            zero(&out, directory.table)
        }
        for directory in directories where directory.kind != .gps && directory.entries.contains(where: { $0.tag == ExifTagNumber.gpsIFDPointer }) {
            let kept = directory.entries.filter { $0.tag != ExifTagNumber.gpsIFDPointer }
            var table = bigEndian ? [UInt8(kept.count >> 8), UInt8(kept.count & 0xFF)] : [UInt8(kept.count & 0xFF), UInt8(kept.count >> 8)]
            for entry in kept { table += bytes[entry.position..<(entry.position + 12)] }
            if directory.hasNextPointer { table += bytes[(directory.table.upperBound - 4)..<directory.table.upperBound] }
            zero(&out, directory.table)
            out.replaceSubrange(directory.position..<(directory.position + table.count), with: table)
        }
        return out
    }

    /// True when some IFD points to a GPS IFD.
    var hasGPSPointer: Bool {
        directories.contains { $0.kind != .gps && $0.entries.contains { $0.tag == ExifTagNumber.gpsIFDPointer } }
    }

    /// Reads the IFD at TIFF offset `offset`, checking that its table and every value lie in the block.
    private func readDirectory(_ kind: Kind, at offset: UInt32, length: Int) throws(MediaError) -> Directory {
        guard offset >= 8, Int(offset) <= length - 2 else {
            throw TIFFLayout.corrupt("the \(kind.rawValue) offset \(offset) is outside the \(length)-byte TIFF block")
        }
        let start = try reader.sum(tiffStart, Int(offset))
        let count = Int(try u16(at: start))
        guard reader.contains(start, length: try reader.sum(2, reader.product(12, count))) else {
            throw TIFFLayout.corrupt("the \(kind.rawValue) at offset \(offset) lists \(count) entries, which run past the end of the \(length)-byte TIFF block (truncated?)")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for index in 0..<count {
            let position = start + 2 + 12 * index
            let tag = try u16(at: position), type = try u16(at: position + 2), components = try u32(at: position + 4)
            var value: Range<Int>?
            if let unit = TIFFLayout.unitSize(ofType: type) {
                let size = try reader.product(Int(components), unit)
                if size <= 4 {
                    value = try reader.range(at: position + 8, length: size)
                } else {
                    let dataOffset = try u32(at: position + 8)
                    guard let range = try? reader.range(at: reader.sum(tiffStart, Int(dataOffset)), length: size) else {
                        throw TIFFLayout.corrupt("tag 0x\(hex(tag)) in \(kind.rawValue) has \(size) bytes of data at offset \(dataOffset), past the end of the \(length)-byte TIFF block")
                    }
                    value = range
                }
            }
            entries.append(Entry(tag: tag, type: type, count: components, position: position, value: value))
        }
        let hasNext = Int(offset) + 2 + 12 * count + 4 <= length
        guard hasNext || kind != .ifd0 else {
            throw TIFFLayout.corrupt("truncated: IFD0 ends at byte \(Int(offset) + 2 + 12 * count) of the TIFF block, without its next-IFD offset")
        }
        return Directory(kind: kind, position: start, entries: entries, hasNextPointer: hasNext)
    }

    /// Checks that IFD1's JPEG thumbnail, when it declares one, lies in the block.
    private func checkThumbnail(_ directory: Directory, length: Int) throws(MediaError) {
        /// The first value of a SHORT or LONG entry of IFD1.
        func value(_ tag: UInt16) throws(MediaError) -> Int? {
            guard let entry = directory.entries.first(where: { $0.tag == tag }), let range = entry.value, range.count >= 2 else { return nil }
            return range.count >= 4 ? Int(try u32(at: range.lowerBound)) : Int(try u16(at: range.lowerBound))
        }
        guard let offset = try value(ExifTagNumber.thumbnailOffset), let size = try value(ExifTagNumber.thumbnailLength) else { return }
        guard reader.contains(tiffStart + offset, length: size) else {
            throw TIFFLayout.corrupt("the \(size)-byte thumbnail at offset \(offset) runs past the end of the \(length)-byte TIFF block")
        }
    }

    /// The 16-bit value at payload index `i`, in the block's byte order (through the checked reader).
    func u16(at i: Int) throws(MediaError) -> UInt16 { try reader.u16(at: i, order) }

    /// The 32-bit value at payload index `i`, in the block's byte order (through the checked reader).
    func u32(at i: Int) throws(MediaError) -> UInt32 { try reader.u32(at: i, order) }

    /// Where the TIFF header starts: after "Exif\0\0", or at 0 for a block that starts with a TIFF header.
    static func tiffStart(of payload: [UInt8]) throws(MediaError) -> Int {
        if payload.starts(with: ExifPayload.header) { return ExifPayload.header.count }
        if payload.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) || payload.starts(with: [0x49, 0x49, 0x2A, 0x00]) { return 0 }
        if payload.count < ExifPayload.header.count {
            throw corrupt("only \(payload.count) bytes, too short for an EXIF header")
        }
        throw corrupt("it starts with neither \"Exif\\0\\0\" nor a TIFF header")
    }

    /// Bytes per value of a TIFF field type, or nil for unknown types.
    static func unitSize(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// The error for a structurally damaged EXIF block.
    static func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: "EXIF", reason: reason)
    }
}

/// Zeroes `range` of `bytes`.
private func zero(_ bytes: inout [UInt8], _ range: Range<Int>) {
    bytes.replaceSubrange(range, with: repeatElement(0, count: range.count))
}

/// Upper-case hexadecimal, two digits per byte.
func hex<T: FixedWidthInteger>(_ value: T) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, T.bitWidth / 4 - digits.count)) + digits
}
