import Glibc

/// Monotonic time, the clock the app's `pinhole-bench:` report lines and capture timestamps use.
public enum MonotonicClock {
    /// `CLOCK_MONOTONIC` now, in nanoseconds.
    public static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// `CLOCK_MONOTONIC` now, in seconds (no clock adjustment moves it).
    public static func seconds() -> Double { Double(nanoseconds()) / 1e9 }

    /// User plus system CPU seconds recorded in `usage`.
    public static func cpuSeconds(_ usage: rusage) -> Double {
        Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
    }
}

/// Sleeping without Foundation.
public enum Sleep {
    /// Sleeps `seconds` on the monotonic clock (resuming after signals).
    public static func seconds(_ seconds: Double) {
        guard seconds > 0 else { return }
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

/// Reads a whole text file, or nil when it cannot be opened.
public func readFile(_ path: String) -> String? {
    readBytes(path).map { String(decoding: $0, as: UTF8.self) }
}

/// Reads a whole file's bytes, or nil when it cannot be opened.
public func readBytes(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

/// The names in a folder (without "." and ".."), or none when it cannot be read.
public func folderNames(_ path: String) -> [String] {
    guard let folder = opendir(path) else { return [] }
    defer { closedir(folder) }
    var names: [String] = []
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Trimming without Foundation.
extension StringProtocol {
    /// This text without leading and trailing spaces, tabs and newlines.
    public var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// What `/proc` says of a running process: its CPU time, its threads', its memory, its parent, its name.
public enum ProcessFacts {
    /// User plus system CPU seconds `pid` and all its threads have used so far (/proc/PID/stat),
    /// or nil when it is gone.
    public static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let text = readFile("/proc/\(pid)/stat") else { return nil }
        return statCPU(text)?.seconds
    }

    /// CPU seconds so far of each of `pid`'s threads, summed by thread name (/proc/PID/task/*/stat).
    public static func threadCPU(_ pid: pid_t) -> [String: Double] {
        var byName: [String: Double] = [:]
        for task in folderNames("/proc/\(pid)/task") {
            guard let text = readFile("/proc/\(pid)/task/\(task)/stat"), let (name, seconds) = statCPU(text) else { continue }
            byName[name, default: 0] += seconds
        }
        return byName
    }

    /// The command name and user plus system CPU seconds in the text of a `stat` file.
    static func statCPU(_ text: String) -> (name: String, seconds: Double)? {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (String(text[text.index(after: open)..<close]), (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }

    /// The parent process ID of `pid`, or nil when it is gone.
    public static func parent(of pid: pid_t) -> pid_t? {
        guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The command name of `pid` ("?" when it is gone).
    public static func name(of pid: pid_t) -> String {
        (readFile("/proc/\(pid)/comm") ?? "?").trimmed
    }

    /// The resident memory of `pid` now and its high-water mark, in bytes: `VmRSS` and `VmHWM` of
    /// /proc/PID/status (the kernel keeps both per address space, shared by a process's threads,
    /// and starts them afresh at exec). Nil when `pid` is gone or a zombie (its memory already
    /// released: a zombie's status has no Vm lines).
    public static func memory(_ pid: pid_t) -> (resident: Int, highWater: Int)? {
        guard let text = readFile("/proc/\(pid)/status") else { return nil }
        var resident: Int?, highWater: Int?
        for line in text.split(separator: "\n") where line.hasPrefix("Vm") {
            // "VmHWM:\t   12345 kB"
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 3, fields[2] == "kB", let kibibytes = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { resident = kibibytes * 1024 }
            if fields[0] == "VmHWM:" { highWater = kibibytes * 1024 }
        }
        guard let resident, let highWater else { return nil }
        return (resident, highWater)
    }

    /// The number of threads of `pid` (entries of /proc/PID/task; 0 when it is gone).
    public static func threadCount(_ pid: pid_t) -> Int {
        folderNames("/proc/\(pid)/task").count
    }

    /// The number of file descriptors `pid` has open (entries of /proc/PID/fd, which counts the
    /// one a reader of its own folder holds while reading: read from outside, or subtract one).
    public static func openFileCount(_ pid: pid_t) -> Int {
        folderNames("/proc/\(pid)/fd").count
    }

    /// Whether `pid` exists and is not a zombie.
    public static func isRunning(_ pid: pid_t) -> Bool {
        guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(after: close)...].split(separator: " ").first != "Z"
    }
}

/// What `/proc` says of the machine itself.
public enum MachineFacts {
    /// CPU seconds the hypervisor has taken from this machine since it booted, all CPUs added up
    /// (/proc/stat's eighth figure on its "cpu" line; 0 where there is none): other guests' work,
    /// which makes every figure measured meanwhile noisier and can stall a recording.
    public static func stolenSeconds() -> Double {
        let cpu = readFile("/proc/stat")?.split(separator: "\n").first { $0.hasPrefix("cpu ") }
        let fields = cpu?.split(separator: " ").dropFirst().compactMap { Int($0) } ?? []
        return fields.count > 7 ? Double(fields[7]) / Double(sysconf(Int32(_SC_CLK_TCK))) : 0
    }
}
