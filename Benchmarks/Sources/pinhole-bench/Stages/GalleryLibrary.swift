import Dispatch
import Glibc
import Media
import PinholeTestSupport
import PhotoLibrary
import Synchronization

/// The gallery stage's library, made in the session's library folder before the app starts: a
/// folder of JPEGs (each with its own EXIF date, an hour apart going back from the last day of
/// 2025, so the newest is the first cell), indexed by opening the library over it, as a user's
/// existing folder is. The newest is the viewer's test photo (12 MP, with the markers
/// `ScreenWatch` looks for), the next ones are 12 MP camera photos, enough for more than a screen
/// of the gallery at any window size, and the rest are 320×240 (the grid shows every photo as the
/// same 128-px thumbnail; 10 000 12 MP photos would take 27 GB). Photos the live measure copies in
/// are 12 MP and dated when written, so they are the newest.
struct GalleryLibrary {
    /// The library's photos folder.
    let photos: String
    /// The viewer's test photo, the newest item.
    let viewerPhoto: String
    /// The 12 MP photos' paths, newest first (the viewer's first).
    let largePhotos: [String]
    /// Items in the library.
    let count: Int
    /// The 12 MP picture encoded once (q95, 4:2:0), copied in with a new EXIF block each time.
    private let largeJPEG: [UInt8]
    /// What making the folder took: writing the files, then building the index.
    let filesSeconds: Double, indexSeconds: Double

    /// The size of the small photos.
    static let smallSize = (width: 320, height: 240)
    /// 12 MP photos at the top of the gallery (the viewer's among them): more than the cells a
    /// maximised 1920×1080 window shows (12 columns of 7 rows).
    static let largeCount = 100
    /// The newest item's date: 2025-12-31 12:00 UTC, as seconds since 1970.
    static let newest = 1_767_182_400

    /// Writes `count` photos into `session`'s library folder and indexes them (in this process,
    /// then lets the library go: nothing of it keeps running while the app is measured).
    init(bench: Bench, session: HeadlessSession, count: Int) throws {
        self.count = count
        photos = session.library + "/Photos"
        try AtomicFile.makeFolders(photos)
        let start = Clock.now()
        let encoder = JPEGEncoder()
        let large = try bench.image(.mp12)
        largeJPEG = try encoder.encode(large, quality: 95)
        let marked = try encoder.encode(try GalleryLibrary.marked(large), quality: 95)
        // Sixteen distinct small pictures, so neighbouring cells differ.
        let small = try (0..<16).map { seed in
            try encoder.encode(try Frames.photoLikeImage(width: GalleryLibrary.smallSize.width, height: GalleryLibrary.smallSize.height,
                                                         seed: UInt64(seed + 7)), quality: 85)
        }
        var larges: [String] = []
        for index in 0..<count {
            let isLarge = index < GalleryLibrary.largeCount
            let jpeg = index == 0 ? marked : isLarge ? largeJPEG : small[index % small.count]
            let size = isLarge ? (width: FrameSize.mp12.width, height: FrameSize.mp12.height) : GalleryLibrary.smallSize
            let path = photos + "/photo-" + String(repeating: "0", count: max(0, 5 - String(index).count)) + String(index) + ".jpg"
            try LibraryPhotos.writeUnsynced(try GalleryLibrary.dated(jpeg, epoch: GalleryLibrary.newest - index * 3600, size: size), to: path)
            if isLarge { larges.append(path) }
        }
        largePhotos = larges
        viewerPhoto = larges[0]
        filesSeconds = Clock.now() - start

        // Opening the library indexes the folder (each file read and checked, one transaction).
        // It also starts making large thumbnails in the background, into a folder of its own here;
        // letting the library go cancels that.
        let indexStart = Clock.now()
        let location = LibraryLocation(folder: session.library, trash: session.folder + "/seed-trash", thumbnails: session.folder + "/seed-thumbnails")
        let indexed = try Blocking.run { () async throws -> Int in
            let library = try await PhotoLibrary(location: location)
            return try await library.count
        }
        indexSeconds = Clock.now() - indexStart
        removeDirectory(session.folder + "/seed-thumbnails")
        guard indexed == count else { throw CaptureBenchError(description: "the library indexed \(indexed) of \(count) photos") }
    }

    /// `picture` with the markers: a magenta square (a fifth of the width) at the centre and a cyan
    /// band (the bottom 5 %) along the bottom edge.
    static func marked(_ picture: PixelBuffer) throws -> PixelBuffer {
        let copy = try Frames.copies(of: picture, count: 1)[0]
        let width = copy.width, height = copy.height, side = width / 5
        let base = copy.baseAddress(ofPlane: 0), stride = Int(copy.bytesPerRow(ofPlane: 0))
        /// Paints rows `rows`, columns `columns` with BGRA `colour`.
        func fill(rows: Range<Int>, columns: Range<Int>, _ colour: (UInt8, UInt8, UInt8)) {
            for y in rows {
                let row = base + y * stride
                for x in columns {
                    row[4 * x] = colour.0
                    row[4 * x + 1] = colour.1
                    row[4 * x + 2] = colour.2
                    row[4 * x + 3] = 255
                }
            }
        }
        fill(rows: (height - side) / 2..<(height + side) / 2, columns: (width - side) / 2..<(width + side) / 2, (255, 0, 255))
        fill(rows: height - height / 20..<height, columns: 0..<width, (255, 255, 0))
        return copy
    }

    /// `jpeg` with an EXIF block: this bench as the camera, the date `epoch` (UTC), the size.
    static func dated(_ jpeg: [UInt8], epoch: Int, size: (width: Int, height: Int)) throws -> [UInt8] {
        var time = time_t(epoch), fields = tm()
        gmtime_r(&time, &fields)
        let date = try ExifDateTime(year: Int(fields.tm_year) + 1900, month: Int(fields.tm_mon) + 1, day: Int(fields.tm_mday),
                                    hour: Int(fields.tm_hour), minute: Int(fields.tm_min), second: Int(fields.tm_sec), utcOffsetSeconds: 0)
        let metadata = ExifMetadata(make: "Pinhole", model: "pinhole-bench", dateTimeOriginal: date, pixelWidth: size.width,
                                    pixelHeight: size.height, orientation: .up)
        return try JPEGExif.inserting(metadata, into: jpeg)
    }

    /// A 12 MP photo dated now (plus `offset` seconds), written to `path` outside the library,
    /// for the live measure to copy in.
    func livePhoto(at path: String, offset: Int) throws {
        let dated = try GalleryLibrary.dated(largeJPEG, epoch: Int(time(nil)) + offset, size: (FrameSize.mp12.width, FrameSize.mp12.height))
        try LibraryPhotos.writeUnsynced(dated, to: path)
    }

    /// Makes the 128-px thumbnail of every photo that has none in the freedesktop cache at
    /// `folder`, as a file manager would leave them: Pinhole's `Thumbnailer` and the spec's PNG
    /// with Thumb::URI and Thumb::MTime (what the library checks), not fsynced; on two threads.
    /// Returns how many it made and the seconds it took.
    func makeThumbnails(cache folder: String) throws -> (made: Int, seconds: Double) {
        let start = Clock.now()
        let cache = ThumbnailCache(folder: folder)
        try AtomicFile.makeFolders(folder + "/" + ThumbnailSize.normal.folderName)
        chmod(folder, 0o700)
        chmod(folder + "/" + ThumbnailSize.normal.folderName, 0o700)
        let paths = FileSystem.names(in: photos).filter { $0.hasSuffix(".jpg") }.map { photos + "/" + $0 }
        let made = Atomic<Int>(0), failure = Mutex<String?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            let thumbnailer = Thumbnailer()
            for path in stride(from: part, to: paths.count, by: 2).map({ paths[$0] }) {
                let target = cache.path(for: path, size: .normal)
                var info = stat()
                guard access(target, F_OK) != 0, stat(path, &info) == 0 else { continue }
                do {
                    let image = try thumbnailer.thumbnail(ofFile: path, longestSide: ThumbnailSize.normal.rawValue)
                    let png = try PNGCodec.encode(image, compression: .fast, text: [
                        ("Thumb::URI", ThumbnailCache.uri(for: path)), ("Thumb::MTime", String(info.st_mtim.tv_sec)),
                        ("Thumb::Size", String(info.st_size)), ("Software", "pinhole-bench"),
                    ])
                    try LibraryPhotos.writeUnsynced(png, to: target)
                    chmod(target, 0o600)
                    made.add(1, ordering: .relaxed)
                } catch {
                    failure.withLock { $0 = $0 ?? "\(path): \(error)" }
                    return
                }
            }
        }
        if let failure = failure.withLock({ $0 }) { throw CaptureBenchError(description: "cannot make a thumbnail of \(failure)") }
        return (made.load(ordering: .relaxed), Clock.now() - start)
    }
}
