internal import CMediaLoader
import CYUV

/// Encoder effort for HEIF (x265): the trade between time and size at the same quality.
public enum HEIFSpeed: Sendable {
    /// x265's ultrafast preset: ~0.25 s for a 1080p frame here.
    case fast
    /// x265's default (medium) preset: several times slower, ~10–20% smaller.
    case balanced

    var preset: String {
        switch self {
        case .fast: "ultrafast"
        case .balanced: "medium"
        }
    }
}

/// HEIF (HEVC still image) encoding and decoding with libheif.
///
/// libheif is opened on first use (`HEIFLibrary`); a system without it gets a typed error from
/// every call. Decoding needs nothing more; encoding needs an HEVC encoder in libheif (Debian
/// 12's libheif has x265 built in; `HEIFCodec.canEncode` tells). Encoding is slow compared with JPEG, so callers
/// run it off any frame path.
public enum HEIFCodec {
    /// Whether libheif on this system can encode HEVC stills (false when libheif cannot be loaded).
    public static var canEncode: Bool {
        guard (try? HEIFLibrary.require()) != nil else { return false }
        return libheif.heif_have_encoder_for_format(heif_compression_HEVC) != 0
    }

    /// The names of the HEIF/AVIF encoders libheif offers here (for diagnostics and notes).
    public static var encoderNames: [String] {
        guard (try? HEIFLibrary.require()) != nil else { return [] }
        var names: [String] = []
        for format in [heif_compression_HEVC, heif_compression_AV1] {
            var descriptors = [OpaquePointer?](repeating: nil, count: 8)
            let count = descriptors.withUnsafeMutableBufferPointer { buffer in
                libheif.heif_context_get_encoder_descriptors(nil, format, nil, buffer.baseAddress, 8)
            }
            for descriptor in descriptors.prefix(Int(count)) {
                if let name = libheif.heif_encoder_descriptor_get_id_name(descriptor) { names.append(String(cString: name)) }
            }
        }
        return names
    }

    /// Encodes `buffer` (any raw format; converted to I420 first) at `quality` (0–100),
    /// optionally with an EXIF block (an APP1 payload starting "Exif\0\0", as `ExifMetadata` makes).
    public static func encode(_ buffer: PixelBuffer, quality: Int = 80, speed: HEIFSpeed = .fast, exif: [UInt8]? = nil) throws(MediaError) -> [UInt8] {
        guard (0...100).contains(quality) else { throw .encoderFailed(format: "HEIF", reason: "quality \(quality) is outside 0–100") }
        try HEIFLibrary.require()
        guard canEncode else { throw .encoderFailed(format: "HEIF", reason: "libheif on this system has no HEVC encoder") }
        let planar = buffer.format == .i420 ? buffer : try buffer.converted(to: .i420)
        guard let context = libheif.heif_context_alloc() else { throw .encoderFailed(format: "HEIF", reason: "out of memory") }
        defer { libheif.heif_context_free(context) }

        var image: OpaquePointer?
        try check(libheif.heif_image_create(Int32(planar.width), Int32(planar.height), heif_colorspace_YCbCr, heif_chroma_420, &image), "HEIF")
        defer { libheif.heif_image_release(image) }
        let channels = [heif_channel_Y, heif_channel_Cb, heif_channel_Cr]
        for (index, channel) in channels.enumerated() {
            let plane = planar.planes[index]
            let w = index == 0 ? planar.width : (planar.width + 1) / 2
            let h = plane.rows
            try check(libheif.heif_image_add_plane(image, channel, Int32(w), Int32(h), 8), "HEIF")
            var stride: Int32 = 0
            guard let destination = libheif.heif_image_get_plane(image, channel, &stride) else {
                throw .encoderFailed(format: "HEIF", reason: "libheif gave no plane to fill")
            }
            CopyPlane(planar.baseAddress(ofPlane: index), planar.bytesPerRow(ofPlane: index), destination, stride, Int32(w), Int32(h))
        }
        // Say how the samples are coded (BT.601 limited range), so decoders convert them back correctly.
        if let nclx = libheif.heif_nclx_color_profile_alloc() {
            nclx.pointee.color_primaries = heif_color_primaries_ITU_R_BT_601_6
            nclx.pointee.transfer_characteristics = heif_transfer_characteristic_ITU_R_BT_601_6
            nclx.pointee.matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6
            nclx.pointee.full_range_flag = 0
            _ = libheif.heif_image_set_nclx_color_profile(image, nclx)
            libheif.heif_nclx_color_profile_free(nclx)
        }

        var encoder: OpaquePointer?
        try check(libheif.heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "HEIF")
        defer { libheif.heif_encoder_release(encoder) }
        try check(libheif.heif_encoder_set_lossy_quality(encoder, Int32(quality)), "HEIF")
        _ = libheif.heif_encoder_set_parameter(encoder, "preset", speed.preset)

        var handle: OpaquePointer?
        try check(libheif.heif_context_encode_image(context, image, encoder, nil, &handle), "HEIF")
        defer { libheif.heif_image_handle_release(handle) }
        if let exif, exif.count > 6 {
            // libheif wants the TIFF block itself; it writes the offset word the format needs.
            let tiff = exif.starts(with: Array("Exif\0\0".utf8)) ? Array(exif.dropFirst(6)) : exif
            try check(tiff.withUnsafeBytes { libheif.heif_context_add_exif_metadata(context, handle, $0.baseAddress, Int32($0.count)) }, "HEIF")
        }

        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var writer = heif_writer(writer_api_version: 1, write: { _, data, size, userdata in
            let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
            if let data, size > 0 { sink.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size)) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        })
        try check(withExtendedLifetime(sink) { libheif.heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()) }, "HEIF")
        return sink.bytes
    }

    /// Reads the primary image's size without decoding.
    public static func size(_ data: [UInt8]) throws(MediaError) -> (width: Int, height: Int) {
        try withPrimaryImage(data) { handle throws(MediaError) in
            (Int(libheif.heif_image_handle_get_width(handle)), Int(libheif.heif_image_handle_get_height(handle)))
        }
    }

    /// Decodes the primary image to BGRA or RGBA, refusing images over `maximumPixels`.
    /// With `longestSide`, an embedded thumbnail at least that large is decoded instead when the file has one.
    public static func decode(_ data: [UInt8], to format: PixelFormat = .bgra, maximumPixels: Int = DecodingLimits.maximumPixels,
                              preferThumbnailOf longestSide: Int? = nil) throws(MediaError) -> PixelBuffer {
        guard format == .bgra || format == .rgba else { throw .unsupported("decoding HEIF to \(format); decode to BGRA and convert") }
        return try withPrimaryImage(data, maximumPixels: maximumPixels) { primary throws(MediaError) in
            let width = Int(libheif.heif_image_handle_get_width(primary)), height = Int(libheif.heif_image_handle_get_height(primary))
            try DecodingLimits.check(width: width, height: height, maximumPixels: maximumPixels)
            var chosen = primary
            var thumbnail: OpaquePointer?
            defer { if let thumbnail { libheif.heif_image_handle_release(thumbnail) } }
            if let longestSide, libheif.heif_image_handle_get_number_of_thumbnails(primary) > 0 {
                var id: heif_item_id = 0
                if libheif.heif_image_handle_get_list_of_thumbnail_IDs(primary, &id, 1) == 1,
                   libheif.heif_image_handle_get_thumbnail(primary, id, &thumbnail).code == heif_error_Ok, let thumbnail,
                   max(libheif.heif_image_handle_get_width(thumbnail), libheif.heif_image_handle_get_height(thumbnail)) >= longestSide {
                    chosen = thumbnail
                }
            }
            var image: OpaquePointer?
            try check(libheif.heif_decode_image(chosen, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, nil), "HEIF", corrupt: true)
            defer { libheif.heif_image_release(image) }
            var stride: Int32 = 0
            guard let pixels = libheif.heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
                throw .corruptData(format: "HEIF", reason: "the decoded image has no pixels")
            }
            let w = Int(libheif.heif_image_get_width(image, heif_channel_interleaved)), h = Int(libheif.heif_image_get_height(image, heif_channel_interleaved))
            let output = try PixelBuffer(format: format, width: w, height: h, rowAlignment: 16)
            if format == .bgra {
                ABGRToARGB(pixels, stride, output.baseAddress(ofPlane: 0), output.bytesPerRow(ofPlane: 0), Int32(w), Int32(h))
            } else {
                CopyPlane(pixels, stride, output.baseAddress(ofPlane: 0), output.bytesPerRow(ofPlane: 0), Int32(w * 4), Int32(h))
            }
            return output
        }
    }

    /// The EXIF block of the primary image as an APP1-style payload ("Exif\0\0" + TIFF), if any.
    public static func exifPayload(_ data: [UInt8]) throws(MediaError) -> [UInt8]? {
        try exifTIFFBlock(data).map { Array("Exif\0\0".utf8) + $0 }
    }

    /// The primary image's EXIF TIFF structure exactly as the file stores it (after the 4-byte
    /// offset libheif reports), or nil when there is none.
    static func exifTIFFBlock(_ data: [UInt8]) throws(MediaError) -> [UInt8]? {
        try withPrimaryImage(data) { handle throws(MediaError) -> [UInt8]? in
            var id: heif_item_id = 0
            guard libheif.heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
            let size = libheif.heif_image_handle_get_metadata_size(handle, id)
            guard size > 4, size < 1 << 24 else { return nil }
            var block = [UInt8](repeating: 0, count: size)
            try check(block.withUnsafeMutableBytes { libheif.heif_image_handle_get_metadata(handle, id, $0.baseAddress) }, "HEIF", corrupt: true)
            // The block starts with a 4-byte big-endian offset to the TIFF header.
            let reader = UntrustedBytes(block, format: "HEIF")
            let offset = try reader.u32(at: 0, .bigEndian)
            guard let start = try? reader.sum(4, Int(offset)), start < block.count else {
                throw .corruptData(format: "HEIF", reason: "the EXIF block's offset points past its end")
            }
            return Array(block[start...])
        }
    }

    /// Opens `data` and lends its primary image handle to `body` (after `HEIFStructure`'s checks,
    /// grids held to `maximumPixels`).
    private static func withPrimaryImage<R>(_ data: [UInt8], maximumPixels: Int = DecodingLimits.maximumPixels,
                                            _ body: (OpaquePointer) throws(MediaError) -> R) throws(MediaError) -> R {
        guard data.count >= 12 else { throw .corruptData(format: "HEIF", reason: "only \(data.count) bytes") }
        try HEIFLibrary.require()
        let kind = data.withUnsafeBufferPointer { libheif.heif_check_filetype($0.baseAddress, Int32(min($0.count, 64))) }
        guard kind == heif_filetype_yes_supported || kind == heif_filetype_maybe else {
            throw .corruptData(format: "HEIF", reason: "no HEIF file-type box")
        }
        // What libheif 1.15 does not check: loops among derived images, grid sizes, data past the end.
        try HEIFStructure.check(data, maximumPixels: maximumPixels)
        guard let context = libheif.heif_context_alloc() else { throw .corruptData(format: "HEIF", reason: "out of memory") }
        defer { libheif.heif_context_free(context) }
        libheif.heif_context_set_maximum_image_size_limit(context, Int32(DecodingLimits.maximumSide))
        return try data.withBytes { bytes throws(MediaError) -> R in
            try check(libheif.heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil), "HEIF", corrupt: true)
            var handle: OpaquePointer?
            try check(libheif.heif_context_get_primary_image_handle(context, &handle), "HEIF", corrupt: true)
            guard let handle else { throw .corruptData(format: "HEIF", reason: "no primary image") }
            defer { libheif.heif_image_handle_release(handle) }
            return try body(handle)
        }
    }

    /// Turns a libheif error into a `MediaError` (decoding errors as corrupt data).
    private static func check(_ error: heif_error, _ format: String, corrupt: Bool = false) throws(MediaError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        throw corrupt ? .corruptData(format: format, reason: message) : .encoderFailed(format: format, reason: message)
    }
}
