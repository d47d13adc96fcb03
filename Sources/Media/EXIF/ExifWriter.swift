import CExif

/// Builds an EXIF block with libexif: entries are made by hand (tag, format, count, bytes in the
/// block's byte order) and added to their IFD; libexif lays out the IFDs, the pointers between
/// them and the "Exif\0\0" header when saving.
///
/// libexif's own fix-ups (`EXIF_DATA_OPTION_FOLLOW_SPECIFICATION`) are turned off, so the block
/// holds exactly the entries added. Used by one thread at a time; the libexif objects die with it.
struct ExifWriter: ~Copyable {
    /// libexif's allocator, shared by the block, its entries and their data.
    private let memory: OpaquePointer
    /// The block being built, owned by the writer.
    private let data: UnsafeMutablePointer<ExifData>
    /// The block's byte order, for writing multi-byte values.
    private let order: ExifByteOrder

    /// Makes an empty block in `byteOrder`. Throws `.encoderFailed` when libexif cannot allocate.
    init(byteOrder: TIFFByteOrder) throws(MediaError) {
        guard let memory = exif_mem_new_default() else {
            throw .encoderFailed(format: "EXIF", reason: "libexif could not allocate memory")
        }
        guard let data = exif_data_new_mem(memory) else {
            exif_mem_unref(memory)
            throw .encoderFailed(format: "EXIF", reason: "libexif could not allocate memory")
        }
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_set_data_type(data, EXIF_DATA_TYPE_COMPRESSED)
        let order = byteOrder == .bigEndian ? EXIF_BYTE_ORDER_MOTOROLA : EXIF_BYTE_ORDER_INTEL
        exif_data_set_byte_order(data, order)
        self.memory = memory
        self.data = data
        self.order = order
    }

    /// Frees the block, its entries and the allocator.
    deinit {
        exif_data_unref(data)
        exif_mem_unref(memory)
    }

    /// Adds an ASCII entry: the UTF-8 bytes of `text` and a terminating NUL. `name` is used in
    /// errors. Throws `.invalidMetadata` when `text` holds a NUL or cannot fit in an APP1 segment.
    func ascii(_ ifd: ExifIfd, _ tag: UInt16, _ text: String, name: String) throws(MediaError) {
        let bytes = Array(text.utf8) + [0]
        guard !bytes.dropLast().contains(0) else {
            throw .invalidMetadata("\(name) contains a NUL character, which would cut it short")
        }
        guard bytes.count <= ExifPayload.maximumSize else {
            throw .invalidMetadata("\(name) is \(bytes.count - 1) bytes long, more than a JPEG APP1 segment can hold (\(ExifPayload.maximumSize) bytes)")
        }
        try add(ifd, tag, EXIF_FORMAT_ASCII, count: bytes.count) { p in
            for (i, byte) in bytes.enumerated() { p[i] = byte }
        }
    }

    /// Adds a BYTE entry (or UNDEFINED when `undefined`) holding `values`.
    func bytes(_ ifd: ExifIfd, _ tag: UInt16, _ values: [UInt8], undefined: Bool = false) throws(MediaError) {
        try add(ifd, tag, undefined ? EXIF_FORMAT_UNDEFINED : EXIF_FORMAT_BYTE, count: values.count) { p in
            for (i, byte) in values.enumerated() { p[i] = byte }
        }
    }

    /// Adds a SHORT entry holding `values`.
    func shorts(_ ifd: ExifIfd, _ tag: UInt16, _ values: [UInt16]) throws(MediaError) {
        let order = self.order
        try add(ifd, tag, EXIF_FORMAT_SHORT, count: values.count) { p in
            for (i, value) in values.enumerated() { exif_set_short(p + 2 * i, order, value) }
        }
    }

    /// Adds a LONG entry holding `values`.
    func longs(_ ifd: ExifIfd, _ tag: UInt16, _ values: [UInt32]) throws(MediaError) {
        let order = self.order
        try add(ifd, tag, EXIF_FORMAT_LONG, count: values.count) { p in
            for (i, value) in values.enumerated() { exif_set_long(p + 4 * i, order, ExifLong(value)) }
        }
    }

    /// Adds a RATIONAL entry holding `values` as (numerator, denominator) pairs.
    func rationals(_ ifd: ExifIfd, _ tag: UInt16, _ values: [(UInt32, UInt32)]) throws(MediaError) {
        let order = self.order
        try add(ifd, tag, EXIF_FORMAT_RATIONAL, count: values.count) { p in
            for (i, value) in values.enumerated() {
                exif_set_rational(p + 8 * i, order, ExifRational(numerator: ExifLong(value.0), denominator: ExifLong(value.1)))
            }
        }
    }

    /// The block: "Exif\0\0" and the TIFF structure. Throws `.invalidMetadata` when it is larger
    /// than an APP1 segment can hold, `.encoderFailed` when libexif fails.
    func encoded() throws(MediaError) -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        exif_data_save_data(data, &buffer, &size)
        guard let buffer, size > 0 else {
            throw .encoderFailed(format: "EXIF", reason: "libexif could not write the block (out of memory?)")
        }
        defer { exif_mem_free(memory, buffer) }
        try ExifPayload.checkSize(Int(size))
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// Makes an entry of `count` values of `format`, lets `fill` write its bytes (zeroed first),
    /// and adds it to `ifd`.
    private func add(_ ifd: ExifIfd, _ tag: UInt16, _ format: ExifFormat, count: Int,
                     fill: (UnsafeMutablePointer<UInt8>) -> Void) throws(MediaError) {
        let size = Int(exif_format_get_size(format)) * count
        guard count > 0, size <= ExifPayload.maximumSize else {
            throw .invalidMetadata("tag 0x\(hex(tag)) would hold \(size) bytes, which cannot fit in a JPEG APP1 segment")
        }
        guard let entry = exif_entry_new_mem(memory) else {
            throw .encoderFailed(format: "EXIF", reason: "libexif could not allocate an entry")
        }
        defer { exif_entry_unref(entry) }
        guard let raw = exif_mem_alloc(memory, ExifLong(size)) else {
            throw .encoderFailed(format: "EXIF", reason: "libexif could not allocate \(size) bytes")
        }
        let bytes = raw.bindMemory(to: UInt8.self, capacity: size)
        bytes.initialize(repeating: 0, count: size)
        fill(bytes)
        entry.pointee.tag = ExifTag(rawValue: UInt32(tag))
        entry.pointee.format = format
        entry.pointee.components = UInt(count)
        entry.pointee.data = bytes
        entry.pointee.size = UInt32(size)
        let content = exifContent(data, ifd)
        let before = content.pointee.count
        exif_content_add_entry(content, entry)
        guard content.pointee.count == before + 1 else {
            throw .encoderFailed(format: "EXIF", reason: "libexif did not add tag 0x\(hex(tag)) (added twice?)")
        }
    }
}
