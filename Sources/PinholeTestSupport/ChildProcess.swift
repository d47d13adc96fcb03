import Glibc
import Synchronization

/// A program the tests or the bench start: the one place that calls `posix_spawn`. The child
/// starts as from a shell (no signal blocked, every signal's default action: the test runner's and
/// the bench's threads block signals, which children would otherwise inherit, and GLib programs
/// such as the accessibility bus launcher then never hear of their own children), with standard
/// input from /dev/null, standard output where `Output` says and standard error in a file; the
/// descriptors this process keeps (a pipe's read end) are close-on-exec. It is watched while it
/// runs (its output, its CPU time, its memory) and stopped and reaped by `stop` or when the value
/// dies.
///
/// Its peak memory is its own high-water mark, `VmHWM` of /proc/PID/status, not `ru_maxrss`: a
/// child started by `posix_spawn` runs on its parent's address space until it execs (vfork), and
/// at exec the kernel keeps that address space's high-water mark in the child's `ru_maxrss`, so
/// every child of a large process reported the parent's peak (the recording benchmark printed
/// 1603.1 MiB for both `pinhole record` and ffmpeg). `VmHWM` belongs to the address space the exec
/// made, but it is gone once the child has exited (a zombie's status has no Vm lines), so it is
/// read while the child runs: every 10 ms while a `wait` blocks, at each look of `wait(timeout:)`,
/// `reap` and `memorySoFar`, and once more just before the reaping `wait4`. The high-water mark
/// loses nothing between two reads; only growth in the last interval before the exit can be
/// missed. That is closed by `ru_maxrss` when it is provably not inherited: when it exceeds
/// this process's own `VmHWM` read just after the spawn (plus the kernel counters' per-CPU
/// rounding), it can only be the child's own mark, and it is taken too (`Exit.peakIncludesExit`).
///
/// What is counted: the child process alone, all its threads (they share its memory), resident
/// pages of every kind (anonymous, file-backed, shared memory); not the processes it starts —
/// except through `ru_maxrss`, which is the largest of the child and the descendants it waited for
/// (the largest one process, never a sum).
public final class ChildProcess {
    /// How the child ended, from `wait4`.
    public struct Exit: Sendable {
        /// The exit status (128 + signal number when a signal killed it).
        public let status: Int32
        /// User plus system CPU seconds of the child and its threads.
        public let cpuSeconds: Double
        /// Seconds from spawn to the exit (when a blocking `wait` saw it, or when it was reaped).
        public let wallSeconds: Double
        /// The child's own peak resident memory in bytes: the highest `VmHWM` read while it ran,
        /// and its `ru_maxrss` when that is provably not inherited (`peakIncludesExit`), whichever
        /// is higher; 0 when neither could be read (a child that exited before its first read and
        /// whose `ru_maxrss` is no larger than what it could have inherited). See the type's notes.
        public let peakResidentBytes: Int
        /// Whether `ru_maxrss` was found larger than anything the child could have inherited and
        /// so taken into `peakResidentBytes`: the peak then covers the child's last moments too,
        /// which the reads while it ran may miss. (The two differ by the kernel counters'
        /// rounding, a few hundred KiB, when both saw the same peak.)
        public let peakIncludesExit: Bool
        /// `ru_maxrss` from `wait4` in bytes, as the kernel gave it: the largest of the child's
        /// own mark, its reaped descendants' and the high-water mark of this process's address
        /// space at the spawn (the vfork). Kept to show the difference, not as a measurement.
        public let waitMaxResidentBytes: Int
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
    /// The highest `VmHWM` read from the child so far, in bytes (0 before the first read).
    private var sampledPeak = 0
    /// This process's `VmHWM` read just after the spawn returned (after the child's exec): no
    /// less than the mark the kernel copied into the child's `ru_maxrss` at exec.
    private let inheritedBound: Int

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
        inheritedBound = ProcessFacts.memory(getpid())?.highWater ?? Int.max
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

    /// The running child's resident memory now (`VmRSS`) and its own peak so far (the highest
    /// `VmHWM` read), in bytes; nil once it has exited.
    public func memorySoFar() -> (resident: Int, peak: Int)? {
        guard exit == nil, let memory = sampleMemory() else { return nil }
        return (memory.resident, sampledPeak)
    }

    /// Reads the child's `VmRSS` and `VmHWM` and keeps the mark; nil when it has exited. Called
    /// only before the child is reaped, so the PID is still the child's (a zombie's is kept).
    @discardableResult
    private func sampleMemory() -> (resident: Int, highWater: Int)? {
        guard let memory = ProcessFacts.memory(pid) else { return nil }
        sampledPeak = max(sampledPeak, memory.highWater)
        return memory
    }

    /// How far `ru_maxrss` may exceed `inheritedBound` and still be inherited: the kernel counts
    /// resident pages in per-CPU batches (of max(32, 2 × CPUs) pages, for three counters), so two
    /// reads of one mark may differ by that much; at least 4 MiB.
    private static let roundingSlack: Int = {
        let cpus = max(1, sysconf(Int32(_SC_NPROCESSORS_CONF)))
        return max(4 << 20, 3 * cpus * max(32, 2 * cpus) * sysconf(Int32(_SC_PAGESIZE)))
    }()

    /// Reaps the child if it has exited (`block`: waiting for it); its `Exit` once it has.
    @discardableResult
    public func reap(block: Bool = false) -> Exit? {
        reap(block: block, exitedAt: nil)
    }

    /// `reap`, with the wall time taken at `exitedAt` (CLOCK_MONOTONIC nanoseconds) when known.
    private func reap(block: Bool, exitedAt: Int64?) -> Exit? {
        if let exit { return exit }
        // The last read of the child's own mark, while its PID cannot yet be reused.
        sampleMemory()
        var status: Int32 = 0
        var usage = rusage()
        var reaped = wait4(pid, &status, block ? 0 : WNOHANG, &usage)
        while reaped < 0 && errno == EINTR { reaped = wait4(pid, &status, block ? 0 : WNOHANG, &usage) }
        guard reaped == pid else { return nil }
        let ended = exitedAt ?? MonotonicClock.nanoseconds()
        let signal = status & 0x7F
        let waitMaximum = usage.ru_maxrss * 1024
        let ownExit = inheritedBound < Int.max - ChildProcess.roundingSlack && waitMaximum > inheritedBound + ChildProcess.roundingSlack
        let exit = Exit(status: signal == 0 ? (status >> 8) & 0xFF : 128 + signal, cpuSeconds: MonotonicClock.cpuSeconds(usage),
                        wallSeconds: Double(ended - spawnedAt) / 1e9, peakResidentBytes: ownExit ? max(waitMaximum, sampledPeak) : sampledPeak,
                        peakIncludesExit: ownExit, waitMaxResidentBytes: waitMaximum)
        self.exit = exit
        return exit
    }

    /// Waits for the child's exit on a thread of its own (`waitid` with `WNOWAIT`, which leaves
    /// the child unreaped) while this thread reads its memory every 10 ms; then reaps it. The
    /// exit's wall time is the moment `waitid` returned.
    private func waitWhileSampling() -> Exit? {
        final class Watch: Sendable {
            /// The child.
            let pid: pid_t
            /// CLOCK_MONOTONIC nanoseconds when `waitid` returned; 0 before.
            let exitedAt = Atomic<Int64>(0)
            /// A watch on `pid`.
            init(pid: pid_t) { self.pid = pid }
        }
        let watch = Watch(pid: pid)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(watch).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            let watch = Unmanaged<Watch>.fromOpaque(context!).takeRetainedValue()
            var info = siginfo_t()
            while waitid(P_PID, id_t(watch.pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            watch.exitedAt.store(MonotonicClock.nanoseconds(), ordering: .releasing)
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Watch>.fromOpaque(context).release()
            return reap(block: true, exitedAt: nil)
        }
        while watch.exitedAt.load(ordering: .acquiring) == 0 {
            sampleMemory()
            Sleep.seconds(0.01)
        }
        pthread_join(thread, nil)
        return reap(block: true, exitedAt: watch.exitedAt.load(ordering: .acquiring))
    }

    /// Waits up to `timeout` seconds for the child to exit by itself (nil: as long as it takes,
    /// with its exit's wall time exact; see `waitWhileSampling`).
    @discardableResult
    public func wait(timeout: Double? = nil) -> Exit? {
        guard let timeout else { return waitWhileSampling() }
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
