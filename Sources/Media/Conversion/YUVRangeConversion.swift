internal import CPixels

/// Rescales Y'CbCr samples from video range to full range (JPEG stores full range; cameras'
/// raw YUV is video range) in 8.8 fixed point, through a lookup table per plane:
/// Y' = (clamp(Y, 16, 235) − 16) · 298/256, C' = ((clamp(C, 16, 240) − 16) · 291 + 256)/256,
/// within one level of the exact (Y − 16)·255/219 and (C − 128)·255/224 + 128.
/// The loop is C's (`pinhole_expand_range_plane`), so that a debug build, whose Swift is not
/// optimised, is as quick as a release one within a few milliseconds at 4K.
enum YUVRangeConversion {
    /// Writes `source` (planar or semi-planar YUV in video range) into `destination` (same format
    /// and size, may be the same buffer) in full range.
    static func expand(_ source: PixelBuffer, into destination: PixelBuffer) throws(MediaError) {
        guard source.format == destination.format, source.width == destination.width, source.height == destination.height,
              [.i420, .yv12, .i422, .i444, .nv12, .nv21].contains(source.format) else {
            throw .mismatch("range expansion needs two planar YUV buffers of the same format and size")
        }
        for index in source.planes.indices {
            let plane = source.planes[index]
            pinhole_expand_range_plane(source.baseAddress(ofPlane: index), plane.bytesPerRow,
                                       destination.baseAddress(ofPlane: index), destination.planes[index].bytesPerRow,
                                       plane.rowBytes, plane.rows, index == 0 ? 0 : 1)
        }
        destination.yuvRange = .full
    }
}
