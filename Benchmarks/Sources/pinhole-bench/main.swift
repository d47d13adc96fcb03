// pinhole-bench: times Pinhole's media stages against the tools people use instead, on the same
// input in the same run, and prints one table. See `Stage` for how to add a stage.
import Glibc
import Media
import PinholeTestSupport

/// The command-line options.
struct Options {
    /// Timed runs per contender; the table shows the median.
    var runs = 15
    /// Fewer runs and 1080p only, for a CI smoke run.
    var quick = false
    /// Only stages whose name contains this (case-insensitive).
    var only: String?
    /// Print the table as Markdown (for docs/benchmarks.md).
    var markdown = false
    /// List the stage names and exit.
    var list = false
    /// Files the library import stage imports (nil: 1 000, or 50 with `--quick`).
    var libraryFiles: Int?
    /// Seconds the recording stage records on each side (nil: 60, or 10 with `--quick`).
    var recordSeconds: Int?
    /// Seconds the camera app stage measures the preview's CPU on each side (nil: 30, or 10 with `--quick`).
    var appSeconds: Int?
    /// An older `pinhole-camera` (or the build folder holding one) that the camera app and gallery
    /// stages measure too, launch by launch interleaved with the current one.
    var before: String?

    /// The usage text.
    static let usage = """
        usage: pinhole-bench [--runs N] [--quick] [--only STAGE-SUBSTRING] [--library-files N] [--record-seconds N] [--app-seconds N]
                             [--before PINHOLE-CAMERA] [--markdown] [--list]
          --runs N        timed runs per contender, the median is shown (default 15; 5 with --quick)
          --quick         fewer runs and 1080p only, for CI smoke runs
          --only TEXT     only stages whose name contains TEXT, ignoring case ("->" matches "→")
          --library-files N
                          12 MP JPEGs the library import stage imports (default 1000; 50 with --quick);
                          it needs about 6 MB free in /tmp a file
          --record-seconds N
                          seconds the recording stage records with pinhole and with ffmpeg, each
                          (default 60; 10 with --quick); it runs the `pinhole` built next to this
                          program (scripts/bench builds both) and needs about 260 MB free in /tmp
          --app-seconds N seconds the camera app stage measures the preview's CPU, the app's and each
                          GStreamer peer's (default 30; 10 with --quick); it runs the `pinhole-camera`
                          built next to this program under an Xvfb and a session bus of its own
          --before PATH   an older build's pinhole-camera (or its build folder, e.g. another
                          checkout's .build/release): the camera app and gallery stages run it too,
                          interleaved launch by launch with the current one, and add its rows
                          (start, preview CPU, gallery open and scroll) marked "before"; its
                          source tree above it gives its schema and icons
          --markdown      print the table as Markdown
          --list          list the stages and exit
        """

    /// A problem with the command line.
    struct Invalid: Error, CustomStringConvertible {
        /// What is wrong.
        let description: String
    }

    /// Parses `arguments` (without the program name); nil for `--help`.
    static func parse(_ arguments: [String]) throws -> Options? {
        var options = Options()
        var runsGiven: Int?
        var rest = arguments[...]
        /// The argument after `flag`.
        func value(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw Invalid(description: "\(flag) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--runs":
                let text = try value(argument)
                guard let runs = Int(text), runs > 0 else { throw Invalid(description: "--runs needs a positive whole number, not '\(text)'") }
                runsGiven = runs
            case "--library-files":
                let text = try value(argument)
                guard let files = Int(text), files > 0 else { throw Invalid(description: "--library-files needs a positive whole number, not '\(text)'") }
                options.libraryFiles = files
            case "--record-seconds":
                let text = try value(argument)
                guard let seconds = Int(text), (1...3600).contains(seconds) else {
                    throw Invalid(description: "--record-seconds needs a whole number from 1 to 3600, not '\(text)'")
                }
                options.recordSeconds = seconds
            case "--app-seconds":
                let text = try value(argument)
                guard let seconds = Int(text), (1...3600).contains(seconds) else {
                    throw Invalid(description: "--app-seconds needs a whole number from 1 to 3600, not '\(text)'")
                }
                options.appSeconds = seconds
            case "--before": options.before = try value(argument)
            case "--quick": options.quick = true
            case "--only": options.only = try value(argument)
            case "--markdown": options.markdown = true
            case "--list": options.list = true
            case "-h", "--help": return nil
            default: throw Invalid(description: "unknown option '\(argument)'")
            }
        }
        options.runs = runsGiven ?? (options.quick ? 5 : 15)
        return options
    }

    /// The settings line of the header.
    var summary: String {
        "median of \(runs) timed runs per contender (memcpy floor: at least 31) after untimed warm-up runs, "
            + "contenders interleaved run by run; " + (quick ? "--quick (1080p only); " : "")
            + Options.build + "; YUV is BT.601 limited range throughout"
    }

    /// How this program was compiled: only a release build's numbers mean anything.
    static var build: String {
        #if DEBUG
        "DEBUG BUILD, numbers are meaningless (build with -c release)"
        #else
        "release build"
        #endif
    }
}

/// Runs the benchmark; returns the exit status.
func main() -> Int32 {
    let options: Options
    do {
        guard let parsed = try Options.parse(Array(CommandLine.arguments.dropFirst())) else {
            print(Options.usage)
            return 0
        }
        options = parsed
    } catch {
        printError("pinhole-bench: \(error)\n\(Options.usage)")
        return 2
    }
    let stages = Stage.all.filter { options.only.map($0.matches) ?? true }
    if options.list {
        for stage in Stage.all { print("\(stage.name)  (\(stage.sizes.map(\.name).joined(separator: ", ")))") }
        return 0
    }
    guard !stages.isEmpty else {
        printError("pinhole-bench: no stage matches '\(options.only ?? "")'; stages: \(Stage.all.map(\.name).joined(separator: ", "))")
        return 2
    }

    FFmpeg.quietLogs()
    // $TMPDIR when set (inside scripts/vm, /tmp is read-only), else /tmp.
    let temporary = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array("\(temporary)/pinhole-bench-XXXXXX".utf8CString)
    guard let directory = mkdtemp(&template) else {
        printError("pinhole-bench: cannot make a scratch directory in \(temporary)")
        return 1
    }
    let scratch = String(cString: directory)
    defer { removeDirectory(scratch) }
    removeOnInterrupt(scratch)

    let machine = Machine.current()
    let loadBefore = Machine.load()
    let start = Clock.now()
    let bench = Bench(options: options, machine: machine, scratch: scratch)
    var rows: [Row] = []
    var failures: [String] = []
    for stage in stages {
        for size in options.quick ? Array(stage.sizes.prefix(1)) : stage.sizes {
            do {
                rows += try stage.measure(bench, size)
            } catch {
                failures.append("\(stage.name) at \(size.name): \(error)")
                rows.append(Row(stage: stage.name, size: size.name, oursMs: nil, memcpyMs: nil, peer: "—", peerMs: nil,
                                check: Check(text: "FAILED", failed: true), note: "\(error)"))
            }
        }
    }

    let loadAfter = Machine.load()
    let stolen = loadAfter.stolenSeconds - loadBefore.stolenSeconds
    let load = "1-minute load average \(loadBefore.average) before, \(loadAfter.average) after; "
        + "\(Format.fixed(stolen, 1)) CPU-seconds stolen by the hypervisor during the \(Format.fixed(Clock.now() - start, 0)) s run"
    let title = "Pinhole media benchmark"
    print(options.markdown ? "### \(title)\n" : "\(title)")
    for line in machine.lines(markdown: options.markdown, settings: options.summary, load: load) { print(line) }
    print()
    print(Table.render(rows, markdown: options.markdown))
    print()
    print("""
        Peer/ours: peer time ÷ our time; above 1× we are faster, below 1× slower. Ours/memcpy: our time ÷ a memcpy of \
        a BGRA frame of the same size, both cold; it can be below 1× because a YUYV or I420 source is a half or \
        three-eighths of a BGRA frame. Rows are cold-cache (buffers rotated) except the GStreamer rows, which are \
        warm on both sides. Check: mean absolute difference in 8-bit levels between our output and the peer's on the \
        same input (JPEG encode: each output decoded and compared with its own input); more than \
        \(Format.fixed(Check.limit, 0)) fails the run.
        """)
    let badChecks = rows.filter(\.check.failed).map { "\($0.stage) at \($0.size) vs \($0.peer): \($0.check.text)" }
    for problem in failures + badChecks { printError("pinhole-bench: FAILED \(problem)") }
    return failures.isEmpty && badChecks.isEmpty ? 0 : 1
}

/// The signals that end a run early and should not leave the scratch directory (gigabytes
/// during the library stages) behind.
let interruptions = [SIGINT, SIGTERM, SIGHUP]

/// Exits when one of `interruptions` arrives and has `scratch` removed once the process is
/// gone: the signals are blocked in every thread (threads made later inherit the mask;
/// `Subprocess` unblocks them in its tools) and one thread waits for them with `sigwait`. It
/// cannot delete the folder itself while a stage's threads may still be writing into it, so it
/// starts `rm -rf` in a shell that first waits for this process to end (5 s at most).
func removeOnInterrupt(_ scratch: String) {
    var signals = sigset_t()
    sigemptyset(&signals)
    for signal in interruptions { sigaddset(&signals, signal) }
    pthread_sigmask(SIG_BLOCK, &signals, nil)
    var thread = pthread_t()
    pthread_create(&thread, nil, { argument in
        guard let argument else { return nil }
        let scratch = String(cString: argument.assumingMemoryBound(to: CChar.self))
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in interruptions { sigaddset(&signals, signal) }
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        let script = #"i=0; while kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done; rm -rf -- "$2""#
        let started = Subprocess.startDetached(["sh", "-c", script, "sh", String(getpid()), scratch])
        printError("pinhole-bench: stopped by signal \(received); " + (started ? "removing \(scratch)" : "could not remove \(scratch)"))
        _exit(128 + received)
    }, strdup(scratch))
}

/// Deletes `path` and everything below it (the library stage leaves folders in the scratch directory).
func removeDirectory(_ path: String) {
    for name in FileSystem.names(in: path) {
        let child = "\(path)/\(name)"
        var info = stat()
        if lstat(child, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { removeDirectory(child) } else { unlink(child) }
    }
    rmdir(path)
}

exit(main())
