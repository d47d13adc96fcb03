/// Deterministic synthetic pictures for tests, benchmarks and demos.
public enum SyntheticImage {
    /// A photo-like BGRA image: smooth gradients, a disc, a few darker patches and mild noise, so
    /// converters and codecs see realistic content rather than flat colour. The same `seed` gives
    /// the same pixels.
    public static func photoLike(width: Int, height: Int, seed: UInt64 = 1, rowAlignment: Int = 1) throws(MediaError) -> PixelBuffer {
        let buffer = try PixelBuffer(format: .bgra, width: width, height: height, rowAlignment: rowAlignment)
        var state = seed
        let base = buffer.baseAddress(ofPlane: 0)
        let stride = buffer.planes[0].bytesPerRow
        for y in 0..<height {
            let row = base + y * stride
            for x in 0..<width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Int((state >> 59) & 7) - 4
                let dx = x - width / 2, dy = y - height / 3
                let inCircle = dx * dx + dy * dy < (height / 5) * (height / 5)
                var r = x * 255 / width, g = y * 255 / height, b = 255 - (x + y) * 255 / (width + height)
                if inCircle { r = 230; g = 180; b = 40 }
                if (x / (width / 8 + 1) + y / (height / 6 + 1)) % 5 == 0 { b = max(0, b - 90) }
                row[x * 4] = UInt8(clamping: b + noise)
                row[x * 4 + 1] = UInt8(clamping: g + noise)
                row[x * 4 + 2] = UInt8(clamping: r + noise)
                row[x * 4 + 3] = 255
            }
        }
        return buffer
    }
}
