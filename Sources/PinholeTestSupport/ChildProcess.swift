import Glibc

/// A program the tests or the bench start: the one place that calls `posix_spawn`. The child
/// starts as from a shell (no signal blocked, every signal's default action: the test runner's and
/// the bench's threads block signals, which children would otherwise inherit, and GLib programs
/// such as the accessibility bus launcher then never hear of their own children), with standard
/// input from /dev/null, standard output where `Output` says and standard error in a file; the
/// descriptors this process keeps (a pipe's read end) are close-on-exec. It is watched while it
/// runs (its output, its CPU time) and stopped and reaped by `stop` or when the value dies.
public final class ChildProcess {
    /// How the child ended, from `wait4`.
    public struct Exit: Sendable {
        /// The exit status (128 + signal number when a signal killed it).
        public let status: Int32
        /// User plus system CPU seconds of the child and its threads.
        public let cpuSeconds: Double
        /// Seconds from spawn to reaped exit.
        public let wallSeconds: Double
        /// The child's peak resident memory in bytes (`ru_maxrss`).
        public let peakResidentBytes: Int
    }

    /// Why a child could not be started.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public let description: String
    }

    /// Where a child's standard output goes.
    public enum Output {
        /// Nowhere.
        case null
        /// A pipe this object reads with `readLine` (for a line or two: nothing drains it otherwise).
        case pipe
        /// A file, created or truncated.
        case file(String)
    }

    /// The child's process ID.
    public let pid: pid_t
    /// CLOCK_MONOTONIC nanoseconds taken just before the spawn.
    public let spawnedAt: Int64
    /// The file the child's standard error goes to.
    public let errorPath: String
    /// The file its standard output goes to, when `Output.file`.
    public let outputPath: String?
    /// Whether the child leads a process group of its own, which `stop` signals whole.
    public let ownGroup: Bool
    /// The read end of a pipe on the child's standard output, or -1.
    private var output: Int32
    /// Bytes read from `output` that do not yet end a line.
    private var pending: [UInt8] = []
    /// How the child ended, once reaped.
    public private(set) var exit: Exit?
    /// Whether the value no longer stops the child when it dies (`detach`).
    private var detached = false

    /// Starts `arguments` (the first looked up in PATH unless it holds a slash) with exactly
    /// `environment` ("NAME=value"; nil: this process's), standard output to `standardOutput`
    /// and standard error to `errorPath`. With `ownGroup`, it leads a process group of its own,
    /// which what it starts shares (a second Ctrl-C at the bench does not reach it).
    public init(_ arguments: [String], environment: [String]? = nil, errorPath: String, standardOutput: Output = .null, ownGroup: Bool = false) throws {
        var fds: [Int32] = [-1, -1]
        if case .pipe = standardOutput {
            guard pipe(&fds) == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
            // Not inherited by other children (the copy on the child's standard output is made by dup2).
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch standardOutput {
        case .null: posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        case .pipe: posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        case let .file(path): posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = (environment ?? ChildProcess.currentEnvironment()).map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        spawnedAt = MonotonicClock.nanoseconds()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        if fds[1] >= 0 { close(fds[1]) }
        guard spawned == 0 else {
            if fds[0] >= 0 { close(fds[0]) }
            throw Failure(description: "could not start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        self.errorPath = errorPath
        self.ownGroup = ownGroup
        if case let .file(path) = standardOutput { outputPath = path } else { outputPath = nil }
        output = fds[0]
    }

    deinit {
        if exit == nil && !detached { _ = stop(grace: 2) }
        if output >= 0 { close(output) }
    }

    /// This process's environment, as NAME=value.
    public static func currentEnvironment() -> [String] {
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            result.append(String(cString: entry))
            pointer += 1
        }
        return result
    }

    /// This process's environment with `changes` added or replacing, as NAME=value.
    public static func environment(adding changes: [String: String]) -> [String] {
        currentEnvironment().filter { entry in changes[String(entry.prefix { $0 != "=" })] == nil }
            + changes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// The next line of standard output (without its newline), or nil when none came within
    /// `timeout` seconds or the child closed it.
    public func readLine(timeout: Double) -> String? {
        guard output >= 0 else { return nil }
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let left = deadline - MonotonicClock.seconds()
            guard left > 0 else { return nil }
            var poller = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left * 1000, 1000)) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(output, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending += chunk[..<count]
        }
    }

    /// Everything the child wrote to standard error so far.
    public var errors: String { readFile(errorPath) ?? "" }

    /// Everything the child wrote to standard output so far, when it goes to a file.
    public var writtenOutput: String { outputPath.flatMap(readFile) ?? "" }

    /// The first line of standard error that starts with `prefix`, waiting up to `timeout`
    /// seconds for it (polling the file every 2 ms); nil when the child exits or time runs out.
    /// `after` skips that many matching lines (the n-th event of a kind).
    public func waitForErrorLine(startingWith prefix: String, after skipped: Int = 0, timeout: Double) -> String? {
        let deadline = MonotonicClock.seconds() + timeout
        while true {
            let lines = errors.split(separator: "\n").filter { $0.hasPrefix(prefix) }
            if lines.count > skipped { return String(lines[skipped]) }
            guard MonotonicClock.seconds() < deadline, reap() == nil else {
                // One last look: the line may have been written just before the exit.
                let lines = errors.split(separator: "\n").filter { $0.hasPrefix(prefix) }
                return lines.count > skipped ? String(lines[skipped]) : nil
            }
            Sleep.seconds(0.002)
        }
    }

    /// User plus system CPU seconds the running child and all its threads have used so far
    /// (/proc/PID/stat), or nil when it is gone.
    public func cpuSecondsSoFar() -> Double? {
        exit == nil ? ProcessFacts.cpuSeconds(pid) : nil
    }

    /// CPU seconds so far of each of the running child's threads, summed by thread name
    /// (/proc/PID/task/*/stat); empty when it is gone.
    public func threadCPUSoFar() -> [String: Double] {
        exit == nil ? ProcessFacts.threadCPU(pid) : [:]
    }

    /// Reaps the child if it has exited (`block`: waiting for it); its `Exit` once it has.
    @discardableResult
    public func reap(block: Bool = false) -> Exit? {
        if let exit { return exit }
        var status: Int32 = 0
        var usage = rusage()
        var reaped = wait4(pid, &status, block ? 0 : WNOHANG, &usage)
        while reaped < 0 && errno == EINTR { reaped = wait4(pid, &status, block ? 0 : WNOHANG, &usage) }
        guard reaped == pid else { return nil }
        let signal = status & 0x7F
        let exit = Exit(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, cpuSeconds: MonotonicClock.cpuSeconds(usage),
                        wallSeconds: Double(MonotonicClock.nanoseconds() - spawnedAt) / 1e9, peakResidentBytes: usage.ru_maxrss * 1024)
        self.exit = exit
        return exit
    }

    /// Waits up to `timeout` seconds for the child to exit by itself (nil: as long as it takes,
    /// blocked in `wait4`, so the exit's wall time is exact).
    @discardableResult
    public func wait(timeout: Double? = nil) -> Exit? {
        guard let timeout else { return reap(block: true) }
        let deadline = MonotonicClock.seconds() + timeout
        while reap() == nil {
            guard MonotonicClock.seconds() < deadline else { return nil }
            Sleep.seconds(0.005)
        }
        return exit
    }

    /// Sends SIGTERM (to the whole group with `ownGroup`), waits up to `grace` seconds, then
    /// sends SIGKILL and reaps the child; a `grace` of 0 sends SIGKILL at once.
    @discardableResult
    public func stop(grace: Double = 10) -> Exit {
        if let exit { return exit }
        if grace > 0 {
            signal(SIGTERM)
            if let exit = wait(timeout: grace) { return exit }
        }
        signal(SIGKILL)
        return reap(block: true)!
    }

    /// Sends `number` to the child (and its group with `ownGroup`) unless it was reaped.
    public func signal(_ number: Int32) {
        guard exit == nil else { return }
        if ownGroup { kill(-pid, number) }
        kill(pid, number)
    }

    /// Leaves the child running when the value dies (a program meant to outlive this process).
    public func detach() { detached = true }
}
