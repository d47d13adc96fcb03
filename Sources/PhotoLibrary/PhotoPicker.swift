import Media

/// The logic of picking photos from the library, shared by the app's picker and the CLI:
/// which assets are offered (media type, album, favourites), the selection with its limit, and
/// loading what was picked.
public struct PhotoPicker: Sendable {
    /// Only this media type (nil: all).
    public var mediaType: Asset.MediaType?
    /// Only this album (nil: the whole library).
    public var album: String?
    /// Only favourites.
    public var favoritesOnly: Bool
    /// How many may be selected: 1 for a single pick, 0 for no limit.
    public let selectionLimit: Int
    /// The identifiers selected, in the order they were picked.
    public private(set) var selection: [String] = []

    /// A picker offering `mediaType` items from `album`, allowing `selectionLimit` picks.
    public init(mediaType: Asset.MediaType? = .photo, album: String? = nil, favoritesOnly: Bool = false, selectionLimit: Int = 1) {
        self.mediaType = mediaType
        self.album = album
        self.favoritesOnly = favoritesOnly
        self.selectionLimit = max(0, selectionLimit)
    }

    /// The assets offered, newest first.
    public func candidates(in library: PhotoLibrary) async throws(LibraryError) -> [Asset] {
        let assets: [Asset]
        if let album {
            assets = try await library.assets(inAlbum: album).filter { mediaType == nil || $0.mediaType == mediaType }
        } else {
            assets = try await library.assets(mediaType: mediaType)
        }
        return favoritesOnly ? assets.filter(\.isFavorite) : assets
    }

    /// Selects or unselects `id`. With a limit of 1, picking another replaces the first; with a
    /// larger limit, picks beyond it are refused (returns false).
    @discardableResult
    public mutating func toggle(_ id: String) -> Bool {
        if let index = selection.firstIndex(of: id) {
            selection.remove(at: index)
            return true
        }
        if selectionLimit == 1 {
            selection = [id]
            return true
        }
        guard selectionLimit == 0 || selection.count < selectionLimit else { return false }
        selection.append(id)
        return true
    }

    /// The picked assets' file bytes, in pick order.
    public func loadSelection(from library: PhotoLibrary) async throws(LibraryError) -> [(asset: Asset, data: [UInt8])] {
        var result: [(Asset, [UInt8])] = []
        for id in selection {
            guard let asset = try await library.asset(id: id) else { throw .notFound(id) }
            do { result.append((asset, try FileBytes.read(path: asset.path))) } catch { throw LibraryError.from(error) }
        }
        return result
    }
}
