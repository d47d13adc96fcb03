internal import CPixels

/// Deterministic synthetic pictures for tests, benchmarks and demos.
public enum SyntheticImage {
    /// A photo-like BGRA image: smooth gradients, a disc, a few darker patches and mild noise, so
    /// converters and codecs see realistic content rather than flat colour. The same `seed` gives
    /// the same pixels.
    public static func photoLike(width: Int, height: Int, seed: UInt64 = 1, rowAlignment: Int = 1) throws(MediaError) -> PixelBuffer {
        let buffer = try PixelBuffer(format: .bgra, width: width, height: height, rowAlignment: rowAlignment)
        // The loop is C's (`pinhole_synthetic_photo_like`): a debug build's Swift is not optimised,
        // and tests make many of these pictures.
        pinhole_synthetic_photo_like(buffer.baseAddress(ofPlane: 0), buffer.planes[0].bytesPerRow, width, height, seed)
        return buffer
    }
}
