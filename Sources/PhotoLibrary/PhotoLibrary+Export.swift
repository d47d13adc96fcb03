import Foundation
import Glibc
import Media

/// Copying assets out of the library.
extension PhotoLibrary {
    /// Copies assets' files into `folder` unchanged, or with their location removed: EXIF GPS
    /// from JPEG, PNG, HEIF and WebP (nothing else in the file changes), the location metadata
    /// from movies (their streams copied into a new container); returns the paths written.
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
}
