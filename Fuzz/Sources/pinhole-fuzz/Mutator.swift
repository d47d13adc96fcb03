import CFuzzer

/// Structure-aware mutation: libFuzzer's byte-level changes rarely keep a file parseable, so
/// half the time the mutator finds the input's length and count fields — ISO boxes (MP4, MOV,
/// HEIF: sizes, 64-bit sizes, the counts of sample tables and item lists), TIFF IFDs (EXIF:
/// entry counts, types, value counts, offsets), JPEG segment lengths and frame sizes, PNG and
/// RIFF chunk lengths and canvas sizes — and sets one to a value that tests the reader (0, 1,
/// the bytes left, one past them, the largest of its width…), or copies, drops or repeats a
/// whole box, chunk or segment. The rest of the time libFuzzer mutates the bytes itself.
struct StructureMutator {
    /// A field of an input: where it is, how wide (1, 2, 3, 4 or 8 bytes) and in which byte order.
    struct Field {
        /// Its first byte.
        let offset: Int
        /// Its width in bytes.
        let width: Int
        /// Whether its most significant byte comes first.
        let bigEndian: Bool
        /// The bytes after the field to the end of what it describes (for "the bytes left").
        let room: Int
    }

    /// The fields and the whole units (boxes, chunks, segments) of an input.
    var fields: [Field] = []
    /// Ranges of the input that are whole units a mutation may copy, drop or repeat.
    var units: [Range<Int>] = []

    /// Reads the structure of `bytes`, whichever format they look like (nothing for others).
    init(_ bytes: [UInt8]) {
        if bytes.starts(with: [0xFF, 0xD8]) {
            jpeg(bytes)
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            png(bytes)
        } else if bytes.starts(with: Array("RIFF".utf8)) {
            riff(bytes)
        } else if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
            tiff(bytes, base: 0)
        } else if bytes.count >= 8, bytes[4..<8].allSatisfy({ (0x20...0x7E).contains($0) }) {
            boxes(bytes, in: 0..<bytes.count, depth: 0)
        }
    }

    /// Reads `count` bytes at `offset` as a number (nil past the end).
    static func read(_ bytes: [UInt8], _ offset: Int, _ count: Int, bigEndian: Bool = true) -> Int? {
        guard offset >= 0, count > 0, offset + count <= bytes.count else { return nil }
        let slice = bytes[offset..<(offset + count)]
        return (bigEndian ? Array(slice) : slice.reversed()).reduce(0) { $0 << 8 | Int($1) }
    }

    /// Box types whose payload is a list of boxes, with the bytes before the list (full boxes).
    static let containers: [String: Int] = [
        "moov": 0, "trak": 0, "mdia": 0, "minf": 0, "stbl": 0, "moof": 0, "traf": 0, "mvex": 0, "edts": 0, "dinf": 0,
        "udta": 0, "iprp": 0, "ipco": 0, "meta": 4, "iref": 4, "iinf": 6, "stsd": 8,
    ]
    /// Box types holding a count (as the first field after the full box's version and flags),
    /// and its offset from the payload's start when it is elsewhere.
    static let counted: [String: Int] = [
        "stts": 4, "stsc": 4, "stco": 4, "co64": 4, "ctts": 4, "stss": 4, "trun": 4, "stsz": 8, "iloc": 6, "ipma": 4,
        "dref": 4, "elst": 4, "sbgp": 8, "sgpd": 8, "saiz": 8, "saio": 4,
    ]

    /// ISO boxes within `range`, recursively.
    mutating func boxes(_ bytes: [UInt8], in range: Range<Int>, depth: Int) {
        var position = range.lowerBound
        while depth < 8, position + 8 <= range.upperBound, let size32 = Self.read(bytes, position, 4) {
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            var header = 8
            var size = size32
            if size32 == 1, let large = Self.read(bytes, position + 8, 8) {
                fields.append(Field(offset: position + 8, width: 8, bigEndian: true, room: range.upperBound - position))
                header = 16
                size = large
            } else if size32 == 0 {
                size = range.upperBound - position
            }
            fields.append(Field(offset: position, width: 4, bigEndian: true, room: range.upperBound - position))
            guard size >= header, size <= range.upperBound - position else { return }
            let payload = (position + header)..<(position + size)
            units.append(position..<(position + size))
            if let at = Self.counted[type], payload.lowerBound + at + 4 <= payload.upperBound {
                fields.append(Field(offset: payload.lowerBound + at, width: 4, bigEndian: true, room: payload.upperBound - payload.lowerBound - at))
            }
            if type == "ispe", payload.count >= 12 {
                fields.append(Field(offset: payload.lowerBound + 4, width: 4, bigEndian: true, room: 0))
                fields.append(Field(offset: payload.lowerBound + 8, width: 4, bigEndian: true, room: 0))
            }
            if let skip = Self.containers[type], payload.lowerBound + skip <= payload.upperBound {
                boxes(bytes, in: (payload.lowerBound + skip)..<payload.upperBound, depth: depth + 1)
            }
            position += size
        }
    }

    /// A TIFF block's IFDs (EXIF) starting at `base`: entry counts, each entry's type, count and
    /// value or offset, the next-IFD offsets, following the EXIF, GPS and interoperability IFDs.
    mutating func tiff(_ bytes: [UInt8], base: Int) {
        let bigEndian = Self.read(bytes, base, 1) == 0x4D
        guard var next = Self.read(bytes, base + 4, 4, bigEndian: bigEndian) else { return }
        fields.append(Field(offset: base + 4, width: 4, bigEndian: bigEndian, room: bytes.count - base))
        var seen: Set<Int> = []
        var pending: [Int] = []
        while true {
            if next == 0 || seen.contains(next) || seen.count > 16 {
                guard let another = pending.popLast() else { return }
                next = another
                continue
            }
            seen.insert(next)
            let ifd = base + next
            guard let count = Self.read(bytes, ifd, 2, bigEndian: bigEndian) else { next = 0; continue }
            fields.append(Field(offset: ifd, width: 2, bigEndian: bigEndian, room: bytes.count - ifd))
            for index in 0..<min(count, 256) {
                let entry = ifd + 2 + index * 12
                guard let tag = Self.read(bytes, entry, 2, bigEndian: bigEndian), entry + 12 <= bytes.count else { break }
                units.append(entry..<(entry + 12))
                fields.append(Field(offset: entry + 2, width: 2, bigEndian: bigEndian, room: 0))
                fields.append(Field(offset: entry + 4, width: 4, bigEndian: bigEndian, room: bytes.count - entry))
                fields.append(Field(offset: entry + 8, width: 4, bigEndian: bigEndian, room: bytes.count - base))
                if [0x8769, 0x8825, 0xA005].contains(tag), let pointer = Self.read(bytes, entry + 8, 4, bigEndian: bigEndian) {
                    pending.append(pointer)
                }
            }
            let link = ifd + 2 + min(count, 256) * 12
            next = Self.read(bytes, link, 4, bigEndian: bigEndian) ?? 0
            if next != 0 { fields.append(Field(offset: link, width: 4, bigEndian: bigEndian, room: bytes.count - base)) }
        }
    }

    /// A JPEG's header segments: lengths, a frame header's height, width and component count, and
    /// an EXIF segment's TIFF block.
    mutating func jpeg(_ bytes: [UInt8]) {
        var position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            if (0xD0...0xD7).contains(marker) || marker == 0x01 || marker == 0xFF { position += marker == 0xFF ? 1 : 2; continue }
            guard marker != 0xD9, let length = Self.read(bytes, position + 2, 2) else { return }
            fields.append(Field(offset: position + 2, width: 2, bigEndian: true, room: bytes.count - position - 2))
            let end = min(bytes.count, position + 2 + length)
            units.append(position..<end)
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), position + 10 <= bytes.count {
                fields.append(Field(offset: position + 5, width: 2, bigEndian: true, room: 0))
                fields.append(Field(offset: position + 7, width: 2, bigEndian: true, room: 0))
                fields.append(Field(offset: position + 9, width: 1, bigEndian: true, room: 0))
            }
            if marker == 0xE1, bytes[(position + 4)...].starts(with: Array("Exif".utf8) + [0, 0]) { tiff(bytes, base: position + 10) }
            if marker == 0xDA { return }
            position = end
        }
    }

    /// A PNG's chunks: lengths, the header's width and height, an eXIf chunk's TIFF block.
    mutating func png(_ bytes: [UInt8]) {
        var position = 8
        while position + 12 <= bytes.count, let length = Self.read(bytes, position, 4) {
            fields.append(Field(offset: position, width: 4, bigEndian: true, room: bytes.count - position - 12))
            let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
            let end = position + 12 + length
            guard end <= bytes.count else { return }
            units.append(position..<end)
            if type == "IHDR" {
                fields.append(Field(offset: position + 8, width: 4, bigEndian: true, room: 0))
                fields.append(Field(offset: position + 12, width: 4, bigEndian: true, room: 0))
            }
            if type == "eXIf" { tiff(bytes, base: position + 8) }
            position = end
        }
    }

    /// A RIFF (WebP) file's chunks: the file's and each chunk's length (little-endian), VP8X's
    /// canvas size, an EXIF chunk's TIFF block.
    mutating func riff(_ bytes: [UInt8]) {
        fields.append(Field(offset: 4, width: 4, bigEndian: false, room: bytes.count - 8))
        var position = 12
        while position + 8 <= bytes.count, let length = Self.read(bytes, position + 4, 4, bigEndian: false) {
            fields.append(Field(offset: position + 4, width: 4, bigEndian: false, room: bytes.count - position - 8))
            let type = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
            let end = position + 8 + length + length % 2
            guard end <= bytes.count else { return }
            units.append(position..<end)
            if type == "VP8X", length >= 10 {
                fields.append(Field(offset: position + 12, width: 3, bigEndian: false, room: 0))
                fields.append(Field(offset: position + 15, width: 3, bigEndian: false, room: 0))
            }
            if type == "EXIF" { tiff(bytes, base: position + 8 + (bytes[(position + 8)...].starts(with: Array("Exif".utf8) + [0, 0]) ? 6 : 0)) }
            position = end
        }
    }

    /// One mutation of `bytes` chosen by `random`, within `maximumSize`; nil when the input has no
    /// structure this mutator knows.
    func mutate(_ bytes: [UInt8], maximumSize: Int, random: inout SplitMix) -> [UInt8]? {
        guard !fields.isEmpty || !units.isEmpty else { return nil }
        var out = bytes
        if units.isEmpty || (!fields.isEmpty && random.below(4) != 0) {
            let field = fields[random.below(fields.count)]
            let largest = field.width >= 8 ? Int.max : (1 << (field.width * 8)) - 1
            let current = Self.read(bytes, field.offset, field.width, bigEndian: field.bigEndian) ?? 0
            // Wrapping arithmetic: the field's value is cut to its width below.
            let choices = [0, 1, 2, 7, 8, 16, largest, largest / 2, largest / 2 &+ 1, field.room, field.room &+ 1, field.room &- 1,
                           current &+ 1, current &- 1, current &* 2, current / 2, random.below(256), random.below(65_536)]
            let value = choices[random.below(choices.count)] & largest
            for index in 0..<field.width where field.offset + index < out.count {
                let shift = field.bigEndian ? (field.width - 1 - index) * 8 : index * 8
                out[field.offset + index] = UInt8(truncatingIfNeeded: value >> shift)
            }
            return out
        }
        let unit = units[random.below(units.count)]
        switch random.below(3) {
        case 0: out.removeSubrange(unit)
        case 1: out.insert(contentsOf: bytes[unit], at: unit.upperBound)
        default:
            let other = units[random.below(units.count)]
            out.insert(contentsOf: bytes[other], at: unit.lowerBound)
        }
        return out.count <= maximumSize ? out : nil
    }
}

/// A small, seedable random number generator (SplitMix64), so a mutation follows from
/// libFuzzer's seed.
struct SplitMix {
    /// The generator's state.
    var state: UInt64

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number from 0 to `bound` − 1 (`bound` > 0).
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}

/// libFuzzer's hook for a custom mutator: a structure-aware mutation half the time (when the
/// input has a structure `StructureMutator` knows), libFuzzer's own otherwise.
@_cdecl("LLVMFuzzerCustomMutator")
func customMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maximumSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    var random = SplitMix(state: UInt64(seed) | 0x1_0000_0000)
    if random.below(2) == 0, size > 0 {
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        if let mutated = StructureMutator(bytes).mutate(bytes, maximumSize: maximumSize, random: &random), !mutated.isEmpty {
            mutated.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: mutated.count) }
            return mutated.count
        }
    }
    return LLVMFuzzerMutate(data, size, maximumSize)
}
