import CWebP

/// WebP stills (lossy and lossless, with or without alpha) with libwebp.
///
/// Decoding reads the header first and refuses images over `DecodingLimits` before allocating
/// anything, then decodes straight into a BGRA `PixelBuffer`'s memory; a smaller destination is
/// filled by libwebp's scaler, so a thumbnail needs no full-size BGRA buffer. Animated WebP is
/// refused: Pinhole reads stills only.
public enum WebPCodec {
    /// Encodes `buffer` (BGRA; other raw formats are converted to BGRA first) at `quality` (0–100).
    /// With `lossless`, the pixels decode back exactly (except the colour of fully transparent
    /// pixels) and `quality` is the effort: higher gives smaller files, more slowly.
    public static func encode(_ buffer: PixelBuffer, quality: Float = 80, lossless: Bool = false) throws(MediaError) -> [UInt8] {
        guard (0...100).contains(quality) else { throw .encoderFailed(format: "WebP", reason: "quality \(quality) is outside 0–100") }
        guard buffer.width <= Int(WEBP_MAX_DIMENSION), buffer.height <= Int(WEBP_MAX_DIMENSION) else {
            throw .encoderFailed(format: "WebP", reason: "\(buffer.width)×\(buffer.height) is over WebP's \(WEBP_MAX_DIMENSION)-pixel side limit; scale it down first")
        }
        let source: PixelBuffer
        switch buffer.format {
        case .bgra: source = buffer
        case .mjpeg: throw .unsupported("WebP encoding from an MJPEG payload; decode it first")
        default: source = try buffer.converted(to: .bgra)
        }
        var config = WebPConfig()
        var picture = WebPPicture()
        guard WebPConfigInit(&config) != 0, WebPPictureInit(&picture) != 0 else {
            throw .encoderFailed(format: "WebP", reason: "libwebp's library and headers are different versions; reinstall libwebp-dev")
        }
        config.quality = quality
        config.lossless = lossless ? 1 : 0
        picture.use_argb = lossless ? 1 : 0  // lossless codes ARGB; lossy converts to YUV 4:2:0 (plus alpha) on import
        picture.width = Int32(source.width)
        picture.height = Int32(source.height)
        defer { WebPPictureFree(&picture) }
        guard WebPPictureImportBGRA(&picture, source.baseAddress(ofPlane: 0), source.bytesPerRow(ofPlane: 0)) != 0 else {
            throw .encoderFailed(format: "WebP", reason: "libwebp ran out of memory importing the pixels")
        }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { sink in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(sink)
            defer { picture.custom_ptr = nil }
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0 else { throw .encoderFailed(format: "WebP", reason: reason(picture.error_code)) }
        return Array(UnsafeBufferPointer(start: writer.mem, count: writer.size))
    }

    /// Reads the header without decoding: size and whether the image has alpha. Animated WebP is refused.
    public static func info(_ data: UnsafeRawBufferPointer) throws(MediaError) -> (width: Int, height: Int, hasAlpha: Bool) {
        guard data.count >= 12, data.prefix(4).elementsEqual("RIFF".utf8), data[8..<12].elementsEqual("WEBP".utf8) else {
            throw .corruptData(format: "WebP", reason: data.isEmpty ? "the data is empty" : "no RIFF/WEBP signature")
        }
        var features = WebPBitstreamFeatures()
        try check(WebPGetFeatures(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &features))
        guard features.has_animation == 0 else {
            throw .unsupported("animated WebP (only still images are read; save one frame as a still WebP first)")
        }
        return (Int(features.width), Int(features.height), features.has_alpha != 0)
    }

    /// Reads the header of `data` (see the raw-bytes form).
    public static func info(_ data: [UInt8]) throws(MediaError) -> (width: Int, height: Int, hasAlpha: Bool) {
        try data.withBytes { bytes throws(MediaError) in try info(bytes) }
    }

    /// Decodes into `destination`, a BGRA buffer (from a pool, say) of the image's size, or smaller
    /// for libwebp to scale down to; refuses images over `maximumPixels`. Images without alpha
    /// come out opaque.
    public static func decode(_ data: UnsafeRawBufferPointer, into destination: PixelBuffer,
                              maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) {
        guard destination.format == .bgra else { throw .unsupported("decoding WebP to \(destination.format); decode to BGRA and convert") }
        let header = try info(data)
        try DecodingLimits.check(width: header.width, height: header.height, maximumPixels: maximumPixels)
        guard destination.width <= header.width, destination.height <= header.height else {
            throw .mismatch("a \(header.width)×\(header.height) WebP cannot decode to \(destination.width)×\(destination.height); it decodes at its size or smaller")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else {
            throw .unsupported("decoding with a libwebp whose library and headers are different versions; reinstall libwebp-dev")
        }
        // WebPDecode rather than WebPDecodeBGRAInto (the same decoder): it says why it failed.
        let plane = destination.planes[0]
        config.output.colorspace = MODE_BGRA
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = destination.baseAddress(ofPlane: 0)
        config.output.u.RGBA.stride = Int32(plane.bytesPerRow)
        config.output.u.RGBA.size = plane.bytesPerRow * (plane.rows - 1) + plane.rowBytes
        if destination.width != header.width || destination.height != header.height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(destination.width)
            config.options.scaled_height = Int32(destination.height)
        }
        let status = WebPDecode(data.baseAddress!.assumingMemoryBound(to: UInt8.self), data.count, &config)
        WebPFreeDecBuffer(&config.output)  // frees nothing of ours (the memory is external), as the API asks
        try check(status)
    }

    /// Decodes `data` into `destination` (see the raw-bytes form).
    public static func decode(_ data: [UInt8], into destination: PixelBuffer, maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) {
        try data.withBytes { bytes throws(MediaError) in try decode(bytes, into: destination, maximumPixels: maximumPixels) }
    }

    /// Decodes to a new BGRA buffer, at full size or, with `longestSide`, scaled down by libwebp to
    /// fit it (never enlarged); refuses images over `maximumPixels`.
    public static func decode(_ data: UnsafeRawBufferPointer, fittingLongestSide longestSide: Int? = nil,
                              maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) -> PixelBuffer {
        let header = try info(data)
        try DecodingLimits.check(width: header.width, height: header.height, maximumPixels: maximumPixels)
        let size = longestSide.map { PixelTransform.fitting(width: header.width, height: header.height, longestSide: $0) } ?? (width: header.width, height: header.height)
        let buffer = try PixelBuffer(format: .bgra, width: size.width, height: size.height, rowAlignment: 16)
        try decode(data, into: buffer, maximumPixels: maximumPixels)
        return buffer
    }

    /// Decodes `data` to a new buffer (see the raw-bytes form).
    public static func decode(_ data: [UInt8], fittingLongestSide longestSide: Int? = nil,
                              maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) -> PixelBuffer {
        try data.withBytes { bytes throws(MediaError) in try decode(bytes, fittingLongestSide: longestSide, maximumPixels: maximumPixels) }
    }

    /// Turns a libwebp decoding status into a `MediaError`.
    private static func check(_ status: VP8StatusCode) throws(MediaError) {
        switch status {
        case VP8_STATUS_OK: return
        case VP8_STATUS_NOT_ENOUGH_DATA: throw .corruptData(format: "WebP", reason: "the data ends early (a truncated file)")
        case VP8_STATUS_UNSUPPORTED_FEATURE: throw .unsupported("a WebP feature this libwebp cannot decode")
        case VP8_STATUS_BITSTREAM_ERROR: throw .corruptData(format: "WebP", reason: "the bitstream is invalid")
        case VP8_STATUS_OUT_OF_MEMORY: throw .corruptData(format: "WebP", reason: "libwebp ran out of memory")
        default: throw .corruptData(format: "WebP", reason: "libwebp failed with status \(status.rawValue)")
        }
    }

    /// What a libwebp encoding error means, for `MediaError.encoderFailed`.
    private static func reason(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_ERROR_OUT_OF_MEMORY, VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "libwebp ran out of memory"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW, VP8_ENC_ERROR_PARTITION_OVERFLOW: "the picture is too detailed for a lossy WebP; lower the quality or the size"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "the file would be over 4 GiB"
        default: "libwebp error \(error.rawValue)"
        }
    }
}
