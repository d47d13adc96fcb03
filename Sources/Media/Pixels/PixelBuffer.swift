import Glibc

/// Frame pixels in memory: a format, a size, and one to three planes with their strides.
///
/// A `PixelBuffer` owns its bytes, or wraps memory someone else owns (a driver's mmap'd buffer)
/// and calls a release closure when it dies. It is a reference type so that a frame is handed
/// on by reference: the preview, a photo and the recorder read the same bytes.
///
/// Concurrency: a buffer is `Sendable` because its geometry is immutable. Its bytes are not
/// guarded: whoever fills a buffer must be its only holder while writing (a pool hands a buffer
/// out only when nobody else holds it); after that, readers on any thread may share it.
public final class PixelBuffer: @unchecked Sendable {
    /// One plane: where it starts in the buffer, its stride, and how many rows it has.
    public struct Plane: Sendable, Equatable {
        /// Byte offset of the plane's first row from the start of the buffer.
        public let offset: Int
        /// Bytes from the start of one row to the start of the next.
        public let bytesPerRow: Int
        /// Number of rows.
        public let rows: Int
        /// Bytes of pixel data in one row (without padding).
        public let rowBytes: Int
    }

    /// The pixel layout.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The planes, in the format's order (Y, U, V; Y, UV; or one packed plane).
    public let planes: [Plane]
    /// Total bytes the buffer can hold.
    public let capacity: Int
    /// Bytes of payload in a compressed (`.mjpeg`) buffer; equal to the used size for raw formats.
    public var payloadSize: Int {
        get { _payloadSize }
        set { _payloadSize = min(max(newValue, 0), capacity) }
    }
    private var _payloadSize: Int
    /// How the Y'CbCr samples of a YUV buffer map to levels (ignored for RGB and GREY).
    /// Cameras' raw YUV is `.video`; JPEG's is `.full`. Converters read it from sources and
    /// set it on destinations to what they wrote. Set it before sharing the buffer.
    public var yuvRange: YUVRange = .video
    /// The start of the bytes.
    public let baseAddress: UnsafeMutableRawPointer
    private let release: (@Sendable (UnsafeMutableRawPointer) -> Void)?

    /// Alignment of freshly allocated buffers and of their rows: enough for AVX-512 loads.
    public static let alignment = 64

    /// Allocates a buffer for `format` at `width`×`height`, rows padded to `rowAlignment` bytes.
    /// For `.mjpeg`, `compressedCapacity` sets the payload room (default: width×height×2 bytes).
    public init(format: PixelFormat, width: Int, height: Int, rowAlignment: Int = 1, compressedCapacity: Int? = nil) throws(MediaError) {
        try format.validate(width: width, height: height)
        guard rowAlignment > 0, rowAlignment & (rowAlignment - 1) == 0 else {
            throw .invalidDimensions(width: width, height: height, reason: "row alignment \(rowAlignment) is not a power of two")
        }
        var planes: [Plane] = []
        var offset = 0
        if format.isCompressed {
            let size = compressedCapacity ?? width * height * 2
            planes = [Plane(offset: 0, bytesPerRow: size, rows: 1, rowBytes: size)]
            offset = size
        } else {
            for geometry in format.planeGeometry(width: width, height: height) {
                let stride = (geometry.rowBytes + rowAlignment - 1) & ~(rowAlignment - 1)
                planes.append(Plane(offset: offset, bytesPerRow: stride, rows: geometry.rows, rowBytes: geometry.rowBytes))
                offset += stride * geometry.rows
                offset = (offset + PixelBuffer.alignment - 1) & ~(PixelBuffer.alignment - 1)
            }
        }
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.capacity = max(offset, 1)
        self._payloadSize = format.isCompressed ? 0 : offset
        self.baseAddress = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: PixelBuffer.alignment)
        self.release = nil
    }

    /// Copies `bytes` laid out with the given strides (default: tight rows, planes back to back),
    /// checking that strides cover a row and that the bytes are enough.
    /// For `.mjpeg`, `bytes` is the compressed frame and `bytesPerRow` is ignored.
    public convenience init(format: PixelFormat, width: Int, height: Int, bytes: UnsafeRawBufferPointer, bytesPerRow: [Int]? = nil) throws(MediaError) {
        if format.isCompressed {
            try self.init(format: format, width: width, height: height, compressedCapacity: max(bytes.count, 1))
            copyPayload(from: bytes)
            return
        }
        let layout = try PixelBuffer.layout(format: format, width: width, height: height, bytesPerRow: bytesPerRow, available: bytes.count)
        try self.init(format: format, width: width, height: height)
        copyPlanes(from: bytes, layout: layout)
    }

    /// Copies `bytes` (see the raw-pointer form).
    public convenience init(format: PixelFormat, width: Int, height: Int, bytes: [UInt8], bytesPerRow: [Int]? = nil) throws(MediaError) {
        if format.isCompressed {
            try self.init(format: format, width: width, height: height, compressedCapacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { copyPayload(from: $0) }
            return
        }
        let layout = try PixelBuffer.layout(format: format, width: width, height: height, bytesPerRow: bytesPerRow, available: bytes.count)
        try self.init(format: format, width: width, height: height)
        bytes.withUnsafeBytes { copyPlanes(from: $0, layout: layout) }
    }

    /// Copies a compressed payload in and sets `payloadSize`.
    private func copyPayload(from bytes: UnsafeRawBufferPointer) {
        if let base = bytes.baseAddress, bytes.count > 0 {
            baseAddress.copyMemory(from: base, byteCount: min(bytes.count, capacity))
        }
        payloadSize = bytes.count
    }

    /// Copies planes from external bytes whose layout `PixelBuffer.layout` has validated.
    private func copyPlanes(from bytes: UnsafeRawBufferPointer, layout: [(offset: Int, bytesPerRow: Int)]) {
        for (index, source) in layout.enumerated() {
            let plane = planes[index]
            for row in 0..<plane.rows {
                (baseAddress + plane.offset + row * plane.bytesPerRow)
                    .copyMemory(from: bytes.baseAddress! + source.offset + row * source.bytesPerRow, byteCount: plane.rowBytes)
            }
        }
    }

    /// Wraps memory owned elsewhere (for example a driver's mmap'd frame) without copying;
    /// `release` runs when the buffer dies. Strides and size are checked as for copies.
    public init(wrapping memory: UnsafeMutableRawBufferPointer, format: PixelFormat, width: Int, height: Int,
                bytesPerRow: [Int]? = nil, payloadSize: Int? = nil,
                release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void) throws(MediaError) {
        guard let base = memory.baseAddress, memory.count > 0 else { throw .bufferTooShort(needed: 1, actual: 0) }
        if format.isCompressed {
            try format.validate(width: width, height: height)
            planes = [Plane(offset: 0, bytesPerRow: memory.count, rows: 1, rowBytes: memory.count)]
            _payloadSize = min(payloadSize ?? memory.count, memory.count)
        } else {
            let layout = try PixelBuffer.layout(format: format, width: width, height: height, bytesPerRow: bytesPerRow, available: memory.count)
            let geometry = format.planeGeometry(width: width, height: height)
            planes = zip(layout, geometry).map { Plane(offset: $0.offset, bytesPerRow: $0.bytesPerRow, rows: $1.rows, rowBytes: $1.rowBytes) }
            _payloadSize = memory.count
        }
        self.format = format
        self.width = width
        self.height = height
        self.capacity = memory.count
        self.baseAddress = base
        self.release = release
    }

    /// Wraps memory owned elsewhere whose planes do not follow one another (a driver's planes in
    /// separate buffers, mapped side by side): plane `p` starts `planeOffsets[p]` bytes into
    /// `memory`, with rows `bytesPerRow[p]` apart. Nothing is copied; `release` runs when the
    /// buffer dies. Throws unless every plane, with its stride, lies inside `memory`.
    public init(wrapping memory: UnsafeMutableRawBufferPointer, format: PixelFormat, width: Int, height: Int,
                planeOffsets: [Int], bytesPerRow: [Int], release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void) throws(MediaError) {
        guard let base = memory.baseAddress, memory.count > 0 else { throw .bufferTooShort(needed: 1, actual: 0) }
        guard !format.isCompressed else { throw .mismatch("\(format) is compressed: it has no planes to place") }
        try format.validate(width: width, height: height)
        let geometry = format.planeGeometry(width: width, height: height)
        guard planeOffsets.count == geometry.count, bytesPerRow.count == geometry.count else {
            throw .mismatch("\(format) has \(geometry.count) planes but \(planeOffsets.count) offsets and \(bytesPerRow.count) strides were given")
        }
        var planes: [Plane] = []
        for (index, plane) in geometry.enumerated() {
            let stride = bytesPerRow[index], offset = planeOffsets[index]
            guard stride >= plane.rowBytes else { throw .strideTooSmall(plane: index, bytesPerRow: stride, minimum: plane.rowBytes) }
            let end = offset + stride * (plane.rows - 1) + plane.rowBytes
            guard offset >= 0, end <= memory.count else { throw .bufferTooShort(needed: end, actual: memory.count) }
            planes.append(Plane(offset: offset, bytesPerRow: stride, rows: plane.rows, rowBytes: plane.rowBytes))
        }
        self.format = format
        self.width = width
        self.height = height
        self.planes = planes
        self.capacity = memory.count
        self._payloadSize = memory.count
        self.baseAddress = base
        self.release = release
    }

    deinit {
        if let release { release(baseAddress) } else { baseAddress.deallocate() }
    }

    /// Computes plane offsets for external bytes with the given strides, validating everything.
    static func layout(format: PixelFormat, width: Int, height: Int, bytesPerRow: [Int]?, available: Int) throws(MediaError) -> [(offset: Int, bytesPerRow: Int)] {
        try format.validate(width: width, height: height)
        let geometry = format.planeGeometry(width: width, height: height)
        if let bytesPerRow, bytesPerRow.count != geometry.count {
            throw .mismatch("\(format) has \(geometry.count) planes but \(bytesPerRow.count) strides were given")
        }
        var result: [(offset: Int, bytesPerRow: Int)] = []
        var offset = 0
        for (index, plane) in geometry.enumerated() {
            let stride = bytesPerRow?[index] ?? plane.rowBytes
            guard stride >= plane.rowBytes else {
                throw .strideTooSmall(plane: index, bytesPerRow: stride, minimum: plane.rowBytes)
            }
            result.append((offset, stride))
            // The last row needs only rowBytes, not a full stride.
            offset += stride * (plane.rows - 1) + plane.rowBytes
            if index + 1 < geometry.count { offset += stride - plane.rowBytes }
        }
        guard offset <= available else { throw .bufferTooShort(needed: offset, actual: available) }
        return result
    }

    /// The start of plane `index`.
    public func baseAddress(ofPlane index: Int) -> UnsafeMutablePointer<UInt8> {
        (baseAddress + planes[index].offset).assumingMemoryBound(to: UInt8.self)
    }

    /// The stride of plane `index`, as libyuv and libjpeg take it.
    public func bytesPerRow(ofPlane index: Int) -> Int32 {
        Int32(planes[index].bytesPerRow)
    }

    /// The compressed payload of an `.mjpeg` buffer (or all bytes of a raw one), without copying.
    public var payload: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: baseAddress, count: payloadSize)
    }

    /// Reads the pixel at (`x`, `y`) as B, G, R, A; for test and diagnostics, not for frame paths.
    /// YUV formats are converted with BT.601 in the buffer's `yuvRange`.
    public func bgraPixel(x: Int, y: Int) -> (b: UInt8, g: UInt8, r: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        func byte(_ plane: Int, _ column: Int, _ row: Int) -> UInt8 {
            baseAddress(ofPlane: plane)[row * planes[plane].bytesPerRow + column]
        }
        let full = yuvRange == .full
        func yuv(_ y: UInt8, _ u: UInt8, _ v: UInt8) -> (UInt8, UInt8, UInt8, UInt8) {
            let c = full ? Double(y) : (Double(y) - 16) * 255 / 219
            let k = full ? 1.0 : 255.0 / 224.0
            let d = (Double(u) - 128) * k, e = (Double(v) - 128) * k
            func clamp(_ x: Double) -> UInt8 { UInt8(max(0, min(255, x.rounded()))) }
            return (clamp(c + 1.772 * d), clamp(c - 0.344136 * d - 0.714136 * e), clamp(c + 1.402 * e), 255)
        }
        switch format {
        case .bgra: return (byte(0, x * 4, y), byte(0, x * 4 + 1, y), byte(0, x * 4 + 2, y), byte(0, x * 4 + 3, y))
        case .rgba: return (byte(0, x * 4 + 2, y), byte(0, x * 4 + 1, y), byte(0, x * 4, y), byte(0, x * 4 + 3, y))
        case .rgb24: return (byte(0, x * 3 + 2, y), byte(0, x * 3 + 1, y), byte(0, x * 3, y), 255)
        case .bgr24: return (byte(0, x * 3, y), byte(0, x * 3 + 1, y), byte(0, x * 3 + 2, y), 255)
        case .grey: let g = byte(0, x, y); return (g, g, g, 255)
        case .yuyv: return yuv(byte(0, x * 2, y), byte(0, (x / 2) * 4 + 1, y), byte(0, (x / 2) * 4 + 3, y))
        case .uyvy: return yuv(byte(0, x * 2 + 1, y), byte(0, (x / 2) * 4, y), byte(0, (x / 2) * 4 + 2, y))
        case .nv12: return yuv(byte(0, x, y), byte(1, (x / 2) * 2, y / 2), byte(1, (x / 2) * 2 + 1, y / 2))
        case .nv21: return yuv(byte(0, x, y), byte(1, (x / 2) * 2 + 1, y / 2), byte(1, (x / 2) * 2, y / 2))
        case .i420: return yuv(byte(0, x, y), byte(1, x / 2, y / 2), byte(2, x / 2, y / 2))
        case .yv12: return yuv(byte(0, x, y), byte(2, x / 2, y / 2), byte(1, x / 2, y / 2))
        case .i422: return yuv(byte(0, x, y), byte(1, x / 2, y), byte(2, x / 2, y))
        case .i444: return yuv(byte(0, x, y), byte(1, x, y), byte(2, x, y))
        case .mjpeg: preconditionFailure("bgraPixel(x:y:) needs decoded pixels, not an MJPEG payload")
        }
    }

    /// Copies the rows of plane data (no padding) into a new array; for tests and file output.
    public func packedBytes() -> [UInt8] {
        if format.isCompressed { return Array(payload.bindMemory(to: UInt8.self)) }
        var out: [UInt8] = []
        out.reserveCapacity(planes.reduce(0) { $0 + $1.rowBytes * $1.rows })
        for (index, plane) in planes.enumerated() {
            let base = baseAddress(ofPlane: index)
            for row in 0..<plane.rows {
                out.append(contentsOf: UnsafeBufferPointer(start: base + row * plane.bytesPerRow, count: plane.rowBytes))
            }
        }
        return out
    }
}
