import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

/// The library against files it cannot take: a movie whose boxes cannot be walked opens the
/// library and is named; a FIFO is refused without blocking; a file's kind is sniffed before it
/// is read; a refused file's verdict is remembered by its size and time; new videos' names
/// never collide.
@Suite("The library and untrusted files")
struct UntrustedLibraryTests {
    /// A library in a temporary folder.
    private func location(_ folder: TemporaryDirectory) -> LibraryLocation {
        LibraryLocation(folder: folder.path("library"), trash: folder.path("Trash"), thumbnails: folder.path("thumbnails"))
    }

    @Test("a movie with a box near Int64.max in the videos folder: the library opens, lists it and names it as left alone")
    func unwalkableMovie() async throws {
        let folder = try TemporaryDirectory()
        let location = location(folder)
        _ = try await PhotoLibrary(location: location)
        let path = location.videos + "/huge.mp4"
        try makeTestMovie(path, seconds: 0.4, audio: false)
        try appendHugeBox(to: path)
        let library = try await PhotoLibrary(location: location)
        #expect(try await library.assets(mediaType: .video).map(\.path) == [path])
        let skipped = await library.skippedFiles
        #expect(skipped.count == 1 && skipped.first?.path == path && skipped.first?.treatment == .leftAsItIs, "\(skipped)")
        guard case let .unsupportedFile(_, .damaged(.corruptData(format, _)))? = skipped.first?.problem else {
            Issue.record("\(String(describing: skipped.first?.problem))")
            return
        }
        #expect(format == "MP4")
        #expect(try await library.synchronize().added == 0)
        #expect(await library.skippedFiles.map(\.path) == [path])
    }

    @Test("a FIFO given to import is refused at once as not a regular file; one in the photos folder is passed over")
    func fifo() async throws {
        let folder = try TemporaryDirectory()
        let location = location(folder)
        let library = try await PhotoLibrary(location: location)
        let fifo = folder.path("x.jpg")
        #expect(mkfifo(fifo, 0o600) == 0)
        let finished = Lock(false)
        let attempt = Task { () -> LibraryError? in
            defer { finished.withLock { $0 = true } }
            do throws(LibraryError) { _ = try await library.importFile(at: fifo); return nil } catch { return error }
        }
        // Before, this import waited in open() for a writer forever: released here if so.
        if await !waitUntil({ finished.withLock { $0 } }) {
            Issue.record("importing a FIFO is still blocked after \(patience) s")
            let writer = open(fifo, O_RDWR | O_NONBLOCK)
            _ = await attempt.value
            if writer >= 0 { close(writer) }
        }
        #expect(await attempt.value == .cannotRead(path: fifo, failure: .notRegularFile))
        #expect(mkfifo(location.photos + "/y.jpg", 0o600) == 0 && mkfifo(location.videos + "/z.mp4", 0o600) == 0)
        let reopened = try await PhotoLibrary(location: location)
        #expect(try await reopened.assets().isEmpty)
    }

    @Test("a file that is no photo is refused from its first bytes; a refused file in the folder is decoded once until it changes")
    func verdicts() async throws {
        let folder = try TemporaryDirectory()
        let location = location(folder)
        let library = try await PhotoLibrary(location: location)
        let text = folder.path("notes.jpg")
        try Data(repeating: 0x41, count: 1 << 20).write(to: URL(fileURLWithPath: text))
        await #expect(throws: LibraryError.unsupportedFile(path: text, reason: .notAnImage)) { try await library.importFile(at: text) }
        let empty = folder.path("empty.png")
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        await #expect(throws: LibraryError.unsupportedFile(path: empty, reason: .empty)) { try await library.importFile(at: empty) }

        // A JPEG cut short (no end-of-image marker), dropped into the photos folder by another program.
        let good = try jpegPhoto(width: 64, height: 48)
        var damaged = good
        damaged[good.count - 2] = 0
        damaged[good.count - 1] = 0
        damaged += [UInt8](repeating: 0, count: 100)
        let path = location.photos + "/damaged.jpg"
        try Data(damaged).write(to: URL(fileURLWithPath: path))
        let first = try await PhotoLibrary(location: location)
        #expect(try await first.assets().isEmpty)
        let skipped = await first.skippedFiles
        #expect(skipped.map(\.path) == [path] && skipped.first?.treatment == .notIndexed)
        #expect(try sqlite(location.index, "SELECT path, kind FROM refused") == "\(path)|damaged")
        // Same size, same time, now a good photo (with the zero padding JPEG readers skip): the
        // verdict stands, so the file was not read again.
        var info = stat()
        #expect(stat(path, &info) == 0)
        try Data(good + [UInt8](repeating: 0, count: damaged.count - good.count)).write(to: URL(fileURLWithPath: path))
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let second = try await PhotoLibrary(location: location)
        #expect(try await second.assets().isEmpty)
        #expect(await second.skippedFiles.map(\.path) == [path])
        // Changed (a new time): looked at again, indexed, and the verdict forgotten.
        #expect(utimensat(AT_FDCWD, path, nil, 0) == 0)
        let third = try await PhotoLibrary(location: location)
        #expect(try await third.assets().map(\.path) == [path])
        #expect(await third.skippedFiles.isEmpty)
        #expect(try sqlite(location.index, "SELECT count(*) FROM refused") == "0")
    }

    @Test("videos started within one second get different names; a name taken gets the (2) rule")
    func videoNames() throws {
        let start = 1_767_323_045.25
        let first = PhotoLibrary.fileName(date: start, extension: "mp4", mediaType: .video)
        let second = PhotoLibrary.fileName(date: start + 0.5, extension: "mp4", mediaType: .video)
        #expect(first != second, "\(first)")
        #expect(first.range(of: #"^Video from \d{4}-\d\d-\d\d \d\d-\d\d-\d\d\.250\.mp4$"#, options: .regularExpression) != nil, "\(first)")
        let folder = try TemporaryDirectory()
        let path = PhotoLibrary.newVideoPath(in: folder.url.path, date: start, extension: "mp4")
        #expect(path == folder.url.path + "/" + first)
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(PhotoLibrary.newVideoPath(in: folder.url.path, date: start, extension: "mp4") == folder.url.path + "/" + first.replacingOccurrences(of: ".mp4", with: " (2).mp4"))
    }
}

/// A JPEG photo made by Media's encoder (grey).
private func jpegPhoto(width: Int, height: Int) throws -> [UInt8] {
    let image = try PixelBuffer(format: .bgra, width: width, height: height)
    for plane in 0..<1 { memset(image.baseAddress(ofPlane: plane), 0x80, Int(image.bytesPerRow(ofPlane: plane)) * height) }
    return try JPEGEncoder().encode(image, quality: 90)
}
