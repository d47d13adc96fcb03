import Foundation
import Glibc
import Media

/// The freedesktop.org thumbnail cache (`$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/
/// MD5(URI).png` with `Thumb::URI` and `Thumb::MTime`), shared with file managers: Pinhole reuses
/// their thumbnails and they reuse Pinhole's. A thumbnail is current while its Thumb::MTime equals
/// the file's modification time; files that cannot be thumbnailed get a marker under
/// `fail/pinhole-VERSION/` so nobody retries them.
public struct ThumbnailCache: Sendable {
    /// The cache's root (…/thumbnails).
    public let folder: String
    private static let software = "Pinhole 0.1.0"

    /// The cache at `folder`.
    public init(folder: String) { self.folder = folder }

    /// The user's cache.
    public static var user: ThumbnailCache {
        let home = LibraryLocation.environment("HOME") ?? "/root"
        let cache = LibraryLocation.environment("XDG_CACHE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.cache"
        return ThumbnailCache(folder: cache + "/thumbnails")
    }

    /// The file URI the spec hashes: file:// plus the percent-encoded absolute path.
    public static func uri(for path: String) -> String { URL(fileURLWithPath: path).absoluteString }

    /// Where the thumbnail of `path` at `size` lives (whether or not it exists yet).
    public func path(for path: String, size: ThumbnailSize) -> String {
        folder + "/" + size.folderName + "/" + MD5.hex(Array(ThumbnailCache.uri(for: path).utf8)) + ".png"
    }

    /// The thumbnail of the image at `path`, made now if missing or stale; returns its path.
    public func thumbnail(of path: String, size: ThumbnailSize) throws(LibraryError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .notFound(path) }
        let mtime = String(info.st_mtim.tv_sec)
        let uri = ThumbnailCache.uri(for: path)
        let target = self.path(for: path, size: size)
        if isCurrent(target, uri: uri, mtime: mtime) { return target }
        let image: PixelBuffer
        do {
            image = try Thumbnailer().thumbnail(ofFile: path, longestSide: size.rawValue)
        } catch {
            markFailed(path: path, uri: uri, mtime: mtime)
            throw LibraryError.reading(path, error)
        }
        return try store(image, for: path, size: size, info: info)
    }

    /// Whether the cache holds an up-to-date thumbnail of `path` at `size` (Thumb::URI and
    /// Thumb::MTime match the file).
    public func hasCurrentThumbnail(of path: String, size: ThumbnailSize) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return isCurrent(self.path(for: path, size: size), uri: ThumbnailCache.uri(for: path), mtime: String(info.st_mtim.tv_sec))
    }

    private func isCurrent(_ thumbnail: String, uri: String, mtime: String) -> Bool {
        guard let existing = try? FileBytes.read(path: thumbnail, limit: 16 << 20), let text = PNGCodec.text(existing) else { return false }
        return text["Thumb::URI"] == uri && text["Thumb::MTime"] == mtime
    }

    /// Saves an already made thumbnail of `path` (e.g. from the decode that checked an import).
    @discardableResult
    public func store(_ image: PixelBuffer, for path: String, size: ThumbnailSize) throws(LibraryError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .notFound(path) }
        return try store(image, for: path, size: size, info: info)
    }

    private func store(_ image: PixelBuffer, for path: String, size: ThumbnailSize, info: stat) throws(LibraryError) -> String {
        let uri = ThumbnailCache.uri(for: path), mtime = String(info.st_mtim.tv_sec)
        let target = self.path(for: path, size: size)
        let png: [UInt8]
        do {
            png = try PNGCodec.encode(image, compression: .fast, text: [
                ("Thumb::URI", uri), ("Thumb::MTime", mtime), ("Thumb::Size", String(info.st_size)),
                ("Software", ThumbnailCache.software),
            ])
        } catch {
            throw .unsupportedFile(path: path, reason: .damaged(error))
        }
        try replace(target, with: png)
        return target
    }

    /// Writes `bytes` to `target` atomically, replacing an older thumbnail (0600, as the spec asks).
    private func replace(_ target: String, with bytes: [UInt8]) throws(LibraryError) {
        let folder = (target as NSString).deletingLastPathComponent
        do throws(MediaError) {
            try AtomicFile.makeFolders(folder)
            chmod(self.folder, 0o700)
            chmod(folder, 0o700)
            let temporary = try AtomicFile.write(bytes, to: folder + "/.pinhole-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).png",
                                                 createFolders: false, crashPoint: "thumbnail-written")
            chmod(temporary, 0o600)
            guard rename(temporary, target) == 0 else {
                unlink(temporary)
                throw MediaError.io(path: target, failure: FileFailure(errno: errno))
            }
        } catch {
            throw LibraryError.from(error)
        }
    }

    /// Records that `path` cannot be thumbnailed (an empty-picture PNG with its URI and mtime).
    private func markFailed(path: String, uri: String, mtime: String) {
        guard let marker = try? PixelBuffer(format: .bgra, width: 1, height: 1),
              let png = try? PNGCodec.encode(marker, text: [("Thumb::URI", uri), ("Thumb::MTime", mtime), ("Software", ThumbnailCache.software)]) else { return }
        let target = folder + "/fail/pinhole-0.1.0/" + MD5.hex(Array(uri.utf8)) + ".png"
        try? replace(target, with: png)
    }
}
