import Capture
import Glibc
import Media
import PinholeTestSupport

/// The camera app stage; `--only app` runs it.
extension Stage {
    /// The GTK camera app `pinhole-camera` (the release build next to this program) on the test
    /// camera, under a display and session bus of its own: start to the first camera frame on
    /// screen against a minimal GTK 4 program (the toolkit's floor), the preview's CPU at 1080p30
    /// against GStreamer drawing the same size and rate (gtksink, ximagesink), and shutter press
    /// to photo in the library against the library's own shutter, in process.
    static var cameraApp: Stage {
        Stage(name: "camera app", sizes: [.hd1080]) { bench, _ in
            try AppBenchmark(bench: bench).rows()
        }
    }
}

/// The camera app measurement: one private headless session (Xvfb, dbus-daemon) for all of it.
struct AppBenchmark {
    /// The bench (options, scratch directory).
    let bench: Bench

    /// The app's GApplication ID, for `gapplication action`.
    static let appID = "io.github.pinhole.Camera"
    /// The stream: the test camera's 1080p30 YUYV, chosen through the app's video-size setting.
    static let size = FrameSize.hd1080
    /// Frames per second of the camera and of the GStreamer peers.
    static let fps = 30
    /// The prefix of the app's (and the floor's) report lines on standard error.
    static let report = "pinhole-bench: "

    /// Launches of the app and of the floor for the start-up row (interleaved).
    var launches: Int { bench.options.quick ? 3 : 10 }
    /// Shutter presses of the photo row.
    var presses: Int { bench.options.quick ? 3 : 5 }
    /// Seconds the preview CPU is measured on each side: `--app-seconds`, else 30 (10 with `--quick`).
    var seconds: Int { bench.appSeconds }

    /// Measures everything and returns the rows.
    func rows() throws -> [Row] {
        guard let app = AppBenchmark.sibling("pinhole-camera") else {
            throw CaptureBenchError(description: "no `pinhole-camera` next to this program: build it with "
                                    + "`swift build -c release --product pinhole-camera` (scripts/bench does)")
        }
        guard let tree = AppBenchmark.sourceTree() else {
            throw CaptureBenchError(description: "cannot find the source tree (data/ and \(AppBenchmark.peers)/gtk4-floor.c): run from the repository's root")
        }
        for tool in ["Xvfb", "dbus-daemon", "glib-compile-schemas", "gapplication", "cc", "pkg-config"] where Subprocess.find(tool) == nil {
            throw CaptureBenchError(description: "\(tool) is not installed (scripts/setup --bench)")
        }
        let folder = bench.scratch + "/app"
        mkdir(folder, 0o700)
        defer { removeDirectory(folder) }

        bench.progress("camera app: compiling the GTK 4 floor program")
        let floor = try AppBenchmark.compileFloor(source: tree + "/" + AppBenchmark.peers + "/gtk4-floor.c", into: folder)
        bench.progress("camera app: starting Xvfb and a session bus")
        let session = try AppBinary.session(in: folder, tree: tree)
        defer {
            let (strays, survivors) = session.stop()
            if !strays.isEmpty { bench.progress("camera app: stopped what the bus started: \(strays.joined(separator: ", "))") }
            if !survivors.isEmpty { printError("pinhole-bench: camera app: could not stop \(survivors.joined(separator: ", "))") }
        }

        let apps = [AppBinary.current(app, session: session)] + (try AppBinary.before(bench.options.before, session: session).map { [$0] } ?? [])
        var rows: [Row] = []
        rows += try startRows(apps: apps, floor: floor, session: session)
        rows += try previewRows(apps: apps, session: session)
        rows.append(try shutterRow(app: app, session: session))
        rows.append(try returnRow(app: app, session: session))
        return rows
    }

    // MARK: Start to first frame

    /// Median time from spawn to the first frame on screen, each app (the current one, and
    /// `--before`'s) against the floor, interleaved launch by launch after one untimed launch of
    /// each (caches, the accessibility bus started on demand by the first GTK program).
    func startRows(apps: [AppBinary], floor: String, session: HeadlessSession) throws -> [Row] {
        var appMs = apps.map { _ in [Double]() }, floorMs: [Double] = []
        var appExits = apps.map { _ in [Int32]() }
        for round in 0...launches {
            bench.progress("camera app: start to first frame, launch \(round) of \(launches)\(round == 0 ? " (untimed)" : "")")
            for (index, app) in apps.enumerated() {
                let ours = try firstFrame([app.path], environment: app.environment, session: session, name: "start-app\(index)-\(round)")
                if round > 0 {
                    appMs[index].append(ours.ms)
                    appExits[index].append(ours.status)
                }
            }
            let theirs = try firstFrame([floor], environment: session.environment, session: session, name: "start-floor-\(round)")
            if round > 0 { floorMs.append(theirs.ms) }
        }
        let floorMedian = Sample.median(floorMs)
        return apps.indices.map { index in
            let app = Sample.median(appMs[index])
            let difference = app - floorMedian
            let cleanQuits = appExits[index].filter { $0 == 0 }.count
            let aims = "aim ≤ 500 ms: \(app <= 500 ? "met" : "not met"); aim ≤ floor + 150 ms: \(difference <= 150 ? "met" : "not met")"
            let others = apps.indices.filter { $0 != index }.map { other in
                "\(apps[other].isBefore ? "before" : "current") \(Format.ms(Sample.median(appMs[other]))) ms (\(range(appMs[other])) ms)"
            }
            return Row(stage: "app\(apps[index].mark): start → first camera frame on screen", size: AppBenchmark.size.name, oursMs: app, memcpyMs: nil,
                       peer: "GTK 4 floor (C): GtkApplication, 960×720 window, GtkPicture of a 1920×1080 GdkMemoryTexture", peerMs: floorMedian,
                       check: Check(text: "app − floor \(difference >= 0 ? "+" : "")\(Format.ms(difference)) ms; "
                                        + "\(cleanQuits)/\(appExits[index].count) clean quits on SIGTERM", failed: false),
                       note: "median of \(appMs[index].count) launches each, interleaved\(apps.count > 1 ? " (current, before, floor)" : ""), after one "
                        + "untimed launch of each; spawn → the `first-frame` "
                        + "line's CLOCK_MONOTONIC time (app: the frame clock's after-paint of the first frame that painted a camera frame in the visible "
                        + "preview, PINHOLE_BENCH_REPORT=1; floor: the frame clock's first after-paint with the picture mapped); "
                        + "app \(range(appMs[index])) ms, floor \(range(floorMs)) ms; \(aims); the app opens the test camera (front, YUYV 1920×1080 at 30 fps) "
                        + "and its photo library first; both under Xvfb with GSK_RENDERER=cairo, the accessibility bus already running; "
                        + apps[index].origin + (others.isEmpty ? "" : "; in the same launches: " + others.joined(separator: ", ")))
        }
    }

    /// One launch of `arguments` with `environment` under `session`: the time from spawn to its `first-frame` line,
    /// then SIGTERM; the exit status tells whether it quit cleanly.
    func firstFrame(_ arguments: [String], environment: [String], session: HeadlessSession, name: String) throws -> (ms: Double, status: Int32) {
        let child = try ChildProcess(arguments, environment: environment, errorPath: session.folder + "/\(name).txt")
        guard let line = child.waitForErrorLine(startingWith: AppBenchmark.report + "first-frame ", timeout: 30),
              let drawn = line.split(separator: " ").last.flatMap({ Int64($0) }) else {
            let exit = child.stop()
            throw CaptureBenchError(description: "\(LibraryPhotos.name(of: arguments[0])) drew no frame in 30 s (exit \(exit.status)): "
                                    + child.errors.trimmed.suffix(300))
        }
        let exit = child.stop()
        return (Double(drawn - child.spawnedAt) / 1e6, exit.status)
    }

    // MARK: Preview CPU

    /// Each app previewing 1080p30 for `seconds` (the current one, then `--before`'s) against
    /// GStreamer drawing the same size and rate with gtksink (GTK 3) and ximagesink: CPU per second
    /// over the same steady window on each side.
    func previewRows(apps: [AppBinary], session: HeadlessSession) throws -> [Row] {
        let previews = try apps.map { try preview($0, session: session) }
        // Also builds GStreamer's plugin registry in the session's cache folder, before any timed run.
        for sink in ["gtksink", "ximagesink", "fakesink"] {
            let inspect = try ChildProcess(["gst-inspect-1.0", sink], environment: session.environment, errorPath: session.folder + "/inspect-\(sink).txt")
            guard inspect.wait(timeout: 120)?.status == 0 else {
                inspect.stop()
                throw CaptureBenchError(description: "GStreamer has no \(sink) (gstreamer1.0-gtk3, gstreamer1.0-x; scripts/setup --bench)")
            }
        }
        // What each side's frame source costs, apart from drawing: the test camera in this
        // process with no output, and videotestsrc into fakesink (shorter windows).
        let sourceWindow = min(seconds, 10)
        bench.progress("camera app: the frame sources alone (the test camera, videotestsrc ! fakesink), \(sourceWindow) s each")
        let camera = try RecordingBenchmark(bench: bench, size: AppBenchmark.size).cameraCost()
        let testSource = try gstreamerPreview(sink: "fakesink", session: session, window: sourceWindow)
        let sources = "frame sources alone: the test camera \(Format.fixed(camera.cpuMsPerSecond, 1)) ms/s (in this process, no output, YUYV 1080p30), "
            + "`videotestsrc is-live=true ! YUY2 1080p30 caps ! fakesink` \(Format.fixed(testSource.steady.cpuPerSecond * 1000, 1)) ms/s (\(sourceWindow) s window)"

        var rows: [Row] = []
        for sink in ["gtksink", "ximagesink"] {
            bench.progress("camera app: preview CPU, \(seconds) s of gst-launch … ! \(sink)")
            let peer = try gstreamerPreview(sink: sink, session: session)
            for (app, (ours, appCheck, appNote)) in zip(apps, previews) {
                let ratio = peer.steady.cpuPerSecond > 0 ? ours.cpuPerSecond / peer.steady.cpuPerSecond : 0
                let oursDrawing = ours.cpuPerSecond * 1000 - camera.cpuMsPerSecond
                let peerDrawing = (peer.steady.cpuPerSecond - testSource.steady.cpuPerSecond) * 1000
                let aim = sink == "gtksink" ? 0.5 : 1.0
                rows.append(Row(stage: "app\(app.mark): preview 1080p30, CPU ms per s", size: AppBenchmark.size.name, oursMs: ours.cpuPerSecond * 1000, memcpyMs: nil,
                                peer: "gst-launch videotestsrc is-live YUY2 1080p30 ! videoconvert ! \(sink)\(sink == "gtksink" ? " (GTK 3)" : "")",
                                peerMs: peer.steady.cpuPerSecond * 1000,
                                check: Check(text: appCheck + "; \(sink): \(peer.drops)", failed: false),
                                note: "app/\(sink) = \(Format.fixed(ratio, 2))× (aim ≤ \(Format.fixed(aim, 1))×: \(ratio <= aim ? "met" : "not met")); "
                                    + "with each side's frame source taken out \(Format.fixed(oursDrawing, 0)) vs \(Format.fixed(peerDrawing, 0)) ms/s = "
                                    + "\(peerDrawing > 0 ? Format.fixed(oursDrawing / peerDrawing, 2) : "—")×; "
                                    + "CPU ms per second over the same \(seconds) s steady window on each side; " + appNote + "; "
                                    + "\(sink): `\(GStreamerPreview.pipeline(sink: sink, frames: 30 * (seconds + 2)).joined(separator: " "))`, \(peer.summary); "
                                    + sources + "; " + app.origin))
            }
        }
        return rows
    }

    /// One app previewing 1080p30 for `seconds`: its steady CPU, and the check and note of its rows.
    func preview(_ app: AppBinary, session: HeadlessSession) throws -> (SteadyCPU, String, String) {
        bench.progress("camera app: preview CPU, \(seconds) s of the app\(app.mark)")
        let child = try ChildProcess([app.path], environment: app.environment, errorPath: session.folder + "/preview-app\(app.isBefore ? "-before" : "").txt")
        guard child.waitForErrorLine(startingWith: AppBenchmark.report + "first-frame ", timeout: 30) != nil else {
            let exit = child.stop()
            throw CaptureBenchError(description: "the app\(app.mark) drew no frame in 30 s (exit \(exit.status)): \(child.errors.trimmed.suffix(300))")
        }
        let ours = try steadyCPU(child, session: session, label: "the app\(app.mark)")
        let exit = child.stop()
        guard let line = child.waitForErrorLine(startingWith: AppBenchmark.report + "preview ", timeout: 0) else {
            throw CaptureBenchError(description: "the app\(app.mark) printed no preview counts at quit (exit \(exit.status)): \(child.errors.trimmed.suffix(300))")
        }
        let counts = line.split(separator: " ").dropFirst(2).compactMap { Int($0) }
        guard counts.count == 4 else { throw CaptureBenchError(description: "unreadable preview counts: \(line)") }
        // Until the first frame on screen the camera runs while the window is being built, and
        // its frames replace each other in the mailbox: counted apart from the steady preview.
        let early = child.waitForErrorLine(startingWith: AppBenchmark.report + "preview-start ", timeout: 0)
            .map { $0.split(separator: " ").dropFirst(2).compactMap { Int($0) } } ?? []
        guard early.count == 4 else { throw CaptureBenchError(description: "the app\(app.mark) printed no preview counts at its first frame") }
        let (drawn, replaced, fromCamera, dropped) = (counts[0] - early[0], counts[1] - early[1], counts[2] - early[2], counts[3] - early[3])
        let appCheck = "app drew \(drawn) of \(fromCamera + dropped) camera frames after its first frame on screen (\(replaced) replaced before drawn, "
            + "\(dropped) dropped by the output); before it, while the window was built, \(early[1]) replaced, \(early[3]) dropped"
        let appNote = "app: CPU \(Format.fixed(ours.cpu, 2)) s over \(Format.fixed(ours.wall, 1)) s from 1 s after its first frame "
            + "(/proc/PID/stat utime+stime, all threads; \(ours.threadSummary); Xvfb meanwhile \(ours.serverSummary)); "
            + "whole process (wait4) \(Format.fixed(exit.cpuSeconds, 2)) s CPU in \(Format.fixed(exit.wallSeconds, 1)) s including start-up; "
            + "it converts YUYV→I420, scales it to the picture's size on screen and converts it to 24-bit BGR (libyuv, off the main thread), which GTK draws 1:1 (cairo); exit \(exit.status)"
        return (ours, appCheck, appNote)
    }

    /// CPU seconds per second of a running `child` over `seconds`, from 1 s after now; the X
    /// server's over the same window (drawing there is partly its work), and the child's threads'.
    func steadyCPU(_ child: ChildProcess, session: HeadlessSession, label: String, window: Int? = nil) throws -> SteadyCPU {
        Sleep.seconds(1)
        let threads0 = child.threadCPUSoFar()
        guard let cpu0 = child.cpuSecondsSoFar(), let server0 = session.displayServerCPU else {
            throw CaptureBenchError(description: "\(label) ended early: \(child.errors.trimmed.suffix(300))")
        }
        let wall0 = Clock.now()
        Sleep.seconds(Double(window ?? seconds))
        let threads1 = child.threadCPUSoFar()
        guard let cpu1 = child.cpuSecondsSoFar(), let server1 = session.displayServerCPU else {
            throw CaptureBenchError(description: "\(label) ended early: \(child.errors.trimmed.suffix(300))")
        }
        let wall = Clock.now() - wall0
        let threads = threads1.map { ($0.key, $0.value - (threads0[$0.key] ?? 0)) }.filter { $0.1 > 0 }.sorted { $0.1 > $1.1 }
        return SteadyCPU(cpu: cpu1 - cpu0, wall: wall, server: server1 - server0, threads: threads)
    }

    /// One GStreamer preview run: `seconds` + 2 s of frames (it ends by itself), CPU measured over
    /// the same window as the app's (from 1 s after the start, `seconds` long).
    func gstreamerPreview(sink: String, session: HeadlessSession, window: Int? = nil) throws -> GStreamerPreview {
        let frames = AppBenchmark.fps * ((window ?? seconds) + 2)
        let messages = session.folder + "/gst-\(sink).txt"
        let child = try ChildProcess(GStreamerPreview.pipeline(sink: sink, frames: frames, messages: true), environment: session.environment,
                                     errorPath: session.folder + "/gst-\(sink)-errors.txt", standardOutput: .file(messages))
        let steady = try steadyCPU(child, session: session, label: "gst-launch … ! \(sink)", window: window)
        guard let exit = child.wait(timeout: 60) else {
            child.stop()
            throw CaptureBenchError(description: "gst-launch … ! \(sink) did not end after its \(frames) frames")
        }
        guard exit.status == 0 else {
            throw CaptureBenchError(description: "gst-launch … ! \(sink) exited with \(exit.status): \(child.errors.trimmed.suffix(300))")
        }
        return GStreamerPreview(steady: steady, exit: exit, frames: frames, messages: readFile(messages) ?? "")
    }

    // MARK: Helpers (the shutter and the return from the gallery: AppPressStages.swift)

    /// "min–max" of `values` in ms.
    func range(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "—" }
        return "\(Format.ms(low))–\(Format.ms(high))"
    }

    /// Photo files (JPEG) anywhere under `folder`.
    static func photoFiles(in folder: String) -> Int {
        var count = 0
        for name in FileSystem.names(in: folder) {
            let path = "\(folder)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                count += photoFiles(in: path)
            } else if name.lowercased().hasSuffix(".jpg") || name.lowercased().hasSuffix(".jpeg") {
                count += 1
            }
        }
        return count
    }

    /// The program `name` built next to this one (so in the same configuration), or nil.
    static func sibling(_ name: String) -> String? {
        guard let program = FileSystem.realPath("/proc/self/exe"), let slash = program.lastIndex(of: "/") else { return nil }
        let candidate = String(program[..<slash]) + "/" + name
        return access(candidate, X_OK) == 0 ? candidate : nil
    }

    /// The repository's root, which holds data/ and the peers' C sources (`peers`): the current
    /// directory (scripts/bench runs from the root), else the folder above the Benchmarks package
    /// whose `.build` this program is in.
    static func sourceTree() -> String? {
        var candidates: [String] = []
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        if getcwd(&buffer, buffer.count) != nil {
            candidates.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        if let program = FileSystem.realPath("/proc/self/exe"), let build = program.firstRange(of: "/.build/") {
            let package = String(program[..<build.lowerBound])
            if let slash = package.lastIndex(of: "/") { candidates.append(String(package[..<slash])) }
        }
        return candidates.first { access($0 + "/data/\(appID).gschema.xml", R_OK) == 0 && access($0 + "/" + peers + "/gtk4-floor.c", R_OK) == 0 }
    }

    /// The peers' C sources (compiled by the stages), relative to the repository's root.
    static let peers = "Benchmarks/Sources/pinhole-bench/Peers"

    /// Compiles the floor program with the system's C compiler against GTK 4; returns its path.
    static func compileFloor(source: String, into folder: String) throws -> String {
        guard let flags = Subprocess.output(["pkg-config", "--cflags", "--libs", "gtk4"]) else {
            throw CaptureBenchError(description: "pkg-config knows no gtk4 (libgtk-4-dev; scripts/setup)")
        }
        let binary = folder + "/gtk4-floor"
        let result = Subprocess.run(["cc", "-O2", "-o", binary, source] + flags.split(separator: " ").map { String($0).trimmed }.filter { !$0.isEmpty },
                                    scratch: folder)
        guard result.status == 0 else { throw CaptureBenchError(description: "cc gtk4-floor.c failed: \(result.errors.trimmed.suffix(300))") }
        return binary
    }
}

/// CPU over a steady window of a child's run.
struct SteadyCPU {
    /// The child's CPU seconds (all threads).
    let cpu: Double
    /// The window's wall seconds.
    let wall: Double
    /// The X server's CPU seconds over the same window.
    let server: Double
    /// The child's CPU seconds by thread name, largest first.
    let threads: [(String, Double)]

    /// The child's CPU seconds per second.
    var cpuPerSecond: Double { wall > 0 ? cpu / wall : 0 }

    /// "by thread, ms/s: pinhole-camera 812, …": the four busiest threads (the main thread has the program's name).
    var threadSummary: String {
        "by thread, ms/s: " + threads.prefix(4).map { "\($0.0) \(Format.fixed($0.1 * 1000 / max(wall, 1e-9), 0))" }.joined(separator: ", ")
    }

    /// "123 ms/s".
    var serverSummary: String { "\(Format.fixed(server * 1000 / max(wall, 1e-9), 0)) ms/s" }
}

/// What one GStreamer preview run cost and whether it kept up.
struct GStreamerPreview {
    /// CPU over the steady window.
    let steady: SteadyCPU
    /// The whole run, from wait4.
    let exit: ChildProcess.Exit
    /// Frames the source made (num-buffers).
    let frames: Int
    /// What `gst-launch -m` printed (bus messages, QoS among them).
    let messages: String

    /// The pipeline: the brief's command with `num-buffers` so that it ends by itself, and `-m`
    /// (bus messages to standard output) when `messages`, to read the QoS drop counts.
    static func pipeline(sink: String, frames: Int, messages: Bool = false) -> [String] {
        [GStreamer.tool] + (messages ? ["-m"] : []) + [
            "videotestsrc", "is-live=true", "num-buffers=\(frames)", "!",
            "video/x-raw,format=YUY2,width=\(AppBenchmark.size.width),height=\(AppBenchmark.size.height),framerate=\(AppBenchmark.fps)/1", "!",
            "videoconvert", "!", sink]
    }

    /// Frames each element dropped, from the last QoS message of each (its running totals).
    var droppedByElement: [(String, Int)] {
        var last: [String: Int] = [:]
        var order: [String] = []
        for line in messages.split(separator: "\n") where line.contains("(qos)") {
            guard let open = line.firstRange(of: "element \""), let close = line[open.upperBound...].firstIndex(of: "\""),
                  let field = line.firstRange(of: "dropped=(guint64)") else { continue }
            let element = String(line[open.upperBound..<close])
            let digits = line[field.upperBound...].prefix { $0.isNumber }
            if last[element] == nil { order.append(element) }
            last[element] = Int(digits) ?? 0
        }
        return order.map { ($0, last[$0] ?? 0) }
    }

    /// "0 dropped (QoS)" or "12 dropped (QoS: videoconvert0 12)".
    var drops: String {
        let byElement = droppedByElement.filter { $0.1 > 0 }
        let total = byElement.reduce(0) { $0 + $1.1 }
        return byElement.isEmpty ? "0 of \(frames) dropped (QoS)"
            : "\(total) of \(frames) dropped (QoS: " + byElement.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + ")"
    }

    /// The window and the whole run, for the note.
    var summary: String {
        "CPU \(Format.fixed(steady.cpu, 2)) s over \(Format.fixed(steady.wall, 1)) s from 1 s after its start (\(steady.threadSummary); "
            + "Xvfb meanwhile \(steady.serverSummary)); whole process (wait4) "
            + "\(Format.fixed(exit.cpuSeconds, 2)) s CPU in \(Format.fixed(exit.wallSeconds, 1)) s; draws at 1920×1080, unscaled"
    }
}
