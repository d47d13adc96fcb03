import Foundation
import Glibc
@testable import Media
import Testing
import TestSupport

/// Files that lie about their own structure or are not files at all: sizes read from them go
/// through `UntrustedBytes` (checked, never trapping), paths chosen by others are opened only by
/// `RegularFile` (never blocking, only regular files), and progressive JPEGs are decoded with
/// TurboJPEG's scan limit.
@Suite struct UntrustedInputTests {
    @Test("UntrustedBytes: sizes that overflow or point past the end throw instead of trapping")
    func checkedArithmetic() throws {
        let data = UntrustedBytes([0, 0, 0, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0], format: "test")
        #expect(try data.u32(at: 0, .bigEndian) == 8)
        #expect(try data.u32(at: 0, .littleEndian) == 0x0800_0000)
        #expect(try data.range(at: 0, length: 8) == 0..<8)
        let huge = try data.u64(at: 8, .bigEndian)
        #expect(throws: MediaError.self) { try data.range(at: 12, length: huge) }
        #expect(throws: MediaError.self) { try data.range(at: Int.max - 2, length: 8) }
        #expect(throws: MediaError.self) { try data.range(at: 0, length: UInt64.max) }
        #expect(throws: MediaError.self) { try data.u32(at: 14, .bigEndian) }
        #expect(throws: MediaError.self) { try data.sum(Int.max, 1) }
        #expect(throws: MediaError.self) { try data.product(Int.max / 2, 3) }
        #expect(!data.contains(Int.max, length: 1) && data.contains(8, length: 8) && !data.contains(9, length: 8))
    }

    @Test("chunk, segment and IFD walks refuse lengths near the integer limits")
    func hostileLengths() throws {
        // A PNG whose second chunk claims 4 GiB - 1 bytes.
        let png = Chunks.pngSignature + pngChunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("eXIf".utf8) + [1, 2, 3, 4]
        #expect(!Chunks.png(png) { _, _ in true })
        #expect(throws: MediaError.self) { try LocationRemoval.removingLocation(from: png) }
        // A WebP whose EXIF chunk claims 4 GiB - 1 bytes.
        let webp = Array("RIFF".utf8) + [20, 0, 0, 0] + Array("WEBPEXIF".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 0]
        #expect(!Chunks.webp(webp) { _, _ in true })
        #expect(WebPCodec.exifPayload(webp) == nil)
        // A JPEG segment whose length runs past the end.
        #expect(throws: MediaError.self) { try JPEGSegment.header(of: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF, 0x45]) }
        // An EXIF IFD whose entry points 4 GiB - 1 bytes out with 4 GiB - 1 values of 8 bytes.
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1]
        tiff += [0x01, 0x0F, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + [0, 0, 0, 0]
        #expect(throws: MediaError.self) { try TIFFLayout(payload: ExifPayload.header + tiff) }
        // IFD0 at offset 4 GiB - 1.
        #expect(throws: MediaError.self) { try TIFFLayout(payload: ExifPayload.header + Array("II".utf8) + [42, 0, 0xFF, 0xFF, 0xFF, 0xFF]) }
    }

    @Test("an MP4 with a box whose 64-bit size is near Int64.max is reported as not walkable, not trapped on")
    func hugeBox() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path("huge.mp4")
        try makeTestMovie(path, seconds: 0.2, audio: false)
        try appendHugeBox(to: path)
        #expect {
            try MovieRecovery.finishIfAbandoned(path: path)
        } throws: { error in
            guard case let .corruptData(format, reason) = error as? MediaError else { return false }
            return format == "MP4" && reason.contains("past the end")
        }
        // A box too small for its own header, and a size of 1 with its 64-bit size cut off.
        for tail: [UInt8] in [[0, 0, 0, 4] + Array("free".utf8), [0, 0, 0, 1] + Array("free".utf8) + [0, 0]] {
            let other = folder.path("small-\(tail.count).mp4")
            try FileManager.default.copyItem(atPath: folder.path("huge.mp4"), toPath: other)
            try truncateAfterBoxes(other, appending: tail)
            #expect(throws: MediaError.self) { try MovieRecovery.finishIfAbandoned(path: other) }
        }
    }

    @Test("RegularFile refuses a FIFO, a folder and a device at once, and reads regular files")
    func regularFilesOnly() async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.path("x.jpg")
        #expect(mkfifo(fifo, 0o600) == 0)
        let outcome = try await withoutBlocking(fifo) { () throws(MediaError) in _ = try FileBytes.read(path: fifo) }
        #expect(outcome == .io(path: fifo, failure: .notRegularFile))
        #expect(try await withoutBlocking(fifo) { () throws(MediaError) in _ = try MovieRecovery.finishIfAbandoned(path: fifo) } == nil)
        #expect(try MovieRecovery.finishIfAbandoned(path: fifo) == .notFragmented, "no recorder's file, and it returned at once above")
        #expect(try await withoutBlocking(fifo) { () throws(MediaError) in _ = try MovieFile(path: fifo) } == .io(path: fifo, failure: .notRegularFile))
        #expect(throws: MediaError.io(path: "/dev/zero", failure: .notRegularFile)) { try RegularFile(path: "/dev/zero") }
        #expect(throws: MediaError.io(path: folder.url.path, failure: .notRegularFile)) { try RegularFile(path: folder.url.path) }
        let text = folder.path("a.txt")
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        let link = folder.path("link.txt")
        #expect(symlink(text, link) == 0)
        #expect(try RegularFile(path: link).readAll() == Array("hello".utf8))
        #expect(throws: MediaError.io(path: link, failure: .notRegularFile)) { try RegularFile(path: link, followLinks: false) }
        #expect(throws: MediaError.io(path: text, failure: .tooLarge(size: 5, limit: 4))) { try RegularFile(path: text, limit: 4) }
        #expect(try FileBytes.read(path: text, limit: 2, truncating: true) == Array("he".utf8))
        #expect(throws: MediaError.io(path: folder.path("gone"), failure: .notFound)) { try RegularFile(path: folder.path("gone")) }
    }

    @Test("a progressive JPEG with more scans than TurboJPEG's limit is refused, a few scans decode")
    func scanLimit() throws {
        let bomb = progressiveJPEG(refinements: 13)
        #expect(bomb.count > 5_000)
        #expect {
            try JPEGDecoder().decode(bomb, to: .bgra)
        } throws: { error in
            guard case .corruptData("JPEG", _) = error as? MediaError else { return false }
            return true
        }
        #expect(throws: MediaError.self) { try Thumbnailer().thumbnail(of: bomb, size: .normal) }
        // The same structure with few scans (under the limit) decodes: grey 128 throughout.
        let small = try JPEGDecoder().decode(progressiveJPEG(refinements: 0, coefficients: 3), to: .bgra)
        #expect(small.width == 8 && small.height == 8)
        #expect(abs(Int(small.baseAddress(ofPlane: 0)[0]) - 128) <= 1)
    }
}

/// Runs `body` on a thread of its own and returns its error (nil when it succeeded), failing the
/// test instead of hanging when it is still blocked after a while: then a writer opens `fifo`,
/// which releases a reader blocked in `open()`.
private func withoutBlocking(_ fifo: String, _ body: @escaping @Sendable () throws(MediaError) -> Void) async throws -> MediaError? {
    let done = Lock<MediaError??>(nil)
    let thread = Thread {
        do throws(MediaError) {
            try body()
            done.withLock { $0 = .some(nil) }
        } catch {
            done.withLock { $0 = .some(error) }
        }
    }
    thread.start()
    if await !waitUntil(seconds: patience, { done.withLock { $0 } != nil }) {
        Issue.record("still blocked on \(fifo) after \(patience) s")
        let writer = open(fifo, O_RDWR | O_NONBLOCK)
        _ = await waitUntil { done.withLock { $0 } != nil }
        if writer >= 0 { close(writer) }
    }
    return done.withLock { $0 } ?? nil
}

/// Replaces the box appended by `appendHugeBox` with `tail`.
private func truncateAfterBoxes(_ path: String, appending tail: [UInt8]) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    bytes.removeLast(32)
    try Data(bytes + tail).write(to: URL(fileURLWithPath: path))
}

/// A valid progressive JPEG of one 8×8 grey block (level 128: every coefficient zero) whose
/// scans split the spectrum into single coefficients, each sent first at a shift of
/// `refinements` and then refined one bit at a time: 1 + `refinements` scans per coefficient,
/// so `coefficients` = 63 and 13 refinements make 896 scans, over TurboJPEG's limit of 500.
/// Each scan's data is one Huffman code ("0": DC difference 0, or end of band), padded.
func progressiveJPEG(refinements: Int, coefficients: Int = 63) -> [UInt8] {
    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }
    var jpeg: [UInt8] = [0xFF, 0xD8]
    jpeg += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))                    // DQT: table 0, all ones
    jpeg += segment(0xC2, [8, 0, 8, 0, 8, 1, 1, 0x11, 0])                            // SOF2: 8×8, one component
    let oneCode = [UInt8](arrayLiteral: 1) + [UInt8](repeating: 0, count: 15) + [0]  // one 1-bit code for symbol 0
    jpeg += segment(0xC4, [0x00] + oneCode + [0x10] + oneCode)                       // DHT: DC 0 and AC 0
    func scan(_ start: Int, _ end: Int, high: Int, low: Int) -> [UInt8] {
        segment(0xDA, [1, 1, 0x00, UInt8(start), UInt8(end), UInt8(high << 4 | low)]) + [0x7F]
    }
    jpeg += scan(0, 0, high: 0, low: 0)
    for coefficient in 1...coefficients {
        jpeg += scan(coefficient, coefficient, high: 0, low: refinements)
        for bit in stride(from: refinements, to: 0, by: -1) { jpeg += scan(coefficient, coefficient, high: bit, low: bit - 1) }
    }
    return jpeg + [0xFF, 0xD9]
}
