import Foundation
import Media

/// What the index stores about one file, photo or video, read from the file itself.
struct MediaEntry {
    /// Photo or video.
    let mediaType: Asset.MediaType
    /// Stored width in pixels.
    let width: Int
    /// Stored height in pixels.
    let height: Int
    /// When it was taken (EXIF or the movie's creation time), if the file says.
    let date: Double?
    /// EXIF orientation (1 for videos: their rotation is applied to thumbnails and players read it).
    let orientation: Int
    /// Where it was taken, if the file says in coordinates the library reads.
    let location: ExifLocation?
    /// Whether the file holds a location in any metadata (see `Asset.hasLocation`).
    let hasLocation: Bool
    /// Length in seconds (videos).
    let duration: Double?
    /// The extension a new file of this kind gets.
    let fileExtension: String
    /// The large (256 px) thumbnail, when the check made one and it was asked for.
    let thumbnail: PixelBuffer?

    /// The entry of a checked photo.
    init(photo: PhotoFile) {
        mediaType = .photo
        width = photo.width
        height = photo.height
        date = PhotoLibrary.saneDate(photo.exifDate)
        orientation = photo.metadata?.orientation?.rawValue ?? 1
        location = photo.metadata?.location
        hasLocation = photo.hasLocation
        duration = nil
        fileExtension = photo.fileExtension
        thumbnail = photo.thumbnail
    }

    /// Reads and checks the movie at `path` (MP4, MOV, MKV or WebM whose first frame decodes);
    /// `name` is how errors mention it.
    init(videoAt path: String, name: String, keepThumbnail: Bool) throws(LibraryError) {
        do {
            let movie = try MovieFile(path: path)
            let frame = try movie.firstFrame(longestSide: keepThumbnail ? ThumbnailSize.large.rawValue : ThumbnailSize.normal.rawValue)
            mediaType = .video
            width = movie.info.width
            height = movie.info.height
            date = PhotoLibrary.saneDate(movie.info.creationDate)
            orientation = 1
            location = movie.info.location
            hasLocation = PhotoLibrary.hasLocation(movieAt: path)
            duration = movie.info.duration
            fileExtension = movie.info.kind.fileExtension
            thumbnail = keepThumbnail ? frame : nil
        } catch {
            throw LibraryError.reading(name, error)
        }
    }
}
