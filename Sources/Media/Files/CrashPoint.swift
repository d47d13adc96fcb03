import Glibc

/// Deterministic crash injection for durability tests: with `PINHOLE_CRASH_AT=NAME:N` in the
/// environment, the process kills itself with SIGKILL the N-th time it reaches the point NAME
/// (as a power cut or the OOM killer would), so tests can check what a crash at exactly that
/// moment leaves behind. Without the variable, reaching a point costs one comparison.
public enum CrashPoint {
    private static let target: (name: String, count: Int)? = {
        guard let raw = getenv("PINHOLE_CRASH_AT").map({ String(cString: $0) }),
              let colon = raw.lastIndex(of: ":"), let count = Int(raw[raw.index(after: colon)...]) else { return nil }
        return (String(raw[..<colon]), count)
    }()
    private static let hits = Lock<[String: Int]>([:])

    /// Marks the point `name`; kills the process if the environment asks for a crash here now.
    public static func reached(_ name: String) {
        guard let target, target.name == name else { return }
        let count = hits.withLock { hits -> Int in
            hits[name, default: 0] += 1
            return hits[name]!
        }
        if count == target.count { kill(getpid(), SIGKILL) }
    }
}
