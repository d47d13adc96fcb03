import Capture
import Glibc
import Media
import PhotoLibrary

/// The photo library, opened on first use off the main thread.
extension CameraModel {

    /// The library, opened on first use (off the main thread: opening reconciles the folders with
    /// the index); nil when it cannot be, with the reason in `libraryError` for the caller to say
    /// in its own words. Callers that ask while it opens share the one opening; after a failure
    /// the next use tries again, so a folder made writable meanwhile works without a restart.
    @discardableResult
    func openLibrary() async -> PhotoLibrary? {
        if let library { return library }
        if let opening { return await opening.value }
        let location = libraryLocation
        let task = Task<PhotoLibrary?, Never> { @MainActor [weak self] in
            let opened: Result<PhotoLibrary, LibraryError>
            do throws(LibraryError) { opened = .success(try await PhotoLibrary(location: location)) } catch { opened = .failure(error) }
            guard let self else { return nil }
            self.opening = nil
            switch opened {
            case let .success(library):
                self.library = library
                self.libraryError = nil
                if self.newestItem == nil, let newest = try? await library.assets(limit: 1).first {
                    self.newestItem = newest.path
                    self.newestThumbnail = try? await library.thumbnail(for: newest.id, size: .normal)
                }
                return library
            case let .failure(error):
                self.libraryError = error
                return nil
            }
        }
        opening = task
        return await task.value
    }

    /// A gallery of its own over the same library, of `mediaType`'s items only when given (a
    /// picker's, beside the window's).
    public func makeGallery(of mediaType: Asset.MediaType?) -> GalleryModel {
        GalleryModel(mediaType: mediaType, work: work) { [weak self] in await self?.openLibrary() }
    }
}
