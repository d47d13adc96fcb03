import Glibc
import Synchronization

/// Runs tools that end by themselves (`ChildProcess` underneath) and hands back what they said and
/// their own CPU usage from `wait4`: no shell, no `time` binary, no Foundation `Process` (which
/// needs a run-loop wake-up socket that fails inside the test VM and then hangs).
public enum Subprocess {
    /// How one run of a tool went.
    public struct Result: Sendable {
        /// The exit status (128 + signal number when a signal killed it; 127 when it did not start).
        public let status: Int32
        /// Wall seconds from spawn to reaped exit.
        public let wallSeconds: Double
        /// User plus system CPU seconds of the child and its threads.
        public let cpuSeconds: Double
        /// The child's own peak resident memory in bytes (`ChildProcess.Exit.peakResidentBytes`:
        /// its `VmHWM`, not the `ru_maxrss` it inherits from this process; 0 when it did not start).
        public let peakResidentBytes: Int
        /// What the tool wrote to standard output, when it was captured.
        public let output: String
        /// What the tool wrote to standard error.
        public let errors: String
    }

    /// Numbers the scratch files of runs in flight apart (tests run tools from many threads).
    private static let runs = Atomic<Int>(0)

    /// Runs `arguments` (the first is looked up in PATH) with `environment` (nil: this process's)
    /// and waits for it; standard output goes to `/dev/null` unless `captureOutput`, standard
    /// error to a file in `scratch` so failures can be reported.
    public static func run(_ arguments: [String], environment: [String]? = nil, scratch: String = "/tmp", captureOutput: Bool = false) -> Result {
        let number = runs.add(1, ordering: .relaxed).newValue
        let errorPath = scratch + "/stderr-\(getpid())-\(number).txt"
        let outputPath = scratch + "/stdout-\(getpid())-\(number).txt"
        defer { unlink(errorPath); unlink(outputPath) }
        let child: ChildProcess
        do {
            child = try ChildProcess(arguments, environment: environment, errorPath: errorPath, standardOutput: captureOutput ? .file(outputPath) : .null)
        } catch {
            return Result(status: 127, wallSeconds: 0, cpuSeconds: 0, peakResidentBytes: 0, output: "", errors: "\(error)")
        }
        let exit = child.wait()!
        return Result(status: exit.status, wallSeconds: exit.wallSeconds, cpuSeconds: exit.cpuSeconds, peakResidentBytes: exit.peakResidentBytes,
                      output: captureOutput ? child.writtenOutput : "", errors: child.errors)
    }

    /// Starts `arguments` in a process group of its own (a second Ctrl-C does not reach it) and
    /// does not wait for it; returns false when it could not be started.
    public static func startDetached(_ arguments: [String]) -> Bool {
        guard let child = try? ChildProcess(arguments, errorPath: "/dev/null", ownGroup: true) else { return false }
        child.detach()
        return true
    }

    /// The standard output of a tool that exited with status 0, or nil.
    public static func output(_ arguments: [String]) -> String? {
        let result = run(arguments, captureOutput: true)
        return result.status == 0 ? result.output : nil
    }

    /// The full path of `tool` in PATH (then /usr/bin, /usr/local/bin), or nil when it is not installed.
    public static func find(_ tool: String) -> String? {
        guard !tool.contains("/") else { return access(tool, X_OK) == 0 ? tool : nil }
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"] where !directory.isEmpty {
            let candidate = "\(directory)/\(tool)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}

/// Processes started indirectly that nobody here can reap: daemons a bus started on demand (the
/// accessibility bus launcher reparents itself and its own dbus-daemon away from our children).
public enum StrayProcesses {
    /// IDs of running processes, other than this one and its own children (which `ChildProcess`
    /// stops and reaps), whose environment or command line contains `marker` (a private temporary
    /// folder only this run's children know).
    public static func find(marking marker: String) -> [pid_t] {
        let me = getpid()
        return folderNames("/proc").compactMap { Int32($0) }.filter { pid in
            guard pid != me, ProcessFacts.isRunning(pid), ProcessFacts.parent(of: pid) != me else { return false }
            for file in ["environ", "cmdline"] {
                if let bytes = readBytes("/proc/\(pid)/\(file)"), String(decoding: bytes, as: UTF8.self).contains(marker) { return true }
            }
            return false
        }
    }

    /// Stops the processes marked with `marker` by their IDs, the deepest first (so that each
    /// one's parent is still there to reap it): SIGTERM, then SIGKILL for those still running
    /// after `grace` seconds. Returns their command names, and those of any that survived.
    @discardableResult
    public static func stop(marking marker: String, grace: Double = 2) -> (stopped: [String], survivors: [String]) {
        var names: [String] = []
        for _ in 0..<8 {
            let found = find(marking: marker)
            guard !found.isEmpty else { break }
            let parents = Set(found.compactMap(ProcessFacts.parent(of:)))
            let leaves = found.filter { !parents.contains($0) }
            names += leaves.map(ProcessFacts.name(of:))
            for pid in leaves { kill(pid, SIGTERM) }
            let deadline = MonotonicClock.seconds() + grace
            var left = leaves
            while !left.isEmpty && MonotonicClock.seconds() < deadline {
                Sleep.seconds(0.02)
                left = left.filter { ProcessFacts.isRunning($0) }
            }
            for pid in left { kill(pid, SIGKILL) }
            Sleep.seconds(0.05)
        }
        return (names, find(marking: marker).map(ProcessFacts.name(of:)))
    }
}
