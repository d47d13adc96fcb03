import Foundation
import Glibc
import Media

/// Thumbnails: on request, and ahead of time for files that appear without one.
extension PhotoLibrary {
    /// The path of the freedesktop thumbnail of asset `id` at `size`, made now if missing or stale.
    public func thumbnail(for id: String, size: ThumbnailSize = .large) throws(LibraryError) -> String {
        guard let asset = try asset(id: id) else { throw LibraryError.notFound(id) }
        return try ThumbnailCache(folder: location.thumbnails).thumbnail(of: asset.path, size: size)
    }

    /// Makes the large thumbnails of files that appeared without one (another program's files, a
    /// rebuilt index) on a background-priority task, after any earlier such work.
    func prepareInBackground(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        thumbnailing = PhotoLibrary.thumbnailInBackground(paths, cache: ThumbnailCache(folder: location.thumbnails), after: thumbnailing)
    }

    static func thumbnailInBackground(_ paths: [String], cache: ThumbnailCache, after earlier: Task<Int, Never>?) -> Task<Int, Never>? {
        guard !paths.isEmpty else { return earlier }
        return Task.detached(priority: .background) {
            // Cancelling the newest work cancels what it waits for too (`stopBackgroundThumbnails`).
            let before = await withTaskCancellationHandler { await earlier?.value ?? 0 } onCancel: { earlier?.cancel() }
            return before + makeThumbnails(paths, cache: cache, size: .large)
        }
    }

    /// Makes the missing or stale thumbnails of `paths`; returns how many it made.
    private static func makeThumbnails(_ paths: [String], cache: ThumbnailCache, size: ThumbnailSize) -> Int {
        var made = 0
        for path in paths {
            if Task.isCancelled { break }
            if cache.hasCurrentThumbnail(of: path, size: size) { continue }
            if (try? cache.thumbnail(of: path, size: size)) != nil { made += 1 }
        }
        return made
    }

    /// Waits for the background thumbnails started when files appeared (on open, `synchronize()`,
    /// or while observing) and returns how many were made since the library opened.
    public func waitForBackgroundThumbnails() async -> Int {
        await thumbnailing?.value ?? 0
    }

    /// Stops the background thumbnails and returns once none is being written: the one under
    /// way is finished, the others are left (made when asked for). For a process about to exit,
    /// as `pinhole` is after each command: exiting in the middle of a write would leave its
    /// temporary file in the thumbnail cache.
    public func stopBackgroundThumbnails() async {
        thumbnailing?.cancel()
        _ = await thumbnailing?.value
    }

    /// Makes every asset's missing or stale thumbnail at `size` now, off the library's actor
    /// (other calls go on meanwhile), at utility priority; returns how many it made. A gallery
    /// calls it once for the size it shows; the CLI's `library thumbnails` does too.
    public nonisolated func prepareThumbnails(size: ThumbnailSize = .large) async throws(LibraryError) -> Int {
        let paths = try await assets().map(\.path)
        let cache = ThumbnailCache(folder: location.thumbnails)
        return await Task.detached(priority: .utility) { PhotoLibrary.makeThumbnails(paths, cache: cache, size: size) }.value
    }
}
