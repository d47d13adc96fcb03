import Glibc

/// The byte order of the integers in a file's structure.
enum ByteOrder: Sendable {
    /// Most significant byte first (JPEG, PNG, ISO boxes, "MM" TIFF).
    case bigEndian
    /// Least significant byte first (RIFF, "II" TIFF).
    case littleEndian
}

/// The one way Media reads sizes, offsets and counts out of a file: every box, segment, chunk and
/// directory walk (MP4 boxes, JPEG segments, TIFF IFDs, PNG and RIFF chunks, HEIF's EXIF offset)
/// goes through it. Such numbers are untrusted: a file may say a box is 2⁶³ bytes long or that an
/// IFD lies at offset 4 GiB. Here every integer is read within the data, and every sum, product
/// and conversion that turns one into a position is checked; what overflows or points outside the
/// data throws `.corruptData(format:…)` instead of trapping or reading beyond the end.
///
/// The data is either bytes in memory or a file read with `pread` (a movie is never read whole);
/// positions are `Int` byte offsets from its start either way.
struct UntrustedBytes {
    /// Where the bytes are.
    private enum Source {
        /// An array in memory.
        case memory([UInt8])
        /// An open file, read with `pread`; `path` names it in errors.
        case file(descriptor: Int32, path: String)
    }

    private let source: Source
    /// The number of bytes.
    let count: Int
    /// The format named in errors ("JPEG", "MP4", "EXIF", …).
    let format: String

    /// Bytes in memory.
    init(_ bytes: [UInt8], format: String) {
        source = .memory(bytes)
        count = bytes.count
        self.format = format
    }

    /// The file at `path`, open at `descriptor`, `size` bytes long (its `fstat` size).
    init(descriptor: Int32, size: Int, path: String, format: String) {
        source = .file(descriptor: descriptor, path: path)
        count = max(0, size)
        self.format = format
    }

    /// The bytes in memory (empty for a file).
    var bytes: [UInt8] {
        if case let .memory(bytes) = source { return bytes }
        return []
    }

    /// The range of `length` bytes at `offset`, checked to lie within the data. `length` may be
    /// any integer read from the file (a `UInt64` box size, a `UInt32` chunk length).
    func range(at offset: Int, length: some BinaryInteger) throws(MediaError) -> Range<Int> {
        guard let length = Int(exactly: length), length >= 0 else {
            throw corrupt("a length of \(length) bytes at byte \(offset) is not a size this reader can hold")
        }
        let end = try sum(offset, length)
        guard offset >= 0, end <= count else {
            throw corrupt("\(length) bytes at byte \(offset) run past the end of the \(count)-byte data (truncated?)")
        }
        return offset..<end
    }

    /// Whether `length` bytes at `offset` lie within the data (no error: for optional parts).
    func contains(_ offset: Int, length: Int) -> Bool {
        guard offset >= 0, length >= 0 else { return false }
        let (end, overflow) = offset.addingReportingOverflow(length)
        return !overflow && end <= count
    }

    /// The bytes at `range` (which `range(at:length:)` checked, or is checked here).
    func read(_ range: Range<Int>) throws(MediaError) -> [UInt8] {
        let range = try self.range(at: range.lowerBound, length: range.count)
        switch source {
        case let .memory(bytes):
            return Array(bytes[range])
        case let .file(descriptor, path):
            var out = [UInt8](repeating: 0, count: range.count)
            var done = 0
            while done < range.count {
                let got = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, range.count - done, off_t(range.lowerBound + done)) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else {
                    if got < 0 { throw .io(path: path, failure: FileFailure(errno: errno)) }
                    throw corrupt("the file ended at byte \(range.lowerBound + done) while \(range.count) bytes at byte \(range.lowerBound) were read (it shrank?)")
                }
                done += got
            }
            return out
        }
    }

    /// The byte at `offset`.
    func byte(at offset: Int) throws(MediaError) -> UInt8 {
        if case let .memory(bytes) = source {
            guard offset >= 0, offset < bytes.count else { throw corrupt("byte \(offset) is past the end of the \(count)-byte data (truncated?)") }
            return bytes[offset]
        }
        return try read(offset..<(offset + 1))[0]
    }

    /// The unsigned integer of `T`'s width at `offset`, in `order`.
    func integer<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, at offset: Int, _ order: ByteOrder) throws(MediaError) -> T {
        let size = T.bitWidth / 8
        let range = try self.range(at: offset, length: size)
        var value: T = 0
        func add(_ byte: UInt8, _ index: Int) {
            let shift = order == .bigEndian ? (size - 1 - index) * 8 : index * 8
            value |= T(byte) << shift
        }
        if case let .memory(bytes) = source {
            for index in 0..<size { add(bytes[range.lowerBound + index], index) }
        } else {
            for (index, byte) in try read(range).enumerated() { add(byte, index) }
        }
        return value
    }

    /// The 16-bit integer at `offset`.
    func u16(at offset: Int, _ order: ByteOrder) throws(MediaError) -> UInt16 { try integer(UInt16.self, at: offset, order) }

    /// The 32-bit integer at `offset`.
    func u32(at offset: Int, _ order: ByteOrder) throws(MediaError) -> UInt32 { try integer(UInt32.self, at: offset, order) }

    /// The 64-bit integer at `offset`.
    func u64(at offset: Int, _ order: ByteOrder) throws(MediaError) -> UInt64 { try integer(UInt64.self, at: offset, order) }

    /// The four bytes at `offset` as text (a box, chunk or marker name); invalid UTF-8 repaired.
    func fourCC(at offset: Int) throws(MediaError) -> String {
        let range = try self.range(at: offset, length: 4)
        if case let .memory(bytes) = source { return String(decoding: bytes[range], as: UTF8.self) }
        return String(decoding: try read(range), as: UTF8.self)
    }

    /// Whether the data holds `expected` at `offset`.
    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard contains(offset, length: expected.count) else { return false }
        if case let .memory(bytes) = source { return bytes[offset..<(offset + expected.count)].elementsEqual(expected) }
        return (try? read(offset..<(offset + expected.count))) == expected
    }

    /// `values` added, or `.corruptData` when the sum overflows (sizes read from a file).
    func sum(_ values: Int...) throws(MediaError) -> Int {
        var total = 0
        for value in values {
            let (next, overflow) = total.addingReportingOverflow(value)
            guard !overflow else { throw corrupt("sizes in the file add up to more than \(Int.max) bytes") }
            total = next
        }
        return total
    }

    /// `a` × `b`, or `.corruptData` when it overflows (a count of entries times their size).
    func product(_ a: Int, _ b: Int) throws(MediaError) -> Int {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow else { throw corrupt("\(a) × \(b) bytes is more than \(Int.max)") }
        return value
    }

    /// The error for structure that cannot be walked.
    func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: format, reason: reason)
    }
}

extension UntrustedBytes {
    /// The `count`-byte (at most 8) big-endian unsigned value at `offset` of `bytes`, a slice of
    /// untrusted data indexed as it is (the location walks' boxes, segments and datasets); nil
    /// when it runs past the slice's end or is over `Int.max`.
    static func bigEndian(_ bytes: ArraySlice<UInt8>, at offset: Int, count: Int) -> Int? {
        guard count >= 0, count <= 8, offset >= bytes.startIndex, offset <= bytes.endIndex - count else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + count)] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
