import CYUV

extension PixelBuffer {
    /// Whether every pixel has full alpha: true for formats without alpha; for BGRA and RGBA, a
    /// look at each pixel's alpha byte.
    public var isOpaque: Bool {
        guard format == .bgra || format == .rgba else { return true }
        let rowBytes = planes[0].bytesPerRow, base = baseAddress(ofPlane: 0)
        for row in 0..<height {
            let line = base + row * rowBytes
            var column = 3
            while column < width * 4 {
                if line[column] != 255 { return false }
                column += 4
            }
        }
        return true
    }

    /// This BGRA picture (straight alpha, as Media's decoders and `Thumbnailer` give it) in the
    /// layout a display draws without work: 24-bit BGR when every pixel is opaque, as photos
    /// are, else BGRA with its colours premultiplied by their alpha, as toolkits' textures and
    /// cairo expect. A new buffer either way; other formats are refused.
    public func forDisplay() throws(MediaError) -> PixelBuffer {
        guard format == .bgra else { throw .unsupported("preparing \(format) for display; convert to BGRA first") }
        if isOpaque {
            let rgb = try PixelBuffer(format: .bgr24, width: width, height: height, rowAlignment: 16)
            // BGRA → BGR24 is one of the converter's single libyuv calls.
            guard try PixelConverter.direct(self, rgb) else { throw .unsupported("converting BGRA to BGR24") }
            return rgb
        }
        let premultiplied = try PixelBuffer(format: .bgra, width: width, height: height, rowAlignment: 16)
        guard ARGBAttenuate(baseAddress(ofPlane: 0), bytesPerRow(ofPlane: 0), premultiplied.baseAddress(ofPlane: 0), premultiplied.bytesPerRow(ofPlane: 0),
                            Int32(width), Int32(height)) == 0 else { throw .unsupported("premultiplying \(width)×\(height) BGRA") }
        return premultiplied
    }
}
