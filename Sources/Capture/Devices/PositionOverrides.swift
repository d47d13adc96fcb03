import Glibc
import Media

/// User overrides of camera positions (V4L2 does not say where a camera looks).
///
/// Read from `$XDG_CONFIG_HOME/pinhole/camera-positions` (else ~/.config/...): one
/// `ID = front|back|external|unspecified` per line, `#` starts a comment.
enum PositionOverrides {
    /// The file's path.
    static var path: String {
        if let config = DeviceScanner.environment("XDG_CONFIG_HOME"), !config.isEmpty { return "\(config)/pinhole/camera-positions" }
        return "\(DeviceScanner.environment("HOME") ?? "/root")/.config/pinhole/camera-positions"
    }

    /// The position set for camera `id`, if any.
    static func position(for id: String) -> CaptureDevice.Position? {
        guard let bytes = try? FileBytes.read(path: path, limit: 1 << 20) else { return nil }
        return position(for: id, in: bytes)
    }

    /// The position the overrides text `bytes` sets for camera `id`, if any.
    static func position(for id: String, in bytes: [UInt8]) -> CaptureDevice.Position? {
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let parts = content.split(separator: "=", maxSplits: 1).map { $0.trimmedWhitespace() }
            if parts.count == 2, parts[0] == id, let position = CaptureDevice.Position(rawValue: parts[1]) { return position }
        }
        return nil
    }
}

extension StringProtocol {
    /// The string without leading and trailing whitespace (spaces, tabs, line breaks).
    func trimmedWhitespace() -> String {
        let characters = Array(self)
        var start = 0, end = characters.count
        while start < end, characters[start].isWhitespace { start += 1 }
        while end > start, characters[end - 1].isWhitespace { end -= 1 }
        return String(characters[start..<end])
    }
}
