import Glibc
import Media

/// A long-running child the bench starts with an environment of its own, watches while it runs
/// (its standard error, its CPU time) and stops itself: a display server, a bus, the camera app.
/// `Subprocess.run` is for tools that end by themselves.
final class ChildProcess {
    /// How the child ended, from `wait4`.
    struct Exit {
        /// The exit status (128 + signal number when a signal killed it).
        let status: Int32
        /// User plus system CPU seconds of the child and its threads.
        let cpuSeconds: Double
        /// Seconds from spawn to reaped exit.
        let wallSeconds: Double
    }

    /// The child's process ID.
    let pid: pid_t
    /// CLOCK_MONOTONIC nanoseconds taken just before the spawn.
    let spawnedAt: Int64
    /// The file the child's standard error goes to.
    let errorPath: String
    /// The read end of a pipe on the child's standard output, or -1 (output to /dev/null).
    private var output: Int32
    /// Bytes read from `output` that do not yet end a line.
    private var pending: [UInt8] = []
    /// How the child ended, once reaped.
    private(set) var exit: Exit?

    /// Why a child could not be started or did not answer.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        let description: String
    }

    /// Where a child's standard output goes.
    enum Output {
        /// Nowhere.
        case null
        /// A pipe this object reads with `readLine` (for a line or two: nothing drains it otherwise).
        case pipe
        /// A file, created or truncated.
        case file(String)
    }

    /// Starts `arguments` (the first looked up in PATH) with exactly `environment` ("NAME=value"),
    /// standard input from /dev/null, standard output to `standardOutput` and standard error to `errorPath`.
    init(_ arguments: [String], environment: [String], errorPath: String, standardOutput: Output = .null) throws {
        var pipeOutput = false
        if case .pipe = standardOutput { pipeOutput = true }
        var fds: [Int32] = [-1, -1]
        if pipeOutput {
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
        var attributes = Subprocess.spawnAttributes(newProcessGroup: false)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        spawnedAt = MonotonicClock.nanoseconds()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        if pipeOutput { close(fds[1]) }
        guard spawned == 0 else {
            if pipeOutput { close(fds[0]) }
            throw Failure(description: "could not start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        self.errorPath = errorPath
        output = pipeOutput ? fds[0] : -1
    }

    deinit {
        if exit == nil { _ = stop(grace: 2) }
        if output >= 0 { close(output) }
    }

    /// The next line of standard output (without its newline), or nil when none came within
    /// `timeout` seconds or the child closed it.
    func readLine(timeout: Double) -> String? {
        guard output >= 0 else { return nil }
        let deadline = Clock.now() + timeout
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let left = deadline - Clock.now()
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
    var errors: String { readFile(errorPath) ?? "" }

    /// The first line of standard error that starts with `prefix`, waiting up to `timeout`
    /// seconds for it (polling the file every 2 ms); nil when the child exits or time runs out.
    /// `after` skips that many matching lines (the n-th event of a kind).
    func waitForErrorLine(startingWith prefix: String, after skipped: Int = 0, timeout: Double) -> String? {
        let deadline = Clock.now() + timeout
        while true {
            let lines = errors.split(separator: "\n").filter { $0.hasPrefix(prefix) }
            if lines.count > skipped { return String(lines[skipped]) }
            guard Clock.now() < deadline, reap() == nil else {
                // One last look: the line may have been written just before the exit.
                let lines = errors.split(separator: "\n").filter { $0.hasPrefix(prefix) }
                return lines.count > skipped ? String(lines[skipped]) : nil
            }
            Sleep.seconds(0.002)
        }
    }

    /// User plus system CPU seconds the running child and all its threads have used so far
    /// (/proc/PID/stat), or nil when it is gone.
    func cpuSecondsSoFar() -> Double? {
        guard exit == nil, let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // After "pid (comm)": state is field 3, utime field 14, stime field 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds so far of each of the running child's threads, summed by thread name
    /// (/proc/PID/task/*/stat); empty when it is gone.
    func threadCPUSoFar() -> [String: Double] {
        guard exit == nil else { return [:] }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        var byName: [String: Double] = [:]
        for task in FileSystem.names(in: "/proc/\(pid)/task") {
            guard let text = readFile("/proc/\(pid)/task/\(task)/stat"), let open = text.firstIndex(of: "("),
                  let close = text.lastIndex(of: ")") else { continue }
            let name = String(text[text.index(after: open)..<close])
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            byName[name, default: 0] += (user + system) / ticks
        }
        return byName
    }

    /// Reaps the child if it has exited (without waiting); its `Exit` once it has.
    @discardableResult
    func reap() -> Exit? {
        if let exit { return exit }
        var status: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &status, WNOHANG, &usage)
        guard reaped == pid else { return nil }
        let signal = status & 0x7F
        let exit = Exit(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, cpuSeconds: Clock.seconds(usage),
                        wallSeconds: Double(MonotonicClock.nanoseconds() - spawnedAt) / 1e9)
        self.exit = exit
        return exit
    }

    /// Waits up to `timeout` seconds for the child to exit by itself.
    func wait(timeout: Double) -> Exit? {
        let deadline = Clock.now() + timeout
        while reap() == nil {
            guard Clock.now() < deadline else { return nil }
            Sleep.seconds(0.005)
        }
        return exit
    }

    /// Sends SIGTERM, waits up to `grace` seconds, then sends SIGKILL and reaps the child.
    @discardableResult
    func stop(grace: Double = 10) -> Exit {
        if let exit { return exit }
        kill(pid, SIGTERM)
        if let exit = wait(timeout: grace) { return exit }
        kill(pid, SIGKILL)
        while true {
            if let exit = wait(timeout: 1) { return exit }
        }
    }
}

/// Processes the bench started indirectly and cannot reap: daemons a bus started on demand (the
/// accessibility bus launcher reparents itself and its own dbus-daemon away from our children).
enum StrayProcesses {
    /// IDs of running processes, other than this one and its own children (which `ChildProcess`
    /// stops and reaps), whose environment or command line contains `marker` (a private temporary
    /// folder only this run's children know).
    static func find(marking marker: String) -> [pid_t] {
        let me = getpid()
        return FileSystem.names(in: "/proc").compactMap { Int32($0) }.filter { pid in
            guard pid != me, isRunning(pid), parent(of: pid) != me else { return false }
            for file in ["environ", "cmdline"] {
                if let bytes = readBytes("/proc/\(pid)/\(file)"), String(decoding: bytes, as: UTF8.self).contains(marker) { return true }
            }
            return false
        }
    }

    /// Stops the processes marked with `marker` by their IDs, the deepest first (so that each
    /// one's parent is still there to reap it): SIGTERM, then SIGKILL for those still running
    /// after `grace` seconds. Returns their command names, and those of any that survived.
    static func stop(marking marker: String, grace: Double = 2) -> (stopped: [String], survivors: [String]) {
        var names: [String] = []
        for _ in 0..<8 {
            let found = find(marking: marker)
            guard !found.isEmpty else { break }
            let parents = Set(found.compactMap(parent(of:)))
            let leaves = found.filter { !parents.contains($0) }
            names += leaves.map(name(of:))
            for pid in leaves { kill(pid, SIGTERM) }
            let deadline = Clock.now() + grace
            var left = leaves
            while !left.isEmpty && Clock.now() < deadline {
                Sleep.seconds(0.02)
                left = left.filter { isRunning($0) }
            }
            for pid in left { kill(pid, SIGKILL) }
            Sleep.seconds(0.05)
        }
        return (names, find(marking: marker).map(name(of:)))
    }

    /// The parent process ID of `pid`, or nil when it is gone.
    static func parent(of pid: pid_t) -> pid_t? {
        guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// The command name of `pid` ("?" when it is gone).
    static func name(of pid: pid_t) -> String {
        (readFile("/proc/\(pid)/comm") ?? "?").trimmed
    }

    /// Whether `pid` exists and is not a zombie.
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let text = readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(after: close)...].split(separator: " ").first != "Z"
    }
}
