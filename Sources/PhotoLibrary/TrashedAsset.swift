/// An asset the library moved to the Trash, as a "Recently Deleted" view shows it: what it was,
/// where it was, when it was deleted, and the albums it goes back to when restored.
public struct TrashedAsset: Sendable, Equatable, Identifiable {
    /// The asset as it was (its `path` is where it was; `restore` gives back the same identifier,
    /// favourite mark and albums).
    public let asset: Asset
    /// Where the file was, from its `.trashinfo` (`Path`).
    public let originalPath: String
    /// When it was deleted, in seconds since 1970, from its `.trashinfo` (`DeletionDate`, local
    /// time to the second).
    public let deletionDate: Double
    /// The file in the Trash (`…/Trash/files/NAME`), for a thumbnail or a preview.
    public let trashedPath: String
    /// The names of the albums it was in (and returns to, those that still exist).
    public let albums: [String]

    /// The asset's identifier.
    public var id: String { asset.id }
}
