import CExif

/// Reads entries of an EXIF block with libexif, through typed getters that use the block's byte
/// order and check each entry's format and size.
///
/// The block is loaded with `exif_data_load_data` on an `ExifData` whose
/// `EXIF_DATA_OPTION_FOLLOW_SPECIFICATION` is off: `exif_data_new_from_data` leaves it on, and
/// then libexif "fixes" the data after loading by inventing the tags the specification calls
/// mandatory (XResolution 72, ExifVersion 0210, ColorSpace…), which are not in the file.
struct ExifReader: ~Copyable {
    /// The loaded block, owned by the reader.
    private let data: UnsafeMutablePointer<ExifData>
    /// The block's byte order, for the typed getters.
    private let order: ExifByteOrder

    /// Loads `payload`, which must start with "Exif\0\0" and should have been checked by `TIFFLayout`.
    /// Throws `.encoderFailed` when libexif cannot allocate.
    init(payload: [UInt8]) throws(MediaError) {
        guard let data = exif_data_new() else {
            throw .encoderFailed(format: "EXIF", reason: "libexif could not allocate memory")
        }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        payload.withUnsafeBufferPointer { exif_data_load_data(data, $0.baseAddress, UInt32($0.count)) }
        self.data = data
        self.order = exif_data_get_byte_order(data)
    }

    /// Frees the loaded block.
    deinit { exif_data_unref(data) }

    /// The text of an ASCII entry, up to its first NUL, without trailing spaces; invalid UTF-8 is
    /// repaired. Nil when absent or not ASCII.
    func string(_ ifd: ExifIfd, _ tag: UInt16) -> String? {
        guard let (entry, count) = entry(ifd, tag, formats: [EXIF_FORMAT_ASCII]) else { return nil }
        var bytes = Array(UnsafeBufferPointer(start: entry.pointee.data, count: count).prefix { $0 != 0 })
        while let last = bytes.last, last == 0x20 { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The values of a BYTE, SHORT, LONG, SSHORT or SLONG entry; nil when absent or of another format.
    func integers(_ ifd: ExifIfd, _ tag: UInt16) -> [Int]? {
        let formats = [EXIF_FORMAT_BYTE, EXIF_FORMAT_SHORT, EXIF_FORMAT_LONG, EXIF_FORMAT_SSHORT, EXIF_FORMAT_SLONG]
        guard let (entry, count) = entry(ifd, tag, formats: formats), let p = entry.pointee.data else { return nil }
        let format = entry.pointee.format
        let unit = Int(exif_format_get_size(format))
        return (0..<count).map { i in
            let at = p + unit * i
            switch format {
            case EXIF_FORMAT_BYTE: return Int(at.pointee)
            case EXIF_FORMAT_SHORT: return Int(exif_get_short(at, order))
            case EXIF_FORMAT_SSHORT: return Int(exif_get_sshort(at, order))
            case EXIF_FORMAT_LONG: return Int(exif_get_long(at, order))
            default: return Int(exif_get_slong(at, order))
            }
        }
    }

    /// The values of a RATIONAL or SRATIONAL entry; nil when absent, of another format, or when
    /// a denominator is zero.
    func rationals(_ ifd: ExifIfd, _ tag: UInt16) -> [Double]? {
        guard let (entry, count) = entry(ifd, tag, formats: [EXIF_FORMAT_RATIONAL, EXIF_FORMAT_SRATIONAL]),
              let p = entry.pointee.data else { return nil }
        var values: [Double] = []
        for i in 0..<count {
            if entry.pointee.format == EXIF_FORMAT_RATIONAL {
                let r = exif_get_rational(p + 8 * i, order)
                guard r.denominator != 0 else { return nil }
                values.append(Double(r.numerator) / Double(r.denominator))
            } else {
                let r = exif_get_srational(p + 8 * i, order)
                guard r.denominator != 0 else { return nil }
                values.append(Double(r.numerator) / Double(r.denominator))
            }
        }
        return values
    }

    /// The entry for `tag` in `ifd` when it has one of `formats` and at least one value, with the
    /// number of values its data really holds.
    private func entry(_ ifd: ExifIfd, _ tag: UInt16, formats: [ExifFormat]) -> (UnsafeMutablePointer<ExifEntry>, Int)? {
        guard let entry = exif_content_get_entry(exifContent(data, ifd), ExifTag(rawValue: UInt32(tag))),
              entry.pointee.data != nil, formats.contains(entry.pointee.format) else { return nil }
        let unit = Int(exif_format_get_size(entry.pointee.format))
        let count = min(Int(entry.pointee.components), Int(entry.pointee.size) / max(unit, 1))
        return count > 0 ? (entry, count) : nil
    }
}

/// The content (list of entries) of `ifd` in `data`.
func exifContent(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd) -> UnsafeMutablePointer<ExifContent> {
    let contents = data.pointee.ifd
    switch ifd {
    case EXIF_IFD_0: return contents.0!
    case EXIF_IFD_1: return contents.1!
    case EXIF_IFD_EXIF: return contents.2!
    case EXIF_IFD_GPS: return contents.3!
    default: return contents.4!
    }
}
