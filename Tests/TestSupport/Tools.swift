import Foundation
import PinholeTestSupport
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
    guard let executable = Subprocess.find(name) else {
        Issue.record("\(name) is not installed; run scripts/setup")
        throw CocoaError(.fileNoSuchFile)
    }
    return try spawn([executable] + arguments, environment: environment)
}

/// Runs `argv` to its end (`Subprocess.run`), its output collected through files, with
/// `environment` added to this process's.
public func spawn(_ argv: [String], environment: [String: String] = [:]) throws -> ToolResult {
    let result = Subprocess.run(argv, environment: ChildProcess.environment(adding: environment), scratch: FileManager.default.temporaryDirectory.path,
                                captureOutput: true)
    guard result.status != 127 || result.wallSeconds > 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: result.errors])
    }
    return ToolResult(status: result.status, stdout: result.output, stderr: result.errors)
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

/// A program running beside a test (a private D-Bus daemon, a stand-in service, the app), a
/// `ChildProcess` with `environment` added to this process's, stopped by `stop()` or when the value
/// dies. Its output goes to files the test can read while it runs.
public final class BackgroundProcess: @unchecked Sendable {
    /// The running program.
    private let child: ChildProcess
    /// The folder of its output files.
    private let folder: URL
    /// The process ID.
    public var pid: pid_t { child.pid }

    /// Starts `argv` with `environment` added to this process's. With `ownGroup`, `stop()` kills
    /// the program's whole process group: what it started goes with it (a `dbus-run-session`'s
    /// bus daemon and the services that bus started, which outlive a killed `dbus-run-session`).
    public init(_ argv: [String], environment: [String: String] = [:], ownGroup: Bool = false) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pinhole-background-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        child = try ChildProcess(argv, environment: ChildProcess.environment(adding: environment), errorPath: folder.appendingPathComponent("err").path,
                                 standardOutput: .file(folder.appendingPathComponent("out").path), ownGroup: ownGroup)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// What the program has written to standard output so far.
    public var output: String { child.writtenOutput }

    /// What the program has written to standard error so far.
    public var errors: String { child.errors }

    /// Waits until standard output contains `text` (true) or `seconds` pass (false).
    public func waitForOutput(containing text: String, seconds: Double = patience) -> Bool {
        blockUntil(seconds: seconds) { output.contains(text) }
    }

    /// Whether the program has exited by itself (it is then reaped; `errors` still holds what it said).
    public var hasExited: Bool { child.reap() != nil }

    /// Kills the program (and its group with `ownGroup`) at once and reaps it.
    public func stop() { child.stop(grace: 0) }

    /// Waits for the program to exit by itself (up to `seconds`) and returns its exit status, or
    /// nil when it was still running (it is then killed).
    public func waitForExit(seconds: Double) -> Int32? {
        if let exit = child.wait(timeout: seconds) { return exit.status }
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
        // Written by cp, not by this process: a program another test starts meanwhile must not
        // hold the copy open for writing, or running it fails with ETXTBSY ("Text file busy").
        // A close-on-exec descriptor was not enough: a child forked while it was open keeps it
        // until the child's exec, which a loaded machine delays past this test's run (CI, once).
        let copied = try runTool("cp", [builtProduct(name), copy + ".part"])
        guard copied.status == 0, chmod(copy + ".part", 0o755) == 0 else { throw CocoaError(.fileWriteUnknown) }
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

/// Polls `condition` every `interval` until it holds (true) or `seconds` pass (false), on the
/// caller's actor (a main-actor test may read its model).
public func waitUntil(seconds: Double = patience, every interval: Duration = .milliseconds(20), isolation: isolated (any Actor)? = #isolation,
                      _ condition: () throws -> Bool) async rethrows -> Bool {
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
