import Glibc

extension PhotoLibrary {
    /// What a program wants to do with the library.
    public enum AccessLevel: Sendable {
        /// Only add photos and videos (a camera app).
        case addOnly
        /// Read, change and delete (a gallery).
        case readWrite
    }

    /// Whether the library may be used, and if not, why.
    public enum AuthorizationStatus: Sendable, Equatable {
        /// Allowed.
        case authorized
        /// The folders cannot be written or read; `reason` says which and how to fix it.
        case denied(reason: String)
        /// A sandbox hides the folders.
        case restricted
    }

    /// Whether `level` access to the library at `location` is possible: the photo folder (or the
    /// nearest existing parent, where it would be created) must be writable, and readable for
    /// `.readWrite`.
    public static func authorizationStatus(for level: AccessLevel, location: LibraryLocation = .user) -> AuthorizationStatus {
        var folder = location.photos
        while access(folder, F_OK) != 0, let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
        }
        let mode = level == .addOnly ? W_OK | X_OK : R_OK | W_OK | X_OK
        guard access(folder, mode) == 0 else {
            if access("/.flatpak-info", F_OK) == 0 { return .restricted }
            let what = level == .addOnly ? "written" : "read and written"
            return .denied(reason: "\(folder) cannot be \(what); fix its permissions (chmod u+rwx) or choose another folder")
        }
        return .authorized
    }

    /// Asks for access; without a desktop portal there is nobody to ask, so this reports what
    /// the file system allows now.
    public static func requestAuthorization(for level: AccessLevel, location: LibraryLocation = .user) async -> AuthorizationStatus {
        authorizationStatus(for: level, location: location)
    }
}
