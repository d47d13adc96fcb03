/// Whole-file reads with errors as `MediaError.io`, bounded so a huge file cannot exhaust memory;
/// opened through `RegularFile`, so only a regular file is read and opening never blocks.
public enum FileBytes {
    /// The largest file `read(path:)` accepts by default: 1 GiB.
    public static let defaultLimit = 1 << 30

    /// Reads the whole file at `path`; with `truncating`, a larger file gives its first `limit` bytes
    /// (to sniff its kind) instead of an error.
    public static func read(path: String, limit: Int = defaultLimit, truncating: Bool = false) throws(MediaError) -> [UInt8] {
        let file = try RegularFile(path: path, limit: truncating ? nil : limit)
        return truncating ? try file.read(upTo: min(file.size, limit)) : try file.readAll()
    }
}
