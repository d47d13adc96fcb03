import Foundation
import Glibc
import Media

/// Copying assets out of the library.
extension PhotoLibrary {
    /// Copies assets' files into `folder` unchanged, or with their location removed wherever the
    /// file keeps one (`LocationRemoval`: EXIF, XMP and IPTC in photos, every HEIF item; a movie's
    /// location boxes, keys, XMP and tags), the picture and every other tag kept as they were;
    /// returns the paths written.
    public func export(ids: [String], to folder: String, stripLocation: Bool = false) throws(LibraryError) -> [String] {
        var written: [String] = []
        for id in ids {
            guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
            let target = folder + "/" + (asset.path as NSString).lastPathComponent
            do throws(MediaError) {
                if asset.mediaType == .video {
                    written.append(stripLocation ? try LocationRemoval.copyMovie(from: asset.path, to: target) : try AtomicFile.copy(from: asset.path, to: target))
                } else {
                    var data = try FileBytes.read(path: asset.path)
                    if stripLocation { data = try LocationRemoval.removingLocation(from: data) }
                    written.append(try AtomicFile.write(data, to: target))
                }
            } catch {
                if case .io = error { throw LibraryError.from(error) }
                throw .cannotExport(id: asset.id, reason: error.description)
            }
        }
        return written
    }

    /// Copies one asset to exactly `path` (Save As: the person chose the name, and agreed to
    /// replace a file there), unchanged or with its location removed. The copy is made complete
    /// in a private folder beside `path` and renamed over it, so `path` holds either what it held
    /// or the whole copy, never part of one.
    @discardableResult
    public func export(id: String, toFile path: String, stripLocation: Bool = false) throws(LibraryError) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        var template = Array((folder + "/.pinhole-save-XXXXXX").utf8CString)
        guard let scratch = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            throw .cannotWrite(path: path, failure: FileFailure(errno: errno))
        }
        defer {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? [] { unlink(scratch + "/" + name) }
            rmdir(scratch)
        }
        guard let written = try export(ids: [id], to: scratch, stripLocation: stripLocation).first else { throw .notFound(id) }
        guard rename(written, path) == 0 else { throw .cannotWrite(path: path, failure: FileFailure(errno: errno)) }
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        return path
    }
}
