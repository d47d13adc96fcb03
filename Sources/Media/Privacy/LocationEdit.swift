/// One change that removing a location makes to a file: the bytes in `range` become
/// `replacement`. Format walkers list them (`LocationRemoval`); an empty list means the file has
/// no location, so detection and removal are one walk and cannot disagree.
struct LocationEdit: Sendable, Equatable {
    /// The bytes replaced, as offsets in the file.
    let range: Range<Int>
    /// What they become (the same length wherever offsets elsewhere point past them).
    let replacement: [UInt8]

    /// `data` with `edits` made; they must not overlap.
    static func apply(_ edits: [LocationEdit], to data: [UInt8]) -> [UInt8] {
        var out = data
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            out.replaceSubrange(edit.range, with: edit.replacement)
        }
        return out
    }
}

/// Big-endian integers read from bytes already checked to be there, and written.
enum BigEndian {
    /// The `count`-byte (at most 8) unsigned value at `offset` of `bytes`; nil when it runs past
    /// the end or is over `Int.max`.
    static func value(_ bytes: ArraySlice<UInt8>, at offset: Int, count: Int) -> Int? {
        guard count >= 0, count <= 8, offset >= bytes.startIndex, offset <= bytes.endIndex - count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + count)] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// `value` as `count` big-endian bytes (its low bytes).
    static func bytes(_ value: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
    }
}
