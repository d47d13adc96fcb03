import Glibc
import Media
import Testing

@Suite("PixelBuffer and pools")
struct PixelBufferTests {
    @Test("plane geometry follows V4L2 layouts, odd sizes rounding chroma up")
    func geometry() throws {
        let i420 = try PixelBuffer(format: .i420, width: 33, height: 17)
        #expect(i420.planes.map(\.rowBytes) == [33, 17, 17])
        #expect(i420.planes.map(\.rows) == [17, 9, 9])
        let nv12 = try PixelBuffer(format: .nv12, width: 33, height: 17)
        #expect(nv12.planes.map(\.rowBytes) == [33, 34])
        let yuyv = try PixelBuffer(format: .yuyv, width: 33, height: 2)
        #expect(yuyv.planes[0].rowBytes == 68)
        let aligned = try PixelBuffer(format: .bgra, width: 33, height: 2, rowAlignment: 64)
        #expect(aligned.planes[0].bytesPerRow == 192)
        #expect(Int(bitPattern: aligned.baseAddress) % PixelBuffer.alignment == 0)
    }

    @Test("zero and oversized dimensions are refused with a typed error")
    func badDimensions() {
        #expect(throws: MediaError.self) { try PixelBuffer(format: .bgra, width: 0, height: 10) }
        #expect(throws: MediaError.self) { try PixelBuffer(format: .i420, width: 10, height: -2) }
        #expect(throws: MediaError.self) { try PixelBuffer(format: .bgra, width: 100_000, height: 100_000) }
        #expect(throws: MediaError.self) { try PixelBuffer(format: .bgra, width: 4, height: 4, rowAlignment: 3) }
    }

    @Test("strides smaller than a row and short buffers are refused")
    func badStrides() throws {
        let bytes = [UInt8](repeating: 0, count: 100)
        do {
            _ = try PixelBuffer(format: .bgra, width: 10, height: 2, bytes: bytes, bytesPerRow: [39])
            Issue.record("accepted a short stride")
        } catch {
            #expect(error == .strideTooSmall(plane: 0, bytesPerRow: 39, minimum: 40))
            #expect(error.description.contains("smaller than one row"))
        }
        do {
            _ = try PixelBuffer(format: .bgra, width: 10, height: 3, bytes: bytes)
            Issue.record("accepted a short buffer")
        } catch {
            #expect(error == .bufferTooShort(needed: 120, actual: 100))
        }
        #expect(throws: MediaError.self) { try PixelBuffer(format: .i420, width: 8, height: 8, bytes: bytes, bytesPerRow: [8, 4]) }
        // A padded stride is fine, and the last row needs no padding.
        let padded = try PixelBuffer(format: .grey, width: 10, height: 3, bytes: [UInt8](0..<32), bytesPerRow: [11])
        #expect(padded.packedBytes() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31])
    }

    @Test("wrapping external memory calls the release closure once")
    func wrapping() throws {
        final class Flag: @unchecked Sendable { var released = 0 }
        let flag = Flag()
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        do {
            let buffer = try PixelBuffer(wrapping: memory, format: .grey, width: 8, height: 8) { pointer in
                flag.released += 1
                pointer.deallocate()
            }
            #expect(buffer.baseAddress == memory.baseAddress)
        }
        #expect(flag.released == 1)
        let small = UnsafeMutableRawBufferPointer.allocate(byteCount: 10, alignment: 16)
        defer { small.deallocate() }
        #expect(throws: MediaError.self) { try PixelBuffer(wrapping: small, format: .grey, width: 8, height: 8) { _ in } }
    }

    @Test("wrapping planes placed apart (a driver's separate plane buffers) reads the same pixels as the contiguous frame, converted too")
    func wrappingSeparatePlanes() throws {
        // An I420 frame 6×4 with distinct samples, laid out contiguously…
        let y = [UInt8](stride(from: 16, to: 16 + 24 * 9, by: 9)), u = [UInt8]([60, 110, 200, 90, 140, 230]), v = [UInt8]([240, 20, 128, 70, 180, 35])
        let contiguous = try PixelBuffer(format: .i420, width: 6, height: 4, bytes: y + u + v)
        // …and in one block with each plane on its own "page", the chroma rows padded to 8 bytes.
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 3 * 64, alignment: 64)
        defer { memory.deallocate() }
        memory.initializeMemory(as: UInt8.self, repeating: 0xEE)
        for (i, value) in y.enumerated() { memory[i] = value }
        for row in 0..<2 {
            for column in 0..<3 {
                memory[64 + row * 8 + column] = u[row * 3 + column]
                memory[128 + row * 8 + column] = v[row * 3 + column]
            }
        }
        let apart = try PixelBuffer(wrapping: memory, format: .i420, width: 6, height: 4, planeOffsets: [0, 64, 128], bytesPerRow: [6, 8, 8]) { _ in }
        #expect(apart.baseAddress == memory.baseAddress)
        #expect(apart.packedBytes() == contiguous.packedBytes())
        for yy in 0..<4 {
            for xx in 0..<6 { #expect(apart.bgraPixel(x: xx, y: yy) == contiguous.bgraPixel(x: xx, y: yy), "(\(xx), \(yy))") }
        }
        #expect(try apart.converted(to: .bgra).packedBytes() == contiguous.converted(to: .bgra).packedBytes())
        // A plane past the end, a stride shorter than a row, a count that does not match: refused.
        #expect(throws: MediaError.self) {
            try PixelBuffer(wrapping: memory, format: .i420, width: 6, height: 4, planeOffsets: [0, 64, 184], bytesPerRow: [6, 8, 8]) { _ in }
        }
        #expect(throws: MediaError.self) {
            try PixelBuffer(wrapping: memory, format: .i420, width: 6, height: 4, planeOffsets: [0, 64, 128], bytesPerRow: [6, 2, 8]) { _ in }
        }
        #expect(throws: MediaError.self) {
            try PixelBuffer(wrapping: memory, format: .nv12, width: 6, height: 4, planeOffsets: [0, 64, 128], bytesPerRow: [6, 8, 8]) { _ in }
        }
    }

    @Test("a pool recycles released buffers and never grows past its maximum")
    func pool() throws {
        let pool = try PixelBufferPool(format: .nv12, width: 64, height: 48, maximumCount: 3, preallocate: 2)
        #expect(pool.allocatedCount == 2)
        var held: [PixelBuffer] = []
        for _ in 0..<3 { held.append(try #require(pool.makeBuffer())) }
        #expect(pool.allocatedCount == 3)
        #expect(pool.inUseCount == 3)
        #expect(pool.makeBuffer() == nil)
        #expect(throws: MediaError.poolExhausted(capacity: 3)) { try pool.dequeueBuffer() }
        let first = ObjectIdentifier(held[0])
        held.removeFirst()
        let again = try #require(pool.makeBuffer())
        #expect(ObjectIdentifier(again) == first)
        // Steady state: taking and dropping buffers many times allocates nothing new.
        held.removeAll()
        for _ in 0..<1000 { _ = pool.makeBuffer() }
        #expect(pool.allocatedCount == 3)
    }

    @Test("makeResident makes a pool whole and its free buffers resident (mincore), so its footprint does not grow when more of them come into use; a buffer in use is left to its user, and none is handed out meanwhile")
    func residentPool() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        // The whole pages inside `buffer`.
        func pages(_ buffer: PixelBuffer) -> (start: UnsafeMutableRawPointer, length: Int) {
            let start = (Int(bitPattern: buffer.baseAddress) + page - 1) / page * page
            let end = (Int(bitPattern: buffer.baseAddress) + buffer.capacity) / page * page
            return (UnsafeMutableRawPointer(bitPattern: start)!, end - start)
        }
        // How many of them are in memory, of how many.
        func resident(_ buffer: PixelBuffer) -> (count: Int, of: Int) {
            let (start, length) = pages(buffer)
            var vector = [UInt8](repeating: 0, count: length / page)
            #expect(mincore(start, length, &vector) == 0)
            return (vector.count(where: { $0 & 1 != 0 }), vector.count)
        }
        let pool = try PixelBufferPool(format: .i420, width: 1920, height: 1080, rowAlignment: 64, maximumCount: 4, preallocate: 4)
        // Each buffer's memory given back to the kernel first (the allocator may have handed out
        // memory another test had written): none of it is resident now.
        var held: [PixelBuffer] = []
        for _ in 0..<4 { held.append(try #require(pool.makeBuffer())) }
        for buffer in held {
            let (start, length) = pages(buffer)
            #expect(madvise(start, length, MADV_DONTNEED) == 0)
            #expect(resident(buffer).count == 0, "\(resident(buffer))")
        }
        // One stays in use through it; the others are free.
        let inUse = held[0]
        held.removeAll()
        pool.makeResident()
        #expect(pool.allocatedCount == 4)
        #expect(resident(inUse).count == 0, "the buffer in use was written: \(resident(inUse))")
        for _ in 0..<3 { held.append(try #require(pool.makeBuffer())) }
        #expect(pool.makeBuffer() == nil, "makeResident kept a buffer, or made more than the maximum")
        for buffer in held {
            let pages = resident(buffer)
            #expect(pages.of > 700 && pages.count == pages.of, "\(pages.count) of \(pages.of) pages resident")
        }
        // A pool made with fewer buffers is made whole.
        let small = try PixelBufferPool(format: .i420, width: 64, height: 48, maximumCount: 3, preallocate: 1)
        small.makeResident()
        #expect(small.allocatedCount == 3)
        withExtendedLifetime(inUse) {}
    }

    @Test("fourCC codes match V4L2")
    func fourCC() {
        #expect(PixelFormat.yuyv.fourCC == 0x5659_5559)
        #expect(PixelFormat(fourCC: 0x4750_4A4D) == .mjpeg)
        #expect(PixelFormat(fourCC: 0x3231_5659) == .yv12)
        #expect(PixelFormat(fourCC: 0x1234_5678) == nil)
        for format in PixelFormat.allCases { #expect(PixelFormat(fourCC: format.fourCC) == format) }
    }

    @Test("forDisplay: an opaque picture becomes 24-bit BGR with the same colours; one with transparency stays BGRA, premultiplied")
    func forDisplay() throws {
        let image = try PixelBuffer(format: .bgra, width: 5, height: 3)
        for y in 0..<3 {
            for x in 0..<5 {
                let p = image.baseAddress(ofPlane: 0) + y * Int(image.bytesPerRow(ofPlane: 0)) + x * 4
                p[0] = UInt8(10 * x); p[1] = UInt8(50 + 20 * y); p[2] = 200; p[3] = 255
            }
        }
        #expect(image.isOpaque)
        let opaque = try image.forDisplay()
        #expect(opaque.format == .bgr24 && opaque.width == 5 && opaque.height == 3)
        for (x, y) in [(0, 0), (4, 2), (2, 1)] {
            let a = image.bgraPixel(x: x, y: y), b = opaque.bgraPixel(x: x, y: y)
            #expect(a.b == b.b && a.g == b.g && a.r == b.r, "(\(x), \(y)): \(a) → \(b)")
        }
        // Half-transparent in one corner: colours premultiplied there, left alone elsewhere.
        image.baseAddress(ofPlane: 0)[3] = 128
        #expect(!image.isOpaque)
        let translucent = try image.forDisplay()
        #expect(translucent.format == .bgra)
        let corner = translucent.bgraPixel(x: 0, y: 0), other = translucent.bgraPixel(x: 4, y: 2)
        #expect(corner.a == 128 && abs(Int(corner.r) - 100) <= 1 && abs(Int(corner.g) - 25) <= 1, "\(corner)")
        #expect(other.a == 255 && other.r == 200 && other.b == 40, "\(other)")
        #expect(throws: MediaError.self) { try PixelBuffer(format: .i420, width: 4, height: 4).forDisplay() }
    }
}
