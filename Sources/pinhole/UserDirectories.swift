import Foundation

/// The user's XDG folders (`~/.config/user-dirs.dirs`), with the documented fallbacks.
enum UserDirectories {
    /// $HOME.
    static var home: String { ProcessInfo.processInfo.environment["HOME"] ?? NSHomeDirectory() }

    /// $XDG_CONFIG_HOME or ~/.config.
    static var configHome: String {
        if let value = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], value.hasPrefix("/") { return value }
        return home + "/.config"
    }

    /// XDG_PICTURES_DIR from user-dirs.dirs, else ~/Pictures.
    static var pictures: String { directory("XDG_PICTURES_DIR") ?? home + "/Pictures" }

    /// XDG_VIDEOS_DIR from user-dirs.dirs, else ~/Videos.
    static var videos: String { directory("XDG_VIDEOS_DIR") ?? home + "/Videos" }

    /// Reads one entry of user-dirs.dirs (`NAME="$HOME/Folder"` or an absolute path).
    static func directory(_ name: String) -> String? {
        guard let text = try? String(contentsOfFile: configHome + "/user-dirs.dirs", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + "=") {
            var value = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            if value.hasPrefix("$HOME") { value = home + value.dropFirst(5) }
            guard value.hasPrefix("/") else { continue }
            // A folder equal to $HOME means "disabled" in the spec: fall back.
            return value == home || value == home + "/" ? nil : value
        }
        return nil
    }
}
