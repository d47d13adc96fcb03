import Glibc
import Media

/// A frame size a stage runs at, with the short name the table shows.
struct FrameSize: Hashable {
    /// The name in the table: "1080p", "4K", "12 MP".
    let name: String
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int

    /// 1920×1080, the common webcam mode.
    static let hd1080 = FrameSize(name: "1080p", width: 1920, height: 1080)
    /// 3840×2160.
    static let uhd4K = FrameSize(name: "4K", width: 3840, height: 2160)
    /// 4000×3000, a 12-megapixel still.
    static let mp12 = FrameSize(name: "12 MP", width: 4000, height: 3000)

    /// Pixels in one frame.
    var pixels: Int { width * height }
}

/// Makes the test frames every stage feeds to ours and to the peers.
enum Frames {
    /// The photo-like BGRA image every stage starts from (`SyntheticImage.photoLike`), rows
    /// aligned to 64 bytes.
    static func photoLikeImage(width: Int, height: Int, seed: UInt64 = 1) throws -> PixelBuffer {
        try SyntheticImage.photoLike(width: width, height: height, seed: seed, rowAlignment: 64)
    }

    /// A new buffer of `format` at the size of `master`, rows aligned to 64 bytes, every byte
    /// written once so that no page fault lands inside a timed run.
    static func blank(_ format: PixelFormat, like master: PixelBuffer) throws -> PixelBuffer {
        let buffer = try PixelBuffer(format: format, width: master.width, height: master.height, rowAlignment: 64)
        memset(buffer.baseAddress, 0, buffer.capacity)
        return buffer
    }

    /// `count` separate copies of `master` (identical bytes, distinct memory), for cold-cache rotation.
    static func copies(of master: PixelBuffer, count: Int) throws -> [PixelBuffer] {
        let converter = PixelConverter()
        return try (0..<count).map { _ in
            let copy = try blank(master.format, like: master)
            try converter.convert(master, into: copy)
            return copy
        }
    }

    /// `count` blank buffers of `format` at the size of `master`.
    static func blanks(_ format: PixelFormat, like master: PixelBuffer, count: Int) throws -> [PixelBuffer] {
        try (0..<count).map { _ in try blank(format, like: master) }
    }

    /// Bytes of pixel data in a raw buffer (rows without padding).
    static func payloadBytes(_ buffer: PixelBuffer) -> Int {
        buffer.planes.reduce(0) { $0 + $1.rowBytes * $1.rows }
    }

    /// Bytes of pixel data of a raw `format` frame at `size` (rows without padding).
    static func payloadBytes(_ format: PixelFormat, _ size: FrameSize) -> Int {
        format.planeGeometry(width: size.width, height: size.height).reduce(0) { $0 + $1.rowBytes * $1.rows }
    }
}

/// Output checks: how far two results are apart, so that nobody benchmarks garbage.
enum Compare {
    /// The mean absolute difference, in 8-bit levels, between two buffers of the same format and
    /// size over every plane's pixel bytes; BGRA compares B, G and R and skips alpha.
    static func meanAbsoluteDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.format == b.format && a.width == b.width && a.height == b.height, "comparing different frames")
        var total = 0, count = 0
        for plane in a.planes.indices {
            let pa = a.planes[plane], pb = b.planes[plane]
            let baseA = a.baseAddress(ofPlane: plane), baseB = b.baseAddress(ofPlane: plane)
            for row in 0..<pa.rows {
                let rowA = baseA + row * pa.bytesPerRow, rowB = baseB + row * pb.bytesPerRow
                for column in 0..<pa.rowBytes where a.format != .bgra || column % 4 != 3 {
                    total += abs(Int(rowA[column]) - Int(rowB[column]))
                    count += 1
                }
            }
        }
        return count == 0 ? 0 : Double(total) / Double(count)
    }

    /// The mean absolute difference between `buffer` and `bytes` holding the same format packed
    /// without padding (as a file written by another tool), or nil when the byte counts differ.
    static func meanAbsoluteDifference(_ buffer: PixelBuffer, packed bytes: [UInt8]) -> Double? {
        guard bytes.count == Frames.payloadBytes(buffer) else { return nil }
        return bytes.withUnsafeBytes { raw -> Double? in
            guard let base = raw.baseAddress else { return nil }
            guard let other = try? PixelBuffer(format: buffer.format, width: buffer.width, height: buffer.height,
                                               bytes: UnsafeRawBufferPointer(start: base, count: raw.count)) else { return nil }
            return meanAbsoluteDifference(buffer, other)
        }
    }

    /// Mean absolute difference over one plane of bytes each, `rows`×`rowBytes`; `rowOf` maps a
    /// row of `a` to the row of `b` it is compared with (identity unless chroma heights differ),
    /// and rows of `b` listed by `rowOf` are averaged when it returns two.
    static func planeDifference(_ a: UnsafePointer<UInt8>, strideA: Int, _ b: UnsafePointer<UInt8>, strideB: Int,
                                rows: Int, rowBytes: Int, rowsOfB: (Int) -> [Int]) -> (total: Int, count: Int) {
        var total = 0
        for row in 0..<rows {
            let rowA = a + row * strideA
            let sources = rowsOfB(row).map { b + $0 * strideB }
            for column in 0..<rowBytes {
                let sum = sources.reduce(0) { $0 + Int($1[column]) }
                let value = (sum + sources.count / 2) / sources.count
                total += abs(Int(rowA[column]) - value)
            }
        }
        return (total, rows * rowBytes)
    }
}

/// A verdict on one output check: the difference and whether it is small enough to trust the timing.
struct Check {
    /// What was compared, shown in the table, e.g. "Δ0.42 vs swscale".
    let text: String
    /// True when the difference is beyond `limit`: the outputs disagree, the timing means nothing.
    let failed: Bool

    /// Mean absolute differences at or below this many 8-bit levels count as the same picture;
    /// a wrong matrix, range or plane order gives tens of levels.
    static let limit = 4.0

    /// A check of a measured difference (nil when the outputs could not be compared at all).
    static func difference(_ value: Double?, against: String, limit: Double = Check.limit) -> Check {
        guard let value else { return Check(text: "no output from \(against)", failed: true) }
        let text = "Δ\(Format.fixed(value, 2))"
        return Check(text: value > limit ? text + " FAILED" : text, failed: value > limit)
    }

    /// No check applies (the memcpy floor).
    static let none = Check(text: "", failed: false)
}
