/// A batch of changes for `PhotoLibrary.performChanges`, applied all together or not at all.
public struct ChangeRequests: Sendable {
    /// One requested change.
    enum Request: Sendable {
        case create(data: [UInt8], name: String)
        case createFromFile(path: String, moving: Bool, videoOnly: Bool)
        case delete([String])
        case favorite([String], Bool)
        case addToAlbum([String], String)
    }

    private(set) var requests: [Request] = []

    /// An empty batch.
    init() {}

    /// Adds a photo from its file bytes (a `CapturePhoto`'s `fileDataRepresentation()`, a download…).
    public mutating func createAsset(fromImageData data: [UInt8], name: String = "the photo") {
        requests.append(.create(data: data, name: name))
    }

    /// Adds a photo or a video from a file (its content decides which), copying it, or moving it:
    /// then the original is removed once the batch commits (a move within one file system is a
    /// rename, whatever the size).
    public mutating func createAsset(fromFile path: String, moving: Bool = false) {
        requests.append(.createFromFile(path: path, moving: moving, videoOnly: false))
    }

    /// Adds a video (MP4, MOV, MKV or WebM) from a file, copying or moving it into the videos
    /// folder (a movie moved from the videos folder itself, as a recording is, stays where it
    /// is); a file that is not a movie fails the batch.
    public mutating func createAsset(fromVideoFile path: String, moving: Bool = false) {
        requests.append(.createFromFile(path: path, moving: moving, videoOnly: true))
    }

    /// Moves assets to the Trash.
    public mutating func deleteAssets(_ ids: [String]) { requests.append(.delete(ids)) }

    /// Marks assets as favourites (or not).
    public mutating func setFavorite(_ favorite: Bool, for ids: [String]) { requests.append(.favorite(ids, favorite)) }

    /// Adds assets (existing ones by ID) to an existing album.
    public mutating func addAssets(_ ids: [String], toAlbum album: String) { requests.append(.addToAlbum(ids, album)) }
}
