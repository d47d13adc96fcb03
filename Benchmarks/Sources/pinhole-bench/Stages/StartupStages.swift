import Glibc
import PinholeTestSupport

extension Stage {
    /// Process start-up, whole process from spawn to reaped exit: `pinhole --version` and a JPEG
    /// `pinhole snap` from the test camera against `fswebcam --version` and `ffmpeg -version`.
    static var startup: Stage {
        Stage(name: "start-up", sizes: [FrameSize(name: "—", width: 640, height: 480)]) { bench, _ in
            try StartupBenchmark(bench: bench).rows()
        }
    }
}

/// What starting a process costs: the dynamic loader mapping and relocating every linked
/// library, the runtime's own set-up, then the command. FFmpeg and libheif are opened only by
/// commands that use them, so neither of ours below maps them.
struct StartupBenchmark {
    /// The bench run.
    let bench: Bench

    /// A command line timed whole, and what the table calls it.
    struct Contender {
        /// The table's name for it.
        let label: String
        /// The command line.
        let arguments: [String]
        /// The exit status of a good run (fswebcam ends `--version` with 255).
        var status: Int32 = 0
    }

    /// A problem that stops the stage.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        let description: String
    }

    /// Times every contender `bench.runs` times, interleaved run by run after two untimed runs
    /// each, and returns one row per (ours, peer) pair.
    func rows() throws -> [Row] {
        guard let pinhole = RecordingBenchmark.pinholeBinary() else {
            throw Failure(description: "no `pinhole` next to this program (scripts/bench builds both)")
        }
        bench.progress("start-up: pinhole --version and snap against fswebcam --version and ffmpeg -version")
        let photo = bench.scratch + "/startup-snap.jpg"
        let version = Contender(label: "pinhole --version", arguments: [pinhole, "--version"])
        let snap = Contender(label: "pinhole snap --device test --size 640x480 -o FILE (JPEG)",
                             arguments: [pinhole, "snap", "--device", "test", "--size", "640x480", "-o", photo])
        let fswebcam = Contender(label: "fswebcam --version", arguments: ["fswebcam", "--version"], status: 255)
        let ffmpeg = Contender(label: "ffmpeg -version", arguments: ["ffmpeg", "-version"])
        let contenders = [version, snap, fswebcam, ffmpeg]
        var wall: [[Double]] = contenders.map { _ in [] }
        var problems: [String?] = contenders.map { _ in nil }
        for run in -2..<bench.runs {
            for (index, contender) in contenders.enumerated() {
                unlink(photo)
                let result = Subprocess.run(contender.arguments, scratch: bench.scratch)
                if result.status != contender.status {
                    problems[index] = "exit \(result.status): \(result.errors.split(separator: "\n").first ?? "")"
                }
                if index == 1, result.status == 0, access(photo, R_OK) != 0 { problems[index] = "no photo written" }
                guard run >= 0 else { continue }
                wall[index].append(result.wallSeconds * 1000)
            }
        }
        let objects = contenders.map { StartupBenchmark.loadedObjects($0.arguments[0]) }
        func describe(_ index: Int) -> String {
            "\(contenders[index].label): \(objects[index].map(String.init) ?? "?") shared objects at start"
        }
        func row(_ ours: Int, _ peer: Int) -> Row {
            let failed = [problems[ours], problems[peer]].compactMap { $0 }
            let check = failed.isEmpty ? Check(text: "exit as expected", failed: false) : Check(text: "FAILED: " + failed.joined(separator: "; "), failed: true)
            return Row(stage: "start-up: " + contenders[ours].label, size: "—", oursMs: Sample.median(wall[ours]), memcpyMs: nil,
                       peer: contenders[peer].label + ", whole process", peerMs: Sample.median(wall[peer]), check: check,
                       note: "spawn to reaped exit (wait4), median of \(bench.runs) interleaved after 2 untimed; "
                           + describe(ours) + "; " + describe(peer)
                           + (ours == 1 ? "; snap streams the test camera, takes one photo, encodes and fsyncs it" : ""))
        }
        return [row(0, 2), row(0, 3), row(1, 2), row(1, 3)]
    }

    /// How many shared objects the dynamic loader maps for `program` before `main` (what `ldd`
    /// lists: `LD_TRACE_LOADED_OBJECTS`), or nil when that cannot be run.
    static func loadedObjects(_ program: String) -> Int? {
        let path = program.contains("/") ? program : Subprocess.run(["sh", "-c", "command -v \(program)"], captureOutput: true)
            .output.split(separator: "\n").first.map(String.init) ?? program
        let listed = Subprocess.run(["env", "LD_TRACE_LOADED_OBJECTS=1", path], captureOutput: true)
        guard listed.status == 0 else { return nil }
        return listed.output.split(separator: "\n").filter { $0.contains(".so") }.count
    }
}
