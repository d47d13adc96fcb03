import Capture
import Glibc
import Media
import PhotoLibrary

/// The photo library, opened on first use off the main thread.
extension CameraModel {

    /// The library, opened on first use (off the main thread: opening reconciles the folders with
    /// the index); nil when it cannot be, with the reason in `libraryError` for the caller to say
    /// in its own words. Tried again at each use, so a folder made writable meanwhile works
    /// without a restart.
    @discardableResult
    func openLibrary() async -> PhotoLibrary? {
        if let library { return library }
        let opened: Result<PhotoLibrary, LibraryError>
        do throws(LibraryError) { opened = .success(try await PhotoLibrary(location: libraryLocation)) } catch { opened = .failure(error) }
        if let library { return library }
        switch opened {
        case let .success(library):
            self.library = library
            libraryError = nil
            if newestItem == nil, let newest = try? await library.assets(limit: 1).first {
                newestItem = newest.path
                newestThumbnail = try? await library.thumbnail(for: newest.id, size: .normal)
                changed()
            }
            return library
        case let .failure(error):
            libraryError = error
            return nil
        }
    }

    /// A gallery of its own over the same library, of `mediaType`'s items only when given (a
    /// picker's, beside the window's).
    public func makeGallery(of mediaType: Asset.MediaType?) -> GalleryModel {
        GalleryModel(mediaType: mediaType, work: work) { [weak self] in await self?.openLibrary() }
    }
}
