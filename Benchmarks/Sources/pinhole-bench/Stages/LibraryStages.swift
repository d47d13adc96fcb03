import Glibc
import Media
import PinholeTestSupport
import PhotoLibrary

/// The photo library stages; `--only library` runs all three.
extension Stage {
    /// Importing distinct 12 MP JPEGs with their 256 px thumbnails (files per second; 1 000 files,
    /// `--library-files` to change) against copying the same files with `cp` and thumbnailing the
    /// copies with `vipsthumbnail` in batches, then `sync` (the floor a user would script).
    static var libraryImport: Stage {
        Stage(name: "library import", sizes: [.mp12]) { bench, size in
            let count = bench.libraryFiles
            bench.progress("photo library: importing \(count) \(size.name) JPEGs")
            let sources = bench.scratch + "/library-sources", ours = bench.scratch + "/library-ours"
            let copies = bench.scratch + "/library-cp", copyThumbnails = bench.scratch + "/library-cp-thumbnails"
            // Gigabytes: removed when the stage ends, whether it succeeded or not.
            defer { for folder in [sources, ours, copies, copyThumbnails] { removeDirectory(folder) } }
            let photos = try LibraryPhotos(bench: bench, size: size, distinctImages: 4)
            // Sources, then ours or the peer's copies (ours are deleted before the peer runs), and two thumbnails a file.
            let needed = count * (2 * (photos.bytesPerFile + 4096) + (256 << 10)) + (1 << 30)
            let free = FileSpace.available(at: bench.scratch)
            guard free >= needed else {
                throw CaptureBenchError(description: "needs \(Format.bytes(needed)) free in \(bench.scratch), has \(Format.bytes(free)); "
                                        + "use --library-files with fewer than \(count)")
            }
            let files = try photos.write(count: count, into: sources)
            // Both sides start from the same state: the sources in the page cache, nothing left to write back.
            sync()
            let reference = try PixelTransform.scaled(try bench.image(size), width: 256, height: 192, filter: .box)

            // Ours: `pinhole library import` calls importFile once a file, as here.
            let location = LibraryLocation(folder: ours, trash: ours + "/Trash", thumbnails: ours + "/thumbnails")
            let inputs = files
            let imported = try Blocking.run { () async throws -> (seconds: Double, cpu: Double, first: Asset?, all: [Asset]) in
                let library = try await PhotoLibrary(location: location)
                let cpu = Clock.processCPUSeconds(), start = Clock.now()
                var first: Asset?
                for file in inputs {
                    let asset = try await library.importFile(at: file)
                    if first == nil { first = asset }
                }
                let seconds = Clock.now() - start
                return (seconds, Clock.processCPUSeconds() - cpu, first, try await library.assets())
            }
            guard imported.all.count == count, let first = imported.first else {
                throw CaptureBenchError(description: "imported \(imported.all.count) of \(count)")
            }
            let cache = ThumbnailCache(folder: location.thumbnails)
            let missing = imported.all.filter { access(cache.path(for: $0.path, size: .large), R_OK) != 0 }.count
            guard missing == 0 else { throw CaptureBenchError(description: "\(missing) of \(count) imports have no large thumbnail") }
            let ourCheck = ThumbnailTool.check(png: cache.path(for: first.path, size: .large), against: reference, limit: Check.limit)
            removeDirectory(ours)

            let oursPerSecond = Double(count) / imported.seconds
            let describeOurs = "\(count) distinct files, \(Format.bytes(photos.bytesPerFile)) each (\(photos.description)); "
                + "ours \(Format.fixed(oursPerSecond, 1)) files/s, CPU \(Format.fixed(imported.cpu, 1)) s of \(Format.fixed(imported.seconds, 1)) s "
                + "(the rest is waiting for the disk): importFile a file as "
                + "`pinhole library import` does (read, content hash, 1/8 DCT decode that checks the file and makes the thumbnail, "
                + "write + fsync, link, folder fsync, WAL commit with FULL sync, freedesktop PNG written + fsynced); "
                + "sources warm in the page cache and synced before each side"
            guard ThumbnailTool.vips.installed else {
                return [Row(stage: "library import 12 MP + 256 px thumbnail, per file", size: size.name, oursMs: imported.seconds * 1000 / Double(count),
                            memcpyMs: nil, peer: "— (vipsthumbnail not installed)", peerMs: nil, check: ourCheck, note: describeOurs)]
            }

            // The script: cp the files into a folder and vipsthumbnail the copies, 100 files a
            // command (as `xargs -n 100` would), then sync: ours has fsynced every file, so the
            // peer's time includes writing its files back too.
            try AtomicFile.makeFolders(copies)
            try AtomicFile.makeFolders(copyThumbnails)
            sync()
            let batches = stride(from: 0, to: count, by: 100).map { Array(files[$0..<min($0 + 100, count)]) }
            var copySeconds = 0.0, vipsSeconds = 0.0, vipsCPU = 0.0
            var failure: String?
            for batch in batches where failure == nil {
                let run = Subprocess.run(["cp", "-t", copies] + batch, scratch: bench.scratch)
                copySeconds += run.wallSeconds
                if run.status != 0 { failure = "cp: \(run.errors.prefix(60))" }
            }
            for batch in batches where failure == nil {
                let copied = batch.map { copies + "/" + LibraryPhotos.name(of: $0) }
                let run = Subprocess.run(["vipsthumbnail", "-s", "256", "-o", copyThumbnails + "/%s.png"] + copied, scratch: bench.scratch)
                vipsSeconds += run.wallSeconds
                vipsCPU += run.cpuSeconds
                if run.status != 0 { failure = "vipsthumbnail: \(run.errors.prefix(60))" }
            }
            let flush = Subprocess.run(["sync"], scratch: bench.scratch)
            if flush.status != 0 { failure = failure ?? "sync: \(flush.errors.prefix(60))" }
            let thumbnails = FileSystem.names(in: copyThumbnails).filter { $0.hasSuffix(".png") }.count
            if failure == nil, thumbnails != count { failure = "vipsthumbnail wrote \(thumbnails) of \(count) thumbnails" }
            let peerSeconds = copySeconds + vipsSeconds + flush.wallSeconds
            let peerCheck = ThumbnailTool.check(png: copyThumbnails + "/" + LibraryPhotos.name(of: files[0], extension: "png"), against: reference)
            let unsynced = Double(count) / (copySeconds + vipsSeconds)
            return [Row(stage: "library import 12 MP + 256 px thumbnail, per file", size: size.name, oursMs: imported.seconds * 1000 / Double(count),
                        memcpyMs: nil, peer: "cp + vipsthumbnail -s 256 (100 files a command) + sync, whole processes",
                        peerMs: failure == nil ? peerSeconds * 1000 / Double(count) : nil,
                        check: failure.map { Check(text: "peer failed: \($0)", failed: true) }
                            ?? Check(text: "ours \(ourCheck.text), vips \(peerCheck.text)", failed: ourCheck.failed || peerCheck.failed),
                        note: describeOurs + "; cp + vipsthumbnail + sync \(Format.fixed(Double(count) / peerSeconds, 1)) files/s "
                            + "(cp \(Format.fixed(copySeconds, 1)) s, vipsthumbnail \(Format.fixed(vipsSeconds, 1)) s with CPU \(Format.fixed(vipsCPU, 1)) s, "
                            + "sync \(Format.fixed(flush.wallSeconds, 1)) s; without the sync \(Format.fixed(unsynced, 1)) files/s, "
                            + "Peer/ours \(Format.times(oursPerSecond / unsynced)); no index on that side)")]
        }
    }

    /// Listing the newest 100 of 10 000 assets (2 000 with `--quick`): an indexed query against
    /// `ls -t | head -100` over the same folder.
    static var libraryListing: Stage {
        Stage(name: "library newest 100", sizes: [.mp12]) { bench, _ in
            let total = bench.options.quick ? 2_000 : 10_000
            bench.progress("photo library: newest 100 of \(total)")
            let many = bench.scratch + "/library-10k"
            defer { removeDirectory(many) }
            try AtomicFile.makeFolders(many + "/Photos")
            // Small JPEGs, each with its own EXIF date (spread over 30 years, not in file order),
            // so the rows carry real dates, sizes and paths; the pixels do not matter to a listing.
            let tiny = try JPEGEncoder().encode(try PixelBuffer(format: .grey, width: 16, height: 16), quality: 50)
            for index in 0..<total {
                let date = try ExifDateTime(year: 2000 + index % 30, month: 1 + index / 30 % 12, day: 1 + index / 360 % 28,
                                            hour: index % 24, minute: index / 24 % 60, second: index % 60, utcOffsetSeconds: 0)
                let metadata = ExifMetadata(make: "Pinhole", model: "pinhole-bench", dateTimeOriginal: date, pixelWidth: 16, pixelHeight: 16)
                try LibraryPhotos.writeUnsynced(try JPEGExif.inserting(metadata, into: tiny), to: "\(many)/Photos/photo-\(index).jpg")
            }
            let runs = bench.runs
            // The index is built the way a user's existing folder gets one: opening the library
            // reads and checks every file and inserts its row with the same code as an import,
            // all in one transaction.
            let listing = try Blocking.run { () async throws -> (build: Double, first: Double, times: [Double]) in
                var start = Clock.now()
                let library = try await PhotoLibrary(location: LibraryLocation(folder: many, trash: many + "/Trash", thumbnails: many + "/thumbnails"))
                let build = Clock.now() - start
                guard try await library.count == total else { throw CaptureBenchError(description: "indexed \(try await library.count) of \(total)") }
                var times: [Double] = []
                for _ in 0..<(runs + 3) {
                    start = Clock.now()
                    let newest = try await library.assets(limit: 100)
                    times.append((Clock.now() - start) * 1000)
                    guard newest.count == 100, zip(newest, newest.dropFirst()).allSatisfy({ $0.creationDate >= $1.creationDate }) else {
                        throw CaptureBenchError(description: "listed \(newest.count), or not newest first")
                    }
                }
                return (build, times[0], Array(times.dropFirst(3)))
            }
            var lsTimes: [Double] = []
            for _ in 0..<max(3, bench.runs / 3) {
                let result = Subprocess.run(["sh", "-c", "ls -t '\(many)/Photos' | head -100 > /dev/null"], scratch: bench.scratch)
                if result.status == 0 { lsTimes.append(result.wallSeconds * 1000) }
            }
            return [Row(stage: "library: newest 100 of \(total)", size: "—", oursMs: Sample.median(listing.times), memcpyMs: nil,
                        peer: "ls -t | head -100, whole process", peerMs: lsTimes.isEmpty ? nil : Sample.median(lsTimes), check: .none,
                        note: "ours: an indexed SQLite query (created DESC) returning 100 assets with their metadata, median of \(runs) after 3 untimed "
                            + "(the first query after opening: \(Format.ms(listing.first)) ms); the \(total) rows were inserted by opening the library "
                            + "over a folder of \(total) small JPEGs with EXIF dates (each file read and checked, rows by the import's own insert, "
                            + "one transaction) in \(Format.fixed(listing.build, 1)) s; ls sorts by file time, which is not the date taken")]
        }
    }

    /// The thumbnail of a 12 MP JPEG in the library when neither the thumbnail nor the photo is
    /// cached: `PhotoLibrary.thumbnail(for:size: .large)` after deleting the cached one, against
    /// `vipsthumbnail` and ImageMagick on the same file, whole process; the photo is evicted from
    /// the page cache before every run of each contender.
    static var libraryColdThumbnail: Stage {
        Stage(name: "library cold thumbnail", sizes: [.mp12]) { bench, size in
            bench.progress("photo library: cold thumbnails of a \(size.name) JPEG")
            let sources = bench.scratch + "/library-cold-sources", folder = bench.scratch + "/library-cold"
            defer { removeDirectory(sources); removeDirectory(folder) }
            let photos = try LibraryPhotos(bench: bench, size: size, distinctImages: 1)
            let files = try photos.write(count: 3, into: sources)
            let location = LibraryLocation(folder: folder, trash: folder + "/Trash", thumbnails: folder + "/thumbnails")
            let library = try Blocking.run { () async throws -> PhotoLibrary in
                let library = try await PhotoLibrary(location: location)
                for file in files { try await library.importFile(at: file) }
                return library
            }
            let assets = try Blocking.run { try await library.assets() }
            let cache = ThumbnailCache(folder: location.thumbnails)
            let reference = try PixelTransform.scaled(try bench.image(size), width: 256, height: 192, filter: .box)
            let tools = [ThumbnailTool.vips, ThumbnailTool.magick].filter(\.installed)
            var ours: [Double] = []
            var peers = [[Double]](repeating: [], count: tools.count)
            var failures = [String?](repeating: nil, count: tools.count)
            var resident = 0.0
            let output = { (tool: Int, run: Int) in bench.scratch + "/cold-\(tool)-\(run).png" }
            // Contenders interleaved run by run, each on the same photo, evicted just before.
            for run in 0..<bench.runs {
                let asset = assets[run % assets.count]
                unlink(cache.path(for: asset.path, size: .large))
                resident = max(resident, PageCache.evict(asset.path))
                ours.append(try Blocking.run { () async throws -> Double in
                    let start = Clock.now()
                    _ = try await library.thumbnail(for: asset.id, size: .large)
                    return (Clock.now() - start) * 1000
                })
                for (index, tool) in tools.enumerated() where failures[index] == nil {
                    resident = max(resident, PageCache.evict(asset.path))
                    switch tool.run(asset.path, to: output(index, run), scratch: bench.scratch) {
                    case let .success(ms): peers[index].append(ms)
                    case let .failure(failure): failures[index] = failure.description
                    }
                }
            }
            let ourCheck = ThumbnailTool.check(png: cache.path(for: assets[0].path, size: .large), against: reference, limit: Check.limit)
            let cold = resident <= 0.01
                ? "the photo evicted from the page cache before every run of each contender (posix_fadvise DONTNEED, mincore: "
                    + "\(Format.fixed(resident * 100, 0)) % resident after), so it is read from the disk; the tools' own programs stay cached, as in a script's loop"
                : "warm page cache: evicting the photo left \(Format.fixed(resident * 100, 0)) % of it resident"
            let note = "ours in process: PhotoLibrary.thumbnail(for:size: .large) with the cached thumbnail deleted (index lookup, file read, "
                + "1/8 DCT decode, box filter, PNG with Thumb:: tags, fsynced write and rename; the tools write without fsync); \(cold); "
                + "median of \(bench.runs), contenders interleaved, \(Format.bytes(photos.bytesPerFile)) JPEG"
            var rows: [Row] = []
            for (index, tool) in tools.enumerated() {
                let check = failures[index].map { Check(text: $0, failed: true) }
                    ?? ThumbnailTool.check(png: output(index, 0), against: reference)
                for run in 0..<bench.runs { unlink(output(index, run)) }
                rows.append(Row(stage: "library thumbnail 256 px, cold", size: size.name, oursMs: Sample.median(ours), memcpyMs: nil,
                                peer: tool.label + ", whole process", peerMs: failures[index] == nil ? Sample.median(peers[index]) : nil,
                                check: Check(text: "ours \(ourCheck.text), \(check.text)", failed: ourCheck.failed || check.failed), note: note))
            }
            if rows.isEmpty {
                rows.append(Row(stage: "library thumbnail 256 px, cold", size: size.name, oursMs: Sample.median(ours), memcpyMs: nil,
                                peer: "— (neither vipsthumbnail nor convert installed)", peerMs: nil, check: ourCheck, note: note))
            }
            return rows
        }
    }
}

/// Camera-like 12 MP JPEG files for the library stages: a few distinct photo-like pictures, each
/// encoded once, and per file its own EXIF block (make, model, a date taken 20 s after the
/// previous file's, size): every file's bytes and content hash differ, the decoding work does
/// not, and making 1 000 of them costs a few encodes and 1 000 copies.
struct LibraryPhotos {
    /// The encoded pictures, one for each distinct image.
    private let encoded: [[UInt8]]
    /// The picture's size.
    private let size: FrameSize
    /// About how many bytes each file has.
    var bytesPerFile: Int { encoded[0].count + 512 }
    /// How the files were made, for the table's note.
    var description: String { "JPEG q95 4:2:0 of \(encoded.count) photo-like image\(encoded.count == 1 ? "" : "s"), an EXIF block with its own date per file" }

    /// Encodes `distinctImages` photo-like pictures at `size` (the first is `bench.image(size)`)
    /// at quality 95, as phone cameras save.
    init(bench: Bench, size: FrameSize, distinctImages: Int) throws {
        self.size = size
        let encoder = JPEGEncoder()
        encoded = try (0..<distinctImages).map { index in
            let image = index == 0 ? try bench.image(size) : try Frames.photoLikeImage(width: size.width, height: size.height, seed: UInt64(index + 1))
            return try encoder.encode(image, quality: 95)
        }
    }

    /// Writes `count` files (`photo-0000.jpg`, …) into `folder` (created), without fsync; returns
    /// their paths in order.
    func write(count: Int, into folder: String) throws -> [String] {
        try AtomicFile.makeFolders(folder)
        return try (0..<count).map { index in
            let seconds = index * 20
            let date = try ExifDateTime(year: 2026, month: 6, day: 1 + seconds / 86_400, hour: seconds / 3600 % 24, minute: seconds / 60 % 60,
                                        second: seconds % 60, millisecond: 0, utcOffsetSeconds: 0)
            let metadata = ExifMetadata(make: "Pinhole", model: "pinhole-bench", dateTimeOriginal: date, pixelWidth: size.width,
                                        pixelHeight: size.height, orientation: .up)
            let path = folder + "/photo-" + String(repeating: "0", count: max(0, 4 - String(index).count)) + String(index) + ".jpg"
            try LibraryPhotos.writeUnsynced(try JPEGExif.inserting(metadata, into: encoded[index % encoded.count]), to: path)
            return path
        }
    }

    /// The file name of `path` (`photo-0001.jpg`), with its extension changed to `ext` if given.
    static func name(of path: String, extension ext: String? = nil) -> String {
        let name = String(path.split(separator: "/").last ?? "")
        guard let ext, let dot = name.lastIndex(of: ".") else { return name }
        return String(name[..<dot]) + "." + ext
    }

    /// Writes `bytes` to `path` with plain `write` calls (no fsync: inputs, not results).
    static func writeUnsynced(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CaptureBenchError(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw CaptureBenchError(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}

/// Free space on a file system.
enum FileSpace {
    /// Bytes an unprivileged writer may still use on the file system holding `path` (0 when unknown).
    static func available(at path: String) -> Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }
}

/// One file's pages in the kernel's page cache.
enum PageCache {
    /// Writes back and drops the cached pages of the file at `path`, so that the next read comes
    /// from the disk, without touching any other file's; returns the fraction of its pages still
    /// resident afterwards (from `mincore`; 1 when it cannot be told).
    static func evict(_ path: String) -> Double {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 1 }
        defer { close(fd) }
        fdatasync(fd)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 0 else { return 1 }
        let length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), mapping != UnsafeMutableRawPointer(bitPattern: -1) else { return 1 }
        defer { munmap(mapping, length) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var vector = [UInt8](repeating: 0, count: (length + page - 1) / page)
        guard mincore(mapping, length, &vector) == 0 else { return 1 }
        return Double(vector.filter { $0 & 1 != 0 }.count) / Double(vector.count)
    }
}
