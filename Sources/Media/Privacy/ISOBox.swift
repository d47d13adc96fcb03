/// One box of an ISO base media file (HEIF, MP4, MOV), found by walking sizes that are checked
/// against the space their parent gives them: a size running past its parent, under its own
/// header or over `Int.max` is damage, never trusted and never trapped on.
struct ISOBox: Sendable, Equatable {
    /// The four-character type.
    let type: [UInt8]
    /// Where the box starts (its size field) in the file.
    let start: Int
    /// Where its contents start (after size, type and any 64-bit size or uuid) and end.
    let payload: Range<Int>

    /// The type as text ("moov"), for messages and comparisons.
    var name: String { String(decoding: type, as: UTF8.self) }

    /// The whole box.
    var range: Range<Int> { start..<payload.upperBound }

    /// The boxes in `range` of `bytes` (a slice of the file starting at `base`), in order. A
    /// size of 0 means "to the end of the parent". Throws `.corruptData(format:…)` for a box
    /// that does not fit.
    static func children(in bytes: ArraySlice<UInt8>, range: Range<Int>, format: String) throws(MediaError) -> [ISOBox] {
        guard range.lowerBound >= bytes.startIndex, range.upperBound <= bytes.endIndex, range.lowerBound <= range.upperBound else {
            throw .corruptData(format: format, reason: "a box's contents lie outside the data read")
        }
        var boxes: [ISOBox] = []
        var position = range.lowerBound
        while range.upperBound - position >= 8 {
            guard let size32 = UntrustedBytes.bigEndian(bytes, at: position, count: 4) else { break }
            let type = Array(bytes[(position + 4)..<(position + 8)])
            var header = 8
            var size = size32
            if size32 == 1 {
                guard let large = UntrustedBytes.bigEndian(bytes, at: position + 8, count: 8), range.upperBound - position >= 16 else {
                    throw .corruptData(format: format, reason: "the \(String(decoding: type, as: UTF8.self)) box's 64-bit size is malformed or too large")
                }
                header = 16
                size = large
            } else if size32 == 0 {
                size = range.upperBound - position
            }
            if type == Array("uuid".utf8) { header += 16 }
            guard size >= header, size <= range.upperBound - position else {
                throw .corruptData(format: format, reason: "the \(String(decoding: type, as: UTF8.self)) box at byte \(position) declares \(size) bytes, more than its parent holds")
            }
            boxes.append(ISOBox(type: type, start: position, payload: (position + header)..<(position + size)))
            position += size
        }
        return boxes
    }

    /// The boxes in `range` of `bytes` up to the first that does not fit (none thrown): for
    /// checks made before a library that reads what it can of a damaged file. With
    /// `cuttingOverruns`, a box longer than what is left is cut to it instead, as FFmpeg reads it.
    static func leadingChildren(in bytes: ArraySlice<UInt8>, range: Range<Int>, cuttingOverruns: Bool = false) -> [ISOBox] {
        guard range.lowerBound >= bytes.startIndex, range.upperBound <= bytes.endIndex else { return [] }
        var boxes: [ISOBox] = []
        var position = range.lowerBound
        while range.upperBound - position >= 8, var size = UntrustedBytes.bigEndian(bytes, at: position, count: 4) {
            var header = 8
            if size == 1 {
                guard range.upperBound - position >= 16, let large = UntrustedBytes.bigEndian(bytes, at: position + 8, count: 8) else { break }
                size = large
                header = 16
            } else if size == 0 {
                size = range.upperBound - position
            }
            guard size >= header else { break }
            if cuttingOverruns { size = min(size, range.upperBound - position) }
            guard size <= range.upperBound - position else { break }
            boxes.append(ISOBox(type: Array(bytes[(position + 4)..<(position + 8)]), start: position, payload: (position + header)..<(position + size)))
            position += size
        }
        return boxes
    }

    /// The first child of type `type`.
    static func first(_ type: String, in boxes: [ISOBox]) -> ISOBox? {
        boxes.first { $0.type == Array(type.utf8) }
    }
}

/// Checked sums for offsets read from files: nil instead of an overflow.
func checkedSum(_ values: Int...) -> Int? {
    var total = 0
    for value in values {
        let (sum, overflow) = total.addingReportingOverflow(value)
        guard !overflow else { return nil }
        total = sum
    }
    return total
}
