internal import CPixels
import CYUV

extension PixelBuffer {
    /// Whether every pixel has full alpha: true for formats without alpha; for BGRA and RGBA, a
    /// look at each pixel's alpha byte (in C: `pinhole_alpha_is_opaque`, quick in debug builds too).
    public var isOpaque: Bool {
        guard format == .bgra || format == .rgba else { return true }
        return pinhole_alpha_is_opaque(baseAddress(ofPlane: 0), planes[0].bytesPerRow, width, height) != 0
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
