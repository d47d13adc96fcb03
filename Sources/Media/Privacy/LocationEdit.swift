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

/// Big-endian integers written (they are read through `UntrustedBytes.bigEndian`).
enum BigEndian {
    /// `value` as `count` big-endian bytes (its low bytes).
    static func bytes(_ value: Int, count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * (count - 1 - $0))) }
    }
}
