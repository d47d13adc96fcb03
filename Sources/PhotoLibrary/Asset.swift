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
    /// Where it was taken, if the file says it in coordinates the library reads (EXIF GPS, a
    /// movie's ISO 6709 tag); the properties panel shows them.
    public let location: ExifLocation?
    /// True when the file says where it was taken in any way at all — EXIF, XMP, IPTC, a movie's
    /// keys, boxes or tags, with coordinates or only a place's name — so removing the location
    /// would change it (`LocationRemoval` decides, for the index and for the export alike). What
    /// Save As's "Remove location" and the properties panel's note go by, never `location`.
    public let hasLocation: Bool
    /// File size in bytes.
    public let fileSize: Int
    /// Length in seconds (videos; nil for photos).
    public let duration: Double?
}
