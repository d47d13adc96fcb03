/// Rescales Y'CbCr samples between video range and full range (JPEG stores full range;
/// cameras' raw YUV is video range), plane by plane through 256-entry tables.
enum YUVRangeConversion {
    /// Video → full: Y (y−16)·255/219, C (c−128)·255/224+128, clamped.
    static let expandLuma: [UInt8] = (0..<256).map { UInt8(max(0, min(255, ((Double($0) - 16) * 255 / 219).rounded()))) }
    /// Video → full for Cb/Cr.
    static let expandChroma: [UInt8] = (0..<256).map { UInt8(max(0, min(255, ((Double($0) - 128) * 255 / 224 + 128).rounded()))) }

    /// Writes `source` (planar or semi-planar YUV in video range) into `destination` (same format
    /// and size) in full range.
    static func expand(_ source: PixelBuffer, into destination: PixelBuffer) throws(MediaError) {
        guard source.format == destination.format, source.width == destination.width, source.height == destination.height,
              [.i420, .yv12, .i422, .i444, .nv12, .nv21].contains(source.format) else {
            throw .mismatch("range expansion needs two planar YUV buffers of the same format and size")
        }
        for index in source.planes.indices {
            let table = index == 0 ? expandLuma : expandChroma
            let plane = source.planes[index]
            let from = source.baseAddress(ofPlane: index), to = destination.baseAddress(ofPlane: index)
            let fromStride = plane.bytesPerRow, toStride = destination.planes[index].bytesPerRow
            table.withUnsafeBufferPointer { lut in
                for row in 0..<plane.rows {
                    let s = from + row * fromStride, d = to + row * toStride
                    for i in 0..<plane.rowBytes { d[i] = lut[Int(s[i])] }
                }
            }
        }
        destination.yuvRange = .full
    }
}
