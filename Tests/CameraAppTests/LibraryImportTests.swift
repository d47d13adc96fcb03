@testable import CameraModel
import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

/// The app's import job without a display: files and folders into a library in a temporary
/// folder, checked by the library, reported in the app's words, cancellable, nothing left behind.
@MainActor
@Suite("Importing into the library, without a display")
struct LibraryImportTests {
    /// A JPEG of a photo-like picture, distinct for each `seed`.
    static func photo(seed: UInt64, width: Int = 320, height: Int = 240) throws -> [UInt8] {
        try JPEGEncoder().encode(try SyntheticImage.photoLike(width: width, height: height, seed: seed), quality: 85)
    }

    /// An importer over a library at `location`, opened as the app opens it.
    static func importer(_ location: LibraryLocation) -> LibraryImport {
        LibraryImport(work: WorkInFlight()) { () async -> Result<PhotoLibrary, LibraryError> in
            do throws(LibraryError) { return .success(try await PhotoLibrary(location: location)) } catch { return .failure(error) }
        }
    }

    /// Runs one import of `items` to its end (cancelling it from its progress when `cancelAfter`
    /// files are done) and returns its report, the lines it said and the progress it told.
    static func run(_ importer: LibraryImport, _ items: [String], cancelAfter: Int? = nil) async -> (ImportReport, [String], [(Int, Int)]) {
        var lines: [String] = []
        var progress: [(Int, Int)] = []
        var subscriptions: [Subscription] = []
        importer.messages.subscribe { lines.append($0) }.store(in: &subscriptions)
        importer.progress.subscribe {
            progress.append((importer.done, importer.total))
            if let cancelAfter, importer.done == cancelAfter, !importer.isCancelling { importer.cancel() }
        }.store(in: &subscriptions)
        let report = await withCheckedContinuation { (continuation: CheckedContinuation<ImportReport, Never>) in
            importer.finished.subscribe { continuation.resume(returning: $0) }.store(in: &subscriptions)
            importer.start(items)
        }
        subscriptions.cancelAll()
        return (report, lines, progress)
    }

    /// Names in `folder`, hidden ones included (a temporary file would be one).
    static func everything(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test("a good, a duplicate and a damaged file: one new item, one duplicate line, one refusal naming the file and why; nothing left behind")
    func goodDuplicateDamaged() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"))
        let seeded = try await PhotoLibrary(location: location).addPhoto(data: try Self.photo(seed: 1))
        let good = try folder.file("good.jpg", try Self.photo(seed: 2)).path
        let duplicate = try folder.file("copy of seeded.jpg", try Self.photo(seed: 1)).path
        let whole = try Self.photo(seed: 3)
        let damaged = try folder.file("damaged.jpg", Array(whole.prefix(whole.count / 2))).path
        let importer = Self.importer(location)
        let (report, lines, progress) = await Self.run(importer, [good, duplicate, damaged])
        #expect(report.imported == 1 && report.duplicates == ["copy of seeded.jpg"] && !report.cancelled && report.stopped == nil)
        #expect(report.refused.map(\.name) == ["damaged.jpg"])
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first == "1 imported")
        #expect(lines.contains("copy of seeded.jpg is already in the library"))
        let refusal = try #require(lines.first { $0 == "damaged.jpg could not be imported: the file is damaged or incomplete" }, "\(lines)")
        #expect(!refusal.contains("\n") && !refusal.contains(folder.url.path), "\(refusal)")
        #expect(progress.last.map { $0 == (0, 0) } == true && progress.contains { $0 == (3, 3) }, "\(progress)")
        #expect(!importer.isRunning)
        // In the index and on disk: the seeded photo and the new one, no temporary file; the
        // files given are where they were, unchanged.
        let library = try await PhotoLibrary(location: location)
        #expect(try await library.count == 2)
        let files = Self.everything(in: location.photos)
        #expect(files.count == 2 && !files.contains { $0.hasPrefix(".") }, "\(files)")
        #expect(files.contains((seeded.path as NSString).lastPathComponent))
        #expect(Self.everything(in: location.videos).isEmpty)
        #expect(Self.everything(in: folder.url.path).filter { $0.hasSuffix(".jpg") } == ["copy of seeded.jpg", "damaged.jpg", "good.jpg"])
    }

    @Test("folders are walked for photo and video names (hidden files, other names and links to folders skipped); file URIs work; other URIs are refused")
    func foldersAndURIs() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"))
        let holiday = folder.path("holiday")
        try FileManager.default.createDirectory(atPath: holiday + "/day two/.cache", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path("empty"), withIntermediateDirectories: true)
        try Data(try Self.photo(seed: 10)).write(to: URL(fileURLWithPath: holiday + "/beach.JPG"))
        try Data(try Self.photo(seed: 11)).write(to: URL(fileURLWithPath: holiday + "/day two/hill.jpeg"))
        try Data(try Self.photo(seed: 12)).write(to: URL(fileURLWithPath: holiday + "/day two/.cache/thumb.jpg"))
        try Data(try Self.photo(seed: 13)).write(to: URL(fileURLWithPath: holiday + "/.hidden.jpg"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: holiday + "/notes.txt"))
        #expect(symlink(holiday, holiday + "/day two/loop") == 0)
        // A name with a space and a percent sign, given as a file URI.
        let spaced = try folder.file("50% off.png", try PNGCodec.encode(try SyntheticImage.photoLike(width: 64, height: 48, seed: 14), compression: .fast))
        let importer = Self.importer(location)
        let (report, lines, _) = await Self.run(importer, [holiday, spaced.absoluteString, "https://example.com/a.jpg", folder.path("empty")])
        #expect(report.imported == 3 && report.duplicates.isEmpty, "\(lines)")
        #expect(report.refused == [.init(name: "https://example.com/a.jpg", reason: "it is not a file on this computer")])
        #expect(report.emptyFolders == ["empty"])
        #expect(lines == ["3 imported", "https://example.com/a.jpg could not be imported: it is not a file on this computer", "empty holds no photos or videos"])
        #expect(try await PhotoLibrary(location: location).count == 3)
        #expect(ImportSource.walk(holiday) == [holiday + "/beach.JPG", holiday + "/day two/hill.jpeg"])
    }

    @Test("a cancel stops before the next file: the files done are in, the rest untouched, no partial or temporary file")
    func cancel() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("library"))
        let source = folder.path("many")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for seed in 0..<12 {
            try Data(try Self.photo(seed: 100 + UInt64(seed))).write(to: URL(fileURLWithPath: source + "/photo \(seed).jpg"))
        }
        let importer = Self.importer(location)
        let (report, lines, progress) = await Self.run(importer, [source], cancelAfter: 4)
        #expect(report.cancelled && report.imported == 4, "\(lines)")
        #expect(lines == ["Import cancelled: 4 imported"])
        #expect(progress.contains { $0 == (4, 12) } && !progress.contains { $0.0 > 4 }, "\(progress)")
        #expect(try await PhotoLibrary(location: location).count == 4)
        let files = Self.everything(in: location.photos)
        #expect(files.count == 4 && !files.contains { $0.hasPrefix(".") }, "\(files)")
        #expect(Self.everything(in: source).count == 12)
        // The importer is ready for the next import, which takes the rest (the first four are duplicates).
        let (again, _, _) = await Self.run(importer, [source])
        #expect(again.imported == 8 && again.duplicates.count == 4 && !again.cancelled)
    }

    @Test("many duplicates and refusals: the first few by name, the rest counted in one line")
    func manyMessages() {
        var report = ImportReport()
        report.imported = 2
        report.duplicates = ["a.jpg", "b.jpg", "c.jpg", "d.jpg"]
        report.refused = (1...5).map { .init(name: "bad \($0).jpg", reason: "it is damaged") }
        #expect(report.messages == ["2 imported", "4 files are already in the library", "bad 1.jpg could not be imported: it is damaged",
                                    "bad 2.jpg could not be imported: it is damaged", "3 more files could not be imported"])
        var few = ImportReport()
        few.refused = [.init(name: "x.mov", reason: "permission denied")]
        #expect(few.messages == ["Nothing was imported", "x.mov could not be imported: permission denied"])
        #expect(CameraWords.importReason(.cannotRead(path: "/a/x.mov", failure: .permissionDenied)) == "permission denied")
        #expect(CameraWords.importReason(.cannotRead(path: "/a/x.mov", failure: .notFound)) == "the file does not exist")
    }

    @Test("a full disk stops the import at the first file it cannot hold, says why once, and leaves no partial file")
    func fullDisk() async throws {
        let folder = try TemporaryDirectory()
        let disk = try SmallDisk(at: folder.path("small"), size: "512k")
        defer { disk.unmount() }
        let location = LibraryLocation(folder: disk.path + "/library")
        // Photo-like noise compresses badly: each of these is well over the disk's size.
        let big = try (0..<3).map { seed in
            try folder.file("big \(seed).png", try PNGCodec.encode(try SyntheticImage.photoLike(width: 800, height: 600, seed: 200 + UInt64(seed)), compression: .fast)).path
        }
        let small = try folder.file("small.jpg", try Self.photo(seed: 300)).path
        let importer = Self.importer(location)
        let (report, lines, _) = await Self.run(importer, [small] + big)
        #expect(report.imported == 1 && report.stopped == "the disk is full; free some space", "\(lines)")
        #expect(lines == ["1 imported", "The import stopped: the disk is full; free some space"])
        let files = Self.everything(in: location.photos)
        #expect(files.count == 1 && !files.contains { $0.hasPrefix(".") }, "\(files)")
        #expect(try await PhotoLibrary(location: location).count == 1)
    }
}
