import Glibc
import Media

/// Where a library keeps its files and its index.
public struct LibraryLocation: Sendable, Equatable {
    /// The folder photos are saved in.
    public var photos: String
    /// The folder videos are saved in.
    public var videos: String
    /// The SQLite index.
    public var index: String
    /// The freedesktop Trash deleted files go to (the user's home Trash by default).
    public var trash: String
    /// The freedesktop thumbnail cache (the user's by default, shared with file managers).
    public var thumbnails: String

    /// A library at explicit folders (tests, portable use, a second library).
    public init(photos: String, videos: String, index: String, trash: String = Trash.home.folder,
                thumbnails: String = ThumbnailCache.user.folder) {
        self.photos = photos
        self.videos = videos
        self.index = index
        self.trash = trash
        self.thumbnails = thumbnails
    }

    /// A self-contained library in one folder: `folder/Photos`, `folder/Videos`, `folder/library.sqlite3`.
    public init(folder: String, trash: String = Trash.home.folder, thumbnails: String = ThumbnailCache.user.folder) {
        self.init(photos: folder + "/Photos", videos: folder + "/Videos", index: folder + "/library.sqlite3", trash: trash, thumbnails: thumbnails)
    }

    /// The user's library: `$XDG_PICTURES_DIR/Camera`, `$XDG_VIDEOS_DIR/Camera` (from
    /// `~/.config/user-dirs.dirs`, else ~/Pictures and ~/Videos) and
    /// `$XDG_DATA_HOME/pinhole/library.sqlite3`.
    public static var user: LibraryLocation {
        let home = environment("HOME") ?? "/root"
        let dataHome = environment("XDG_DATA_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        return LibraryLocation(photos: UserDirectories.pictures + "/Camera", videos: UserDirectories.videos + "/Camera",
                               index: dataHome + "/pinhole/library.sqlite3")
    }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}

/// The user's XDG folders (`~/.config/user-dirs.dirs`), with the documented fallbacks.
public enum UserDirectories {
    private static var home: String { LibraryLocation.environment("HOME") ?? "/root" }

    /// $XDG_CONFIG_HOME or ~/.config.
    public static var configHome: String {
        if let value = LibraryLocation.environment("XDG_CONFIG_HOME"), value.hasPrefix("/") { return value }
        return home + "/.config"
    }

    /// XDG_PICTURES_DIR from user-dirs.dirs, else ~/Pictures.
    public static var pictures: String { directory("XDG_PICTURES_DIR") ?? home + "/Pictures" }

    /// XDG_VIDEOS_DIR from user-dirs.dirs, else ~/Videos.
    public static var videos: String { directory("XDG_VIDEOS_DIR") ?? home + "/Videos" }

    /// One entry of user-dirs.dirs (`NAME="$HOME/Folder"` or an absolute path); a folder equal
    /// to $HOME means "disabled" in the spec, which falls back too.
    static func directory(_ name: String) -> String? {
        guard let bytes = try? FileBytes.read(path: configHome + "/user-dirs.dirs", limit: 1 << 20) else { return nil }
        return directory(name, in: bytes, home: home)
    }

    /// Entry `name` of the user-dirs.dirs text `bytes`, `$HOME` standing for `home`: an absolute
    /// folder other than `home`, or nil.
    static func directory(_ name: String, in bytes: [UInt8], home: String) -> String? {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + "=") {
            var value = String(line.dropFirst(name.count + 1))
            while value.last == " " || value.last == "\t" { value.removeLast() }
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            if value.hasPrefix("$HOME") { value = home + value.dropFirst(5) }
            guard value.hasPrefix("/") else { continue }
            return value == home || value == home + "/" ? nil : value
        }
        return nil
    }
}
