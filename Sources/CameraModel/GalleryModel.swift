import Foundation
import Observation
import PhotoLibrary

/// Which items the gallery shows.
public enum GalleryFilter: Hashable, Sendable {
    /// Everything.
    case all
    /// Photos only.
    case photos
    /// Videos only.
    case videos
    /// Favourites only.
    case favorites
    /// The items of the album with this name.
    case album(String)

    /// The filter a text names ("all", "photos", "videos", "favorites", "album:NAME"), for the
    /// `gallery-filter` action.
    public init?(text: String) {
        switch text {
        case "all": self = .all
        case "photos": self = .photos
        case "videos": self = .videos
        case "favorites": self = .favorites
        case _ where text.hasPrefix("album:") && text.count > 6: self = .album(String(text.dropFirst(6)))
        default: return nil
        }
    }
}

/// The gallery's state, free of GTK: the library's items newest first, kept live from the
/// library's change stream (the camera page, `pinhole snap` in a terminal, a file manager), and
/// their thumbnails' paths. The view shows `items` and is told how they changed as one splice
/// (`splices`), so it keeps its scroll position and selection; the albums and the filter are
/// observed (`observe`).
@MainActor
@Observable
public final class GalleryModel {
    /// The items shown, newest first.
    public private(set) var items: [Asset] = []
    /// The filter in use.
    public private(set) var filter: GalleryFilter = .all
    /// The library's albums with their sizes, by name (read with the items).
    public private(set) var albums: [(name: String, count: Int)] = []
    /// Each album's cover (its chosen item, else its newest), by album name; an empty album has none.
    public private(set) var albumCovers: [String: Asset] = [:]
    /// How the items changed, one splice at a time, from `items` as they were when the view
    /// subscribed (which need not be empty: an album change reads them without a view).
    public let splices = Broadcast<GallerySplice>()
    /// The library could not be read (one line, for a toast).
    public let errors = Broadcast<String>()

    /// The only kind of item shown, whatever the filter (a picker for photos); nil shows both.
    public let mediaType: Asset.MediaType?
    @ObservationIgnored private let open: @MainActor () async -> PhotoLibrary?
    /// The model's work in flight: a Save As holds the app until its copy is written.
    @ObservationIgnored private let work: WorkInFlight
    @ObservationIgnored private var library: PhotoLibrary?
    @ObservationIgnored private var watcher: Task<Void, Never>?

    /// A gallery over the library `open` gives (opened on first use), of `mediaType`'s items only
    /// when given; its Save As copies are registered in `work`.
    init(mediaType: Asset.MediaType? = nil, work: WorkInFlight, open: @escaping @MainActor () async -> PhotoLibrary?) {
        self.mediaType = mediaType
        self.work = work
        self.open = open
    }

    /// Starts showing the library and following its changes (the gallery page appeared).
    public func start() {
        guard watcher == nil else { return }
        watcher = Task { [weak self] in
            guard let library = await self?.open() else { return }
            self?.library = library
            let changes = await library.changes()
            await self?.reload()
            for await _ in changes {
                guard let self, !Task.isCancelled else { return }
                await self.reload()
            }
        }
    }

    /// Stops following the library (the page went away); the items stay for a quick return.
    public func stop() {
        watcher?.cancel()
        watcher = nil
    }

    /// Shows only `filter`'s items.
    public func setFilter(_ filter: GalleryFilter) {
        guard filter != self.filter else { return }
        self.filter = filter
        Task { await reload() }
    }

    /// Reads the items again (off the main thread) and tells the view what changed.
    func reload() async {
        guard let library else { return }
        do throws(LibraryError) {
            // The library is an actor: the queries run on its executor, not on the main thread.
            let albums = try await library.albums()
            var covers: [String: Asset] = [:]
            for album in albums where album.count > 0 { covers[album.name] = try await library.cover(ofAlbum: album.name) }
            if albums.map(\.name) != self.albums.map(\.name) || albums.map(\.count) != self.albums.map(\.count)
                || covers.mapValues(\.id) != albumCovers.mapValues(\.id) {
                self.albums = albums
                albumCovers = covers
            }
            if case let .album(name) = filter, !albums.contains(where: { $0.name == name }) {
                filter = .all
            }
            let filter = self.filter
            let kind = mediaType ?? (filter == .photos ? .photo : filter == .videos ? .video : nil)
            if case let .album(name) = filter {
                apply(try await library.assets(inAlbum: name).filter { kind == nil || $0.mediaType == kind })
            } else {
                apply(try await library.assets(mediaType: kind, favoritesOnly: filter == .favorites))
            }
        } catch {
            errors.send(CameraWords.translate("The photo library cannot be read: %@", CameraWords.reason(error)))
        }
    }

    /// Replaces the items with `fresh`, telling the view the smallest splice (common start and
    /// end kept: a new photo is one insertion at the top).
    func apply(_ fresh: [Asset]) {
        let old = items
        var start = 0
        while start < old.count, start < fresh.count, old[start] == fresh[start] { start += 1 }
        var end = 0
        while end < old.count - start, end < fresh.count - start, old[old.count - 1 - end] == fresh[fresh.count - 1 - end] { end += 1 }
        let removing = old.count - start - end, inserting = fresh.count - start - end
        items = fresh
        if removing > 0 || inserting > 0 { splices.send(GallerySplice(at: start, removing: removing, inserting: inserting)) }
    }

    /// Items moved to the Trash by the last delete (what Undo restores).
    public private(set) var lastDeleted: [String] = []

    /// Marks or unmarks the item as a favourite; the items are read again.
    public func setFavorite(_ favorite: Bool, for asset: Asset) async {
        guard let library else { return }
        do throws(LibraryError) {
            try await library.setFavorite(favorite, ids: [asset.id])
        } catch {
            errors.send(CameraWords.translate("The favourite could not be saved: %@", CameraWords.reason(error)))
        }
        await reload()
    }

    /// Moves the items to the freedesktop Trash, all or none (Undo puts them back as they
    /// were); true when moved.
    public func delete(_ assets: [Asset]) async -> Bool {
        guard let library, !assets.isEmpty else { return false }
        let ids = assets.map(\.id)
        do throws(LibraryError) {
            try await library.delete(ids: ids)
        } catch {
            errors.send(CameraWords.translate("It could not be moved to the Trash: %@", CameraWords.reason(error)))
            return false
        }
        lastDeleted = ids
        await reload()
        return true
    }

    /// Adds the items to the album `name`, making it first when `create` (a new album); true when done.
    public func add(_ assets: [Asset], toAlbum name: String, create: Bool = false) async -> Bool {
        await albumChange { library throws(LibraryError) in
            if create { try await library.createAlbum(name) }
            try await library.add(ids: assets.map(\.id), toAlbum: name)
        }
    }

    /// Takes the items out of the album `name` (they stay in the library); true when done.
    public func remove(_ assets: [Asset], fromAlbum name: String) async -> Bool {
        await albumChange { library throws(LibraryError) in try await library.remove(ids: assets.map(\.id), fromAlbum: name) }
    }

    /// Renames the album `name` (the gallery follows it when it shows that album); true when done.
    public func renameAlbum(_ name: String, to newName: String) async -> Bool {
        await albumChange { [weak self] library throws(LibraryError) in
            try await library.renameAlbum(name, to: newName)
            // Before the items are read again, or the album shown would be gone and the gallery show all.
            if let self, self.filter == .album(name) {
                self.filter = .album(newName.trimmingCharacters(in: .whitespacesAndNewlines))  // as the library stores it
            }
        }
    }

    /// Makes `asset` the cover of the album `name`; true when done.
    public func setCover(_ asset: Asset, ofAlbum name: String) async -> Bool {
        await albumChange { library throws(LibraryError) in try await library.setCover(asset.id, ofAlbum: name) }
    }

    /// Deletes the album `name` (its items stay in the library); true when done.
    public func deleteAlbum(_ name: String) async -> Bool {
        await albumChange { library throws(LibraryError) in try await library.deleteAlbum(name) }
    }

    /// Runs one album change, says why it failed, and reads the items and albums again.
    private func albumChange(_ change: (PhotoLibrary) async throws(LibraryError) -> Void) async -> Bool {
        guard let library = await libraryOpened() else { return false }
        do throws(LibraryError) {
            try await change(library)
        } catch {
            errors.send(CameraWords.translate("The album could not be changed: %@", CameraWords.reason(error)))
            return false
        }
        await reload()
        return true
    }

    /// Writes a copy of the item to `path` (Save As), without its location when asked, as work
    /// in flight registered before this suspends; true when written, else the reason goes to `errors`.
    public func export(_ asset: Asset, to path: String, removingLocation: Bool) async -> Bool {
        let ticket = work.begin(.export)
        defer { ticket.end() }
        return await write(asset, to: path, removingLocation: removingLocation, ticket)
    }

    /// The copy of `export`, under its `ticket`.
    private func write(_ asset: Asset, to path: String, removingLocation: Bool, _ ticket: WorkInFlight.Ticket) async -> Bool {
        assert(!ticket.isEnded, "a Save As runs outside its work in flight")
        guard let library else { return false }
        do throws(LibraryError) {
            try await library.export(id: asset.id, toFile: path, stripLocation: removingLocation)
            return true
        } catch {
            errors.send(CameraWords.translate("It could not be saved: %@", CameraWords.reason(error)))
            return false
        }
    }

    /// Restores what the last delete moved to the Trash: the same item, favourite and albums.
    public func undoDelete() async {
        guard let library, !lastDeleted.isEmpty else { return }
        let ids = lastDeleted
        lastDeleted = []
        do throws(LibraryError) {
            _ = try await library.restore(ids: ids)
        } catch {
            errors.send(CameraWords.translate("It could not be restored from the Trash: %@", CameraWords.reason(error)))
        }
        await reload()
    }

    /// What the library put in the Trash and is still there, most recently deleted first (the
    /// "Recently Deleted" page; read by `loadTrashed`).
    public private(set) var trashed: [TrashedAsset] = []

    /// Reads what the library has in the Trash again.
    public func loadTrashed() async {
        guard let library = await libraryOpened() else { return }
        do throws(LibraryError) {
            trashed = try await library.trashedAssets()
        } catch {
            errors.send(CameraWords.translate("The Trash cannot be read: %@", CameraWords.reason(error)))
        }
    }

    /// Puts trashed items back where they were (same items, favourites and albums); true when done.
    public func restore(_ ids: [String]) async -> Bool {
        guard let library = await libraryOpened(), !ids.isEmpty else { return false }
        defer { lastDeleted.removeAll { ids.contains($0) } }
        do throws(LibraryError) {
            _ = try await library.restore(ids: ids)
        } catch {
            errors.send(CameraWords.translate("It could not be restored from the Trash: %@", CameraWords.reason(error)))
            await loadTrashed()
            return false
        }
        await loadTrashed()
        await reload()
        return true
    }

    /// Deletes trashed items for good (the caller has asked for confirmation); true when done.
    public func deletePermanently(_ ids: [String]) async -> Bool {
        guard let library = await libraryOpened(), !ids.isEmpty else { return false }
        defer { lastDeleted.removeAll { ids.contains($0) } }
        do throws(LibraryError) {
            try await library.deletePermanently(ids: ids)
        } catch {
            errors.send(CameraWords.translate("It could not be deleted: %@", CameraWords.reason(error)))
            await loadTrashed()
            return false
        }
        await loadTrashed()
        return true
    }

    /// The library, opened now if the gallery has not been shown yet.
    private func libraryOpened() async -> PhotoLibrary? {
        if library == nil { library = await open() }
        return library
    }

    /// The path of the item's thumbnail (made by the library when missing, off the main thread).
    public func thumbnail(for asset: Asset) async -> String? {
        guard let library else { return nil }
        return try? await library.thumbnail(for: asset.id, size: .normal)
    }

    /// What a screen reader says for an item: its kind and when it was taken.
    public static func accessibleName(of asset: Asset) -> String {
        let date = Date(timeIntervalSince1970: asset.creationDate).formatted(date: .long, time: .shortened)
        switch asset.mediaType {
        case .video: return CameraWords.translate("Video, %@", date)
        default: return CameraWords.translate("Photo, %@", date)
        }
    }

    /// "1:05" for a video's duration.
    public static func durationText(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 3600 ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60) : String(format: "%d:%02d", whole / 60, whole % 60)
    }
}

/// One change of a list's items: `removing` items from `at` were replaced by `inserting` new ones.
public struct GallerySplice: Sendable, Equatable {
    /// Where the change starts.
    public let at: Int
    /// How many items went.
    public let removing: Int
    /// How many items came in their place.
    public let inserting: Int
}
