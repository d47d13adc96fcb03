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
}
