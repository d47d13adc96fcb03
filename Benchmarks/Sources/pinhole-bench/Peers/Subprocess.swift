import Glibc

/// Runs external tools with `posix_spawnp` and reaps them with `wait4`, which also hands back the
/// child's own CPU usage: no shell, no `time` binary.
enum Subprocess {
    /// How one run of a tool went.
    struct Result {
        /// The exit status (128 + signal number when a signal killed it).
        let status: Int32
        /// Wall seconds from spawn to reaped exit.
        let wallSeconds: Double
        /// User plus system CPU seconds of the child and its threads.
        let cpuSeconds: Double
        /// The child's peak resident memory in bytes (`ru_maxrss`; 0 when it did not start).
        let peakResidentBytes: Int
        /// What the tool wrote to standard output, when it was captured.
        let output: String
        /// What the tool wrote to standard error.
        let errors: String
    }

    /// Runs `arguments` (the first is looked up in PATH); standard output goes to `/dev/null`
    /// unless `captureOutput`, standard error to a file in `scratch` so failures can be reported.
    static func run(_ arguments: [String], scratch: String = "/tmp", captureOutput: Bool = false) -> Result {
        let errorPath = scratch + "/stderr-\(getpid()).txt"
        let outputPath = scratch + "/stdout-\(getpid()).txt"
        defer { unlink(errorPath); unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, captureOutput ? outputPath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = spawnAttributes(newProcessGroup: false)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }

        var pid: pid_t = 0
        let start = Clock.now()
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard spawned == 0 else {
            return Result(status: 127, wallSeconds: 0, cpuSeconds: 0, peakResidentBytes: 0, output: "",
                          errors: "could not start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Clock.now() - start
        let signal = status & 0x7F
        let exitStatus = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
        return Result(status: exitStatus, wallSeconds: wall, cpuSeconds: Clock.seconds(usage), peakResidentBytes: usage.ru_maxrss * 1024,
                      output: captureOutput ? readFile(outputPath) ?? "" : "",
                      errors: readFile(errorPath) ?? "")
    }

    /// Starts `arguments` in a process group of its own (a second Ctrl-C does not reach it) and
    /// does not wait for it; returns false when it could not be started.
    static func startDetached(_ arguments: [String]) -> Bool {
        var attributes = spawnAttributes(newProcessGroup: true)
        defer { posix_spawnattr_destroy(&attributes) }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        return posix_spawnp(&pid, arguments[0], nil, &attributes, &argv, environ) == 0
    }

    /// Spawn attributes with an empty signal mask: the bench blocks SIGINT and friends in its own
    /// threads (see `removeOnInterrupt`), a tool gets the default, so Ctrl-C still stops it. The
    /// caller destroys them.
    static func spawnAttributes(newProcessGroup: Bool) -> posix_spawnattr_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        if newProcessGroup { posix_spawnattr_setpgroup(&attributes, 0) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | (newProcessGroup ? POSIX_SPAWN_SETPGROUP : 0)))
        return attributes
    }

    /// The standard output of a tool that exited with status 0, or nil.
    static func output(_ arguments: [String]) -> String? {
        let result = run(arguments, captureOutput: true)
        return result.status == 0 ? result.output : nil
    }

    /// The full path of `tool` in PATH, or nil when it is not installed.
    static func find(_ tool: String) -> String? {
        guard let path = getenv("PATH").map({ String(cString: $0) }) else { return nil }
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(tool)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
