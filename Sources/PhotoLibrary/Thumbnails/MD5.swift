import Glibc

/// MD5 (RFC 1321), which the freedesktop thumbnail spec uses to name cache files. Not for security.
enum MD5 {
    private static let shifts: [UInt32] = [7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                           5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
                                           4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                           6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21]
    private static let constants: [UInt32] = (0..<64).map { UInt32(truncatingIfNeeded: Int64(abs(sin(Double($0 + 1))) * 4_294_967_296)) }

    /// The digest of `bytes` as 32 lowercase hexadecimal digits.
    static func hex(_ bytes: [UInt8]) -> String {
        var message = bytes
        let bitLength = UInt64(bytes.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for shift in stride(from: 0, to: 64, by: 8) { message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var a0: UInt32 = 0x6745_2301, b0: UInt32 = 0xefcd_ab89, c0: UInt32 = 0x98ba_dcfe, d0: UInt32 = 0x1032_5476
        for chunk in stride(from: 0, to: message.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                let base = chunk + i * 4
                words[i] = UInt32(message[base]) | UInt32(message[base + 1]) << 8 | UInt32(message[base + 2]) << 16 | UInt32(message[base + 3]) << 24
            }
            var a = a0, b = b0, c = c0, d = d0
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * i) % 16
                }
                f = f &+ a &+ constants[i] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ (f << shifts[i] | f >> (32 - shifts[i]))
            }
            a0 = a0 &+ a; b0 = b0 &+ b; c0 = c0 &+ c; d0 = d0 &+ d
        }
        return [a0, b0, c0, d0].map { word in
            (0..<4).map { byte in
                let value = UInt8(truncatingIfNeeded: word >> UInt32(byte * 8))
                return (value < 16 ? "0" : "") + String(value, radix: 16)
            }.joined()
        }.joined()
    }
}
