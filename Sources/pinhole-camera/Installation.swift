import Glibc

/// Where the installed app finds its data: PREFIX/share next to PREFIX/bin.
enum Installation {
    /// PREFIX, from the executable's own path (/proc/self/exe → PREFIX/bin/pinhole-camera).
    static var prefix: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "/usr/local" }
        let path = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var parts = path.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        return parts.joined(separator: "/")
    }

    /// PREFIX/share/locale.
    static var localeFolder: String { prefix + "/share/locale" }

    /// The source tree's icons when the app runs from a build (…/.build/CONFIG/pinhole-camera),
    /// not installed: nil when installed (the icons are then in the hicolor theme).
    static var sourceTreeIcons: String? {
        var folder = prefix
        for _ in 0..<3 {
            if access(folder + "/Package.swift", F_OK) == 0, access(folder + "/data/icons", F_OK) == 0 { return folder + "/data/icons" }
            folder = String(folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)])
        }
        return nil
    }
}
