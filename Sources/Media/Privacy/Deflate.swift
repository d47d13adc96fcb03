import CZlib

/// zlib streams (RFC 1950) for PNG's compressed text chunks, inflated with a limit so a small
/// chunk cannot make us allocate gigabytes.
enum Deflate {
    /// The most bytes a metadata chunk may inflate to: 16 MiB.
    static let maximumInflated = 16 << 20

    /// The bytes `compressed` inflates to. Throws `.corruptData` when it is no zlib stream, is
    /// truncated or inflates past `maximumInflated`.
    static func inflate(_ compressed: ArraySlice<UInt8>, format: String) throws(MediaError) -> [UInt8] {
        var capacity = max(1024, min(compressed.count * 4, maximumInflated))
        while true {
            var out = [UInt8](repeating: 0, count: capacity)
            var length = uLongf(capacity)
            let status = Array(compressed).withUnsafeBufferPointer { source in
                out.withUnsafeMutableBufferPointer { uncompress($0.baseAddress, &length, source.baseAddress, uLong(source.count)) }
            }
            if status == Z_OK { return Array(out.prefix(Int(length))) }
            guard status == Z_BUF_ERROR, capacity < maximumInflated else {
                throw .corruptData(format: format, reason: status == Z_BUF_ERROR ? "a compressed chunk inflates past \(maximumInflated) bytes" : "a compressed chunk is damaged (zlib error \(status))")
            }
            capacity = min(capacity * 4, maximumInflated)
        }
    }

    /// `data` as a zlib stream.
    static func deflate(_ data: [UInt8], format: String) throws(MediaError) -> [UInt8] {
        var length = compressBound(uLong(data.count))
        var out = [UInt8](repeating: 0, count: Int(length))
        let status = data.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { compress2($0.baseAddress, &length, source.baseAddress, uLong(source.count), Z_BEST_COMPRESSION) }
        }
        guard status == Z_OK else { throw .encoderFailed(format: format, reason: "zlib error \(status)") }
        return Array(out.prefix(Int(length)))
    }
}
