import Foundation
import TestSupport

/// A field of a file's structure that says how long something is (or how many there are): a PNG
/// chunk's length, a JPEG segment's, an ISO BMFF box's size (32 or 64 bits) and its tables'
/// entry counts, a RIFF chunk's size, an EBML element's size. What parsers trust most.
struct LengthField: CustomStringConvertible {
    /// Where the field starts in the file.
    let offset: Int
    /// Its width in bytes.
    let width: Int
    /// Big-endian (PNG, JPEG, BMFF) or little-endian (RIFF).
    let bigEndian: Bool
    /// An EBML variable-length integer: its length marker is kept when the value is replaced.
    let ebml: Bool
    /// The value the file has there.
    let value: UInt64
    /// What it is, for the report ("png IDAT length", "bmff stsz count").
    let name: String

    /// "png IDAT length @33 (4 bytes) = 8192".
    var description: String { "\(name) @\(offset) (\(width) bytes) = \(value)" }

    /// The largest value the field can hold.
    var maximum: UInt64 {
        ebml ? (UInt64(1) << UInt64(7 * width)) - 2 : (width >= 8 ? UInt64.max : (UInt64(1) << UInt64(8 * width)) - 1)
    }

    /// Writes `newValue` (cut to the field's width) into `bytes`.
    func write(_ newValue: UInt64, into bytes: inout [UInt8]) {
        let value = min(newValue, maximum)
        guard offset + width <= bytes.count else { return }
        for index in 0..<width {
            let shift = UInt64(8 * (bigEndian || ebml ? width - 1 - index : index))
            bytes[offset + index] = UInt8(truncatingIfNeeded: value >> shift)
        }
        // An EBML size keeps its length marker (the first set bit tells the width).
        if ebml { bytes[offset] = (bytes[offset] & (0xFF >> UInt8(width))) | (0x80 >> UInt8(width - 1)) }
    }
}

/// Finds the length fields of the formats the library takes, walking each file's structure as far
/// as it makes sense (a mutated file may stop making sense anywhere: the walk then stops).
enum LengthFields {
    /// Every length field found in `bytes`, whatever its format.
    static func find(in bytes: [UInt8]) -> [LengthField] {
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return png(bytes) }
        if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
        if bytes.starts(with: Array("RIFF".utf8)) { return riff(bytes) }
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return ebml(bytes, from: 0, to: bytes.count, depth: 0) }
        if bytes.count >= 8, bytes[4..<8].elementsEqual(Array("ftyp".utf8)) || bytes[4..<8].elementsEqual(Array("moov".utf8)) {
            return bmff(bytes, from: 0, to: bytes.count, depth: 0)
        }
        return []
    }

    /// A big-endian number of `width` bytes at `offset`.
    static func big(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }

    /// Four bytes as text ("IHDR", "moov").
    static func tag(_ bytes: [UInt8], _ offset: Int) -> String {
        String(decoding: bytes[offset..<offset + 4].map { (0x20...0x7E).contains($0) ? $0 : 0x3F }, as: UTF8.self)
    }

    /// PNG: each chunk's length.
    static func png(_ bytes: [UInt8]) -> [LengthField] {
        var fields: [LengthField] = [], position = 8
        while position + 12 <= bytes.count {
            let length = big(bytes, position, 4)
            fields.append(.init(offset: position, width: 4, bigEndian: true, ebml: false, value: length, name: "png \(tag(bytes, position + 4)) length"))
            // IHDR's width and height say how much the rest must hold.
            if tag(bytes, position + 4) == "IHDR", position + 16 <= bytes.count {
                fields.append(.init(offset: position + 8, width: 4, bigEndian: true, ebml: false, value: big(bytes, position + 8, 4), name: "png IHDR width"))
                fields.append(.init(offset: position + 12, width: 4, bigEndian: true, ebml: false, value: big(bytes, position + 12, 4), name: "png IHDR height"))
            }
            guard length < UInt64(bytes.count) else { break }
            position += 12 + Int(length)
        }
        return fields
    }

    /// JPEG: each marker segment's length up to the first scan, and the frame's size.
    static func jpeg(_ bytes: [UInt8]) -> [LengthField] {
        var fields: [LengthField] = [], position = 2
        while position + 4 <= bytes.count, bytes[position] == 0xFF {
            let marker = bytes[position + 1]
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { position += 2; continue }
            let length = big(bytes, position + 2, 2)
            fields.append(.init(offset: position + 2, width: 2, bigEndian: true, ebml: false, value: length, name: String(format: "jpeg FF%02X length", marker)))
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC, position + 9 <= bytes.count {
                fields.append(.init(offset: position + 5, width: 2, bigEndian: true, ebml: false, value: big(bytes, position + 5, 2), name: "jpeg frame height"))
                fields.append(.init(offset: position + 7, width: 2, bigEndian: true, ebml: false, value: big(bytes, position + 7, 2), name: "jpeg frame width"))
            }
            // EXIF's TIFF header holds offsets too, but the segment length is what parsers read first.
            if marker == 0xDA || length < 2 { break }
            position += 2 + Int(length)
        }
        return fields
    }

    /// RIFF (WebP): the file's size, then each chunk's.
    static func riff(_ bytes: [UInt8]) -> [LengthField] {
        func little(_ offset: Int) -> UInt64 { (0..<4).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[offset + $1]) } }
        guard bytes.count >= 12 else { return [] }
        var fields = [LengthField(offset: 4, width: 4, bigEndian: false, ebml: false, value: little(4), name: "riff RIFF size")]
        var position = 12
        while position + 8 <= bytes.count {
            let size = little(position + 4)
            fields.append(.init(offset: position + 4, width: 4, bigEndian: false, ebml: false, value: size, name: "riff \(tag(bytes, position)) size"))
            guard size < UInt64(bytes.count) else { break }
            position += 8 + Int(size) + Int(size & 1)
        }
        return fields
    }

    /// ISO BMFF boxes that hold boxes, and where their children start (after a full box's
    /// version and flags, or a sample description's count).
    static let containers: [String: Int] = ["moov": 0, "trak": 0, "mdia": 0, "minf": 0, "stbl": 0, "dinf": 0, "edts": 0, "mvex": 0,
                                            "moof": 0, "traf": 0, "mfra": 0, "udta": 0, "iprp": 0, "ipco": 0, "meta": 4, "stsd": 8]
    /// ISO BMFF full boxes whose first field after version and flags counts the entries that follow.
    static let counted: Set<String> = ["stts", "stsz", "stsc", "stco", "co64", "stss", "ctts", "elst", "trun", "dref", "iinf", "sbgp", "sgpd", "ipma"]

    /// ISO BMFF (MP4, MOV, HEIF): every box's size, 64-bit sizes, entry counts, the image's `ispe`.
    static func bmff(_ bytes: [UInt8], from start: Int, to end: Int, depth: Int) -> [LengthField] {
        var fields: [LengthField] = [], position = start
        while position + 8 <= end, depth < 8 {
            let size = big(bytes, position, 4), type = tag(bytes, position + 4)
            fields.append(.init(offset: position, width: 4, bigEndian: true, ebml: false, value: size, name: "bmff \(type) size"))
            var length = Int(size), header = 8
            if size == 1, position + 16 <= end {
                let large = big(bytes, position + 8, 8)
                fields.append(.init(offset: position + 8, width: 8, bigEndian: true, ebml: false, value: large, name: "bmff \(type) 64-bit size"))
                guard large <= UInt64(end - position) else { break }
                length = Int(large)
                header = 16
            } else if size == 0 {
                length = end - position
            }
            guard length >= header, position + length <= end else { break }
            if let skip = containers[type] {
                fields += bmff(bytes, from: position + header + skip, to: position + length, depth: depth + 1)
            } else if counted.contains(type), length >= header + 8 {
                let countWidth = type == "iinf" && bytes[position + header] == 0 ? 2 : 4
                fields.append(.init(offset: position + header + 4, width: countWidth, bigEndian: true, ebml: false,
                                    value: big(bytes, position + header + 4, countWidth), name: "bmff \(type) count"))
            } else if type == "ispe", length >= header + 12 {
                fields.append(.init(offset: position + header + 4, width: 4, bigEndian: true, ebml: false, value: big(bytes, position + header + 4, 4), name: "bmff ispe width"))
                fields.append(.init(offset: position + header + 8, width: 4, bigEndian: true, ebml: false, value: big(bytes, position + header + 8, 4), name: "bmff ispe height"))
            }
            position += length
        }
        return fields
    }

    /// EBML master elements (Matroska, WebM) whose children are walked.
    static let masters: Set<UInt64> = [0x1A45_DFA3, 0x1853_8067, 0x114D_9B74, 0x4DBB, 0x1549_A966, 0x1654_AE6B, 0xAE, 0xE0, 0xE1,
                                       0x1F43_B675, 0xA0, 0x1C53_BB6B, 0xBB, 0xB7, 0x1254_C367, 0x7373]

    /// EBML (Matroska, WebM): every element's size.
    static func ebml(_ bytes: [UInt8], from start: Int, to end: Int, depth: Int) -> [LengthField] {
        /// A variable-length integer at `offset`: its width and value (marker removed), or nil.
        func vint(_ offset: Int, keepMarker: Bool) -> (width: Int, value: UInt64)? {
            guard offset < end, bytes[offset] != 0 else { return nil }
            let width = bytes[offset].leadingZeroBitCount + 1
            guard offset + width <= end else { return nil }
            var value = UInt64(keepMarker ? bytes[offset] : bytes[offset] & (0xFF >> UInt8(width)))
            for index in 1..<width { value = value << 8 | UInt64(bytes[offset + index]) }
            return (width, value)
        }
        var fields: [LengthField] = [], position = start
        while position < end, depth < 8 {
            guard let id = vint(position, keepMarker: true), id.width <= 4, let size = vint(position + id.width, keepMarker: false) else { break }
            let sizeOffset = position + id.width, dataStart = sizeOffset + size.width
            fields.append(.init(offset: sizeOffset, width: size.width, bigEndian: true, ebml: true, value: size.value,
                                name: String(format: "ebml %llX size", id.value)))
            let unknown = size.value == (UInt64(1) << UInt64(7 * size.width)) - 1
            let dataEnd = unknown ? end : dataStart + Int(min(size.value, UInt64(end)))
            guard dataEnd <= end else { break }
            if masters.contains(id.value) { fields += ebml(bytes, from: dataStart, to: dataEnd, depth: depth + 1) }
            position = dataEnd
        }
        return fields
    }
}

/// One change made to a file: what the report says about a mutated input.
enum Mutation: CustomStringConvertible {
    /// Bits flipped at these offsets.
    case flipBits([Int])
    /// `count` bytes from `offset` set to `byte` (nil: random bytes).
    case byteRun(offset: Int, count: Int, byte: UInt8?)
    /// The file cut to `length` bytes.
    case truncate(length: Int)
    /// `count` bytes removed from `offset`.
    case remove(offset: Int, count: Int)
    /// `count` bytes from `offset` copied again at `to`.
    case duplicate(offset: Int, count: Int, to: Int)
    /// A length field given another value.
    case length(LengthField, newValue: UInt64)

    /// How the change reads in a report.
    var description: String {
        switch self {
        case let .flipBits(bits): "flip bits \(bits.prefix(8).map(String.init).joined(separator: ","))"
        case let .byteRun(offset, count, byte): "run of \(count) \(byte.map { String(format: "0x%02X", $0) } ?? "random") bytes @\(offset)"
        case let .truncate(length): "truncated to \(length) bytes"
        case let .remove(offset, count): "removed \(count) bytes @\(offset)"
        case let .duplicate(offset, count, to): "\(count) bytes @\(offset) copied to @\(to)"
        case let .length(field, newValue): "\(field.name) @\(field.offset) \(field.value) -> \(newValue)"
        }
    }

    /// Applies the change to `bytes`.
    func apply(to bytes: inout [UInt8]) {
        switch self {
        case let .flipBits(bits):
            for bit in bits where bit / 8 < bytes.count { bytes[bit / 8] ^= 1 << UInt8(bit % 8) }
        case let .byteRun(offset, count, byte):
            var random = SeededGenerator(seed: UInt64(offset &* 31 &+ count), index: 0)
            for index in offset..<min(bytes.count, offset + count) { bytes[index] = byte ?? UInt8.random(in: 0...255, using: &random) }
        case let .truncate(length):
            bytes.removeLast(max(0, bytes.count - length))
        case let .remove(offset, count):
            bytes.removeSubrange(offset..<min(bytes.count, offset + count))
        case let .duplicate(offset, count, to):
            let copied = Array(bytes[offset..<min(bytes.count, offset + count)])
            bytes.insert(contentsOf: copied, at: min(to, bytes.count))
        case let .length(field, newValue):
            field.write(newValue, into: &bytes)
        }
    }

    /// One to three random changes to `bytes`, half of them to length fields when the file has
    /// any (the rest anywhere: a flip lands in a header as often as a parser reads one), made one
    /// after the other: the changed bytes and the changes.
    static func random(for bytes: [UInt8], using random: inout SeededGenerator) -> (bytes: [UInt8], mutations: [Mutation]) {
        var changed = bytes, made: [Mutation] = []
        for _ in 0..<random.int(1...3) {
            guard changed.count > 1 else { break }
            let fields = LengthFields.find(in: changed)
            let mutation: Mutation
            let size = changed.count
            // Offsets near the start (the headers) as often as anywhere.
            let offset = random.chance(0.5) ? random.int(0...min(size - 1, 256)) : random.int(0...(size - 1))
            switch random.int(0...9) {
            case 0...4 where !fields.isEmpty:
                let field = random.pick(fields)
                let values: [UInt64] = [0, 1, 8, field.value &- 1, field.value &+ 1, field.value &* 2, field.maximum, field.maximum / 2,
                                        UInt64(Int32.max), UInt64(size), UInt64(size - field.offset), UInt64(random.int(0...0xFFFF))]
                mutation = .length(field, newValue: random.pick(values))
            case 0...1:
                mutation = .flipBits((0..<random.int(1...8)).map { _ in random.int(0...(size * 8 - 1)) })
            case 2...3:
                mutation = .byteRun(offset: offset, count: random.int(1...64), byte: random.pick([0x00, 0xFF, 0x7F, 0x80, nil]))
            case 4...5:
                mutation = .truncate(length: random.chance(0.3) ? random.int(0...min(size - 1, 64)) : random.int(0...(size - 1)))
            case 6...7:
                mutation = .remove(offset: offset, count: random.pick([1, 2, 4, 8, random.int(1...512)]))
            default:
                mutation = .duplicate(offset: offset, count: random.pick([4, 8, 16, random.int(1...1024)]), to: random.int(0...size))
            }
            mutation.apply(to: &changed)
            made.append(mutation)
        }
        return (changed, made)
    }
}
