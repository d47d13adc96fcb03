import Media

/// A photo or video in the library.
public struct Asset: Sendable, Equatable, Identifiable {
    /// Photo or video.
    public enum MediaType: String, Sendable, CaseIterable {
        /// A still image.
        case photo
        /// A movie.
        case video
    }

    /// The stable identifier (kept across index rebuilds: derived from the file's content).
    public let id: String
    /// Photo or video.
    public let mediaType: MediaType
    /// The file.
    public let path: String
    /// Stored width in pixels.
    public let pixelWidth: Int
    /// Stored height in pixels.
    public let pixelHeight: Int
    /// When it was taken (EXIF DateTimeOriginal), else the file's modification time; seconds since 1970.
    public let creationDate: Double
    /// EXIF orientation (photos).
    public let orientation: ExifOrientation
    /// Marked as a favourite.
    public let isFavorite: Bool
    /// Where it was taken, if the file says.
    public let location: ExifLocation?
    /// File size in bytes.
    public let fileSize: Int
    /// Length in seconds (videos; nil for photos).
    public let duration: Double?
}
