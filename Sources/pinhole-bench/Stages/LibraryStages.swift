import Glibc
import Media
import PhotoLibrary

/// The photo library stages.
extension Stage {
    /// Importing 12 MP JPEGs with their 256 px thumbnails (files per second) against copying them
    /// with `cp` and thumbnailing them with `vipsthumbnail` in one batch (the floor a user would
    /// script); listing the newest 100 of 10 000 against `ls -t | head`; a thumbnail from a cold
    /// cache against vipsthumbnail.
    static var library: Stage {
        Stage(name: "library", sizes: [.mp12]) { bench, size in
            bench.progress("photo library")
            let count = bench.options.quick ? 20 : 100
            // Distinct files of the same 12 MP picture: a JPEG comment with a number changes the bytes, not the work.
            let jpeg = try JPEGEncoder().encode(try bench.image(size), quality: 90)
            let sources = bench.scratch + "/library-sources"
            var files: [String] = []
            for index in 0..<count {
                var copy = jpeg
                let comment = Array("pinhole-bench \(index)".utf8)
                copy.insert(contentsOf: [0xFF, 0xFE, 0, UInt8(comment.count + 2)] + comment, at: 2)
                files.append(try AtomicFile.write(copy, to: "\(sources)/photo-\(index).jpg"))
            }
            // Ours: import (check, durable write, index row) plus the freedesktop large thumbnail.
            let ours = bench.scratch + "/library-ours"
            let location = LibraryLocation(folder: ours, trash: ours + "/Trash", thumbnails: ours + "/thumbnails")
            let started = Clock.now()
            let inputs = files
            let imported = try Blocking.run { () async throws -> Int in
                let library = try PhotoLibrary(location: location)
                for file in inputs {
                    let asset = try await library.importFile(at: file)
                    _ = try await library.thumbnail(for: asset.id, size: .large)
                }
                return try await library.count
            }
            let oursSeconds = Clock.now() - started
            guard imported == count else { throw CaptureBenchError(description: "imported \(imported) of \(count)") }
            var rows: [Row] = []
            // The script: cp into a folder, then vipsthumbnail the batch (whole processes).
            if Subprocess.find("vipsthumbnail") != nil {
                let target = bench.scratch + "/library-cp"
                try AtomicFile.makeFolders(target)
                let copy = Subprocess.run(["cp", "-t", target] + files, scratch: bench.scratch)
                let thumbs = Subprocess.run(["vipsthumbnail"] + files.map { target + "/" + String($0.split(separator: "/").last ?? "") }
                                            + ["-s", "256", "-o", "%s-256.png"], scratch: bench.scratch)
                let peerSeconds = copy.wallSeconds + thumbs.wallSeconds
                rows.append(Row(stage: "library import 12 MP + 256 px thumbnail, per file", size: size.name, oursMs: oursSeconds * 1000 / Double(count),
                                memcpyMs: nil, peer: "cp + vipsthumbnail (batch), whole processes", peerMs: peerSeconds * 1000 / Double(count),
                                check: copy.status == 0 && thumbs.status == 0 ? .none : Check(text: "peer failed", failed: true),
                                note: "\(count) files; ours \(Format.fixed(Double(count) / oursSeconds, 1)) files/s (file check, fsync, link, folder fsync, WAL commit with FULL sync, freedesktop PNG); "
                                    + "cp + vips \(Format.fixed(Double(count) / peerSeconds, 1)) files/s (no fsync, no index)"))
            }
            // Listing the newest 100 of 10 000: tiny files indexed in one rebuild, then timed queries.
            let many = bench.scratch + "/library-10k"
            let tiny = try JPEGEncoder().encode(try PixelBuffer(format: .grey, width: 16, height: 16), quality: 50)
            let total = bench.options.quick ? 2_000 : 10_000
            for index in 0..<total {
                var copy = tiny
                let comment = Array("\(index)".utf8)
                copy.insert(contentsOf: [0xFF, 0xFE, 0, UInt8(comment.count + 2)] + comment, at: 2)
                let path = "\(many)/Photos/photo-\(index).jpg"
                if index == 0 { try AtomicFile.makeFolders(many + "/Photos") }
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                _ = copy.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
            }
            let runs = bench.runs
            let listTimes = try Blocking.run { () async throws -> [Double] in
                let library = try PhotoLibrary(location: LibraryLocation(folder: many, trash: many + "/Trash", thumbnails: many + "/thumbnails"))
                var times: [Double] = []
                for _ in 0..<(runs + 3) {
                    let start = Clock.now()
                    let newest = try await library.assets(limit: 100)
                    times.append((Clock.now() - start) * 1000)
                    guard newest.count == 100 else { throw CaptureBenchError(description: "listed \(newest.count)") }
                }
                return Array(times.dropFirst(3))
            }
            var lsTimes: [Double] = []
            for _ in 0..<max(3, bench.runs / 3) {
                let result = Subprocess.run(["sh", "-c", "ls -t '\(many)/Photos' | head -100 > /dev/null"], scratch: bench.scratch)
                if result.status == 0 { lsTimes.append(result.wallSeconds * 1000) }
            }
            rows.append(Row(stage: "library: newest 100 of \(total)", size: "—", oursMs: Sample.median(listTimes), memcpyMs: nil,
                            peer: "ls -t | head -100, whole process", peerMs: lsTimes.isEmpty ? nil : Sample.median(lsTimes), check: .none,
                            note: "ours: an indexed SQLite query (created DESC) returning 100 assets with their metadata"))
            return rows
        }
    }
}
