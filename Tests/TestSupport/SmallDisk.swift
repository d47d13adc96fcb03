import Foundation
import Testing

/// A small tmpfs mounted at `path` (the folder is made when missing): a disk that fills up, or
/// with `readOnly`, one that cannot be written. Mounting needs root, as the tests run in CI.
/// Unmount it with `unmount()` in a `defer` (lazily, so a process still holding a file there
/// does not keep it mounted).
public struct SmallDisk {
    /// Where it is mounted.
    public let path: String

    /// Mounts a tmpfs of `size` ("64k", "2m") at `path`.
    public init(at path: String, size: String, readOnly: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let mounted = try runTool("mount", ["-t", "tmpfs", "-o", "size=\(size)" + (readOnly ? ",ro" : ""), "tmpfs", path])
        try #require(mounted.status == 0, "cannot mount a small tmpfs at \(path): \(mounted.stderr)")
        self.path = path
    }

    /// Gives it a new size ("1m"), keeping what is on it: room made on a full disk.
    public func resize(to size: String) throws {
        let remounted = try runTool("mount", ["-o", "remount,size=\(size)", path])
        try #require(remounted.status == 0, "cannot resize the tmpfs at \(path): \(remounted.stderr)")
    }

    /// Unmounts it.
    public func unmount() { _ = try? runTool("umount", ["-l", path]) }
}
