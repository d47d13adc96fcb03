import Foundation
import Synchronization
import Testing

/// What an external program printed and how it ended.
public struct ToolResult {
    /// The exit status.
    public var status: Int32
    /// Standard output.
    public var stdout: String
    /// Standard error.
    public var stderr: String

    /// A result as given.
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs an independent tool (exiftool, pngcheck, heif-info, …) found on PATH, or a program at an
/// absolute path. A missing tool is a failure, not a skip: the tests exist to have files checked
/// by programs we did not write. `environment` adds to (or replaces in) this process's.
public func runTool(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ToolResult {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
    let executable = name.hasPrefix("/") ? name : paths.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    guard let executable, FileManager.default.isExecutableFile(atPath: executable) else {
        Issue.record("\(name) is not installed; run scripts/setup")
        throw CocoaError(.fileNoSuchFile)
    }
    return try spawn([executable] + arguments, environment: environment)
}

/// Runs `argv` with posix_spawn and waitpid, its output collected through files. (Foundation's
/// Process needs a run-loop wake-up socket, which fails inside the test VM and then hangs.)
public func spawn(_ argv: [String], environment: [String: String] = [:]) throws -> ToolResult {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinhole-spawn-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let outPath = folder.appendingPathComponent("out").path, errPath = folder.appendingPathComponent("err").path
    let pid = try startProcess(argv, environment: environment, stdout: outPath, stderr: errPath)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7F
    let code = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
    let err = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
    return ToolResult(status: code, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}

/// CRC-32 as PNG uses it, for crafting test files by hand.
public func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// A PNG chunk with its length and CRC.
public func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let body = Array(type.utf8) + data
    return be(UInt32(data.count)) + body + be(crc32(body))
}

/// A tiny, valid-looking PNG whose header claims `width`×`height` (a decompression bomb when large).
public func pngHeaderOnly(width: UInt32, height: UInt32) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let ihdr = be(width) + be(height) + [8, 6, 0, 0, 0]
    // An IDAT holding a few bytes of a zlib stream of zeros: enough to start inflating.
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
        + pngChunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x18, 0x05, 0x00]) + pngChunk("IEND", [])
}

/// Deterministic pseudo-random bytes.
public func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

/// Starts `argv` with posix_spawn, standard input from /dev/null and output to the files given,
/// with `environment` added to this process's; returns its process ID. With `ownGroup`, the
/// program leads a process group of its own, which its children (daemons it starts) share.
func startProcess(_ argv: [String], environment: [String: String], stdout: String, stderr: String, ownGroup: Bool = false) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    let cEnvironment: [UnsafeMutablePointer<CChar>?] = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { cArguments.forEach { free($0) }; cEnvironment.forEach { free($0) } }
    // The child starts as from a shell: no signal blocked, every signal's default action (the
    // test runner's threads block signals, which children would otherwise inherit; GLib programs
    // such as the accessibility bus launcher then never hear of their own children).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t(), allSignals = sigset_t()
    sigemptyset(&noSignals)
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
    posix_spawnattr_setpgroup(&attributes, 0)
    var pid: pid_t = 0
    let result = cArguments.withUnsafeBufferPointer { args in
        cEnvironment.withUnsafeBufferPointer { env in
            posix_spawn(&pid, argv[0], &actions, &attributes, UnsafeMutablePointer(mutating: args.baseAddress!), UnsafeMutablePointer(mutating: env.baseAddress!))
        }
    }
    guard result == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "cannot start \(argv[0]): \(String(cString: strerror(result)))"])
    }
    return pid
}

/// A program running beside a test (a private D-Bus daemon, a stand-in service), stopped by `stop()`
/// or when the value dies. Its output goes to files the test can read while it runs.
public final class BackgroundProcess: @unchecked Sendable {
    /// The process ID.
    public let pid: pid_t
    private let folder: URL
    private var running = true
    /// Whether the program leads its own process group, killed whole by `stop()`.
    private let ownGroup: Bool

    /// Starts `argv` with `environment` added to this process's. With `ownGroup`, `stop()` kills
    /// the program's whole process group: what it started goes with it (a `dbus-run-session`'s
    /// bus daemon and the services that bus started, which outlive a killed `dbus-run-session`).
    public init(_ argv: [String], environment: [String: String] = [:], ownGroup: Bool = false) throws {
        self.ownGroup = ownGroup
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinhole-background-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pid = try startProcess(argv, environment: environment, stdout: folder.appendingPathComponent("out").path,
                                   stderr: folder.appendingPathComponent("err").path, ownGroup: ownGroup)
        self.pid = pid
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// What the program has written to standard output so far.
    public var output: String {
        (try? String(contentsOf: folder.appendingPathComponent("out"), encoding: .utf8)) ?? ""
    }

    /// What the program has written to standard error so far.
    public var errors: String {
        (try? String(contentsOf: folder.appendingPathComponent("err"), encoding: .utf8)) ?? ""
    }

    /// Waits until standard output contains `text` (true) or `seconds` pass (false).
    public func waitForOutput(containing text: String, seconds: Double = patience) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    /// Whether the program has exited by itself (it is then reaped; `errors` still holds what it said).
    public var hasExited: Bool {
        guard running else { return true }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { running = false }
        return !running
    }

    /// Records that the program was reaped elsewhere.
    func markExited() { running = false }

    /// Kills the program and reaps it.
    public func stop() {
        guard running else { return }
        running = false
        // SIGKILL: the test runner's threads block signals, and children inherit that mask.
        if ownGroup { kill(-pid, SIGKILL) }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}

extension BackgroundProcess {
    /// Waits for the program to exit by itself (up to `seconds`) and returns its exit status, or
    /// nil when it was still running (it is then killed).
    public func waitForExit(seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while Date() < deadline {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                markExited()
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            usleep(20_000)
        }
        stop()
        return nil
    }
}

/// Up to `count` elements of `stream`, waiting at most `seconds` in all.
public func collect<Element: Sendable>(_ stream: AsyncStream<Element>, count: Int, seconds: Double) async -> [Element] {
    let task = Task { () -> [Element] in
        var items: [Element] = []
        for await element in stream {
            items.append(element)
            if items.count >= count { break }
        }
        return items
    }
    let timer = Task {
        try await Task.sleep(for: .seconds(seconds))
        task.cancel()
    }
    let items = await task.value
    timer.cancel()
    return items
}

/// Reads a stream for as long as it lives and keeps what comes, so a test can wait for the next
/// items again and again: `collect` ends the stream when its wait runs out (a cancelled
/// iteration finishes an AsyncStream), which would turn one slow arrival into every later one
/// missing.
public final class StreamRecorder<Element: Sendable>: Sendable {
    /// What came and was not taken yet (a class of its own: the reading task holds it).
    private final class Received: Sendable {
        let items = Mutex<[Element]>([])
    }
    private let box = Received()
    private let reader: Task<Void, Never>

    /// Starts reading `stream`.
    public init(_ stream: AsyncStream<Element>) {
        let box = self.box
        reader = Task { for await element in stream { box.items.withLock { $0.append(element) } } }
    }

    /// Waits up to `seconds` for `count` items and takes them (fewer when the time runs out);
    /// the stream goes on being read.
    public func take(_ count: Int, seconds: Double) async -> [Element] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let taken = box.items.withLock { items -> [Element]? in
                guard items.count >= count || ContinuousClock.now >= deadline else { return nil }
                defer { items.removeFirst(min(count, items.count)) }
                return Array(items.prefix(count))
            }
            if let taken { return taken }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    deinit { reader.cancel() }
}

/// The path of a product built beside the running test bundle (e.g. the `pinhole` binary).
public func builtProduct(_ name: String) -> String {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path), url.path != "/" {
        url.deleteLastPathComponent()
    }
    return url.appendingPathComponent(name).path
}

/// A copy of the built product `name` that any user can run, for tests that drop to an
/// unprivileged user: the build folder may be where that user cannot reach (a clone in root's
/// home, mode 700 on Debian 12). Made once per test process, removed when it exits.
public func builtProductForAnyone(_ name: String) throws -> String {
    let copy = anyoneFolder + "/" + name
    try anyoneLock.withLock {
        guard !FileManager.default.fileExists(atPath: copy) else { return }
        try FileManager.default.createDirectory(atPath: anyoneFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        // Written through a close-on-exec descriptor: a program another test starts meanwhile
        // must not inherit it open for writing, or running the copy fails with ETXTBSY.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: builtProduct(name)))
        let fd = open(copy + ".part", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        try FileManager.default.moveItem(atPath: copy + ".part", toPath: copy)
        if !anyoneCleanupRegistered {
            anyoneCleanupRegistered = true
            atexit { try? FileManager.default.removeItem(atPath: anyoneFolder) }
        }
    }
    return copy
}

/// Where `builtProductForAnyone` puts its copies: a folder of this process's own.
private let anyoneFolder = FileManager.default.temporaryDirectory.path + "/pinhole-for-anyone-\(getpid())"
/// Serialises `builtProductForAnyone` across the tests' threads.
private let anyoneLock = NSLock()
/// Whether the copies' removal at exit is registered.
nonisolated(unsafe) private var anyoneCleanupRegistered = false

/// How long a test waits for something it expects (a frame, an event, a file, a process's exit)
/// before it fails. Generous on purpose: a test waits for the thing, not for a time a busy
/// machine may need more of, and on an idle machine it returns as soon as the thing happens.
public let patience: Double = 30

/// Polls `condition` every `interval` until it holds (true) or `seconds` pass (false).
public func waitUntil(seconds: Double = patience, every interval: Duration = .milliseconds(20), _ condition: () throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int64(seconds * 1000))
    while true {
        if try condition() { return true }
        if clock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
}

/// `waitUntil`, blocking the calling thread (for synchronous tests).
public func blockUntil(seconds: Double = patience, everyMilliseconds interval: UInt32 = 20, _ condition: () throws -> Bool) rethrows -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int64(seconds * 1000))
    while true {
        if try condition() { return true }
        if clock.now >= deadline { return false }
        usleep(interval * 1000)
    }
}
