import Glibc
import Media
import PinholeTestSupport

/// The gallery stage's viewer and live measures (see `GalleryBenchmark.rows()` for the order).
extension GalleryBenchmark {
    // MARK: The viewer against eog

    /// Opens the newest item, the 12 MP test photo, from the gallery's first cell with a real
    /// click and Enter (xdotool), `viewerOpens` + 1 times (the first, when the app makes its viewer page, is
    /// reported apart), back to the gallery (`app.back`) between them; the photo is evicted from
    /// the page cache before each.
    func viewerOpens(_ run: ReportingApp, library: GalleryLibrary, watch: ScreenWatch, session: HeadlessSession) throws -> [ViewerOpen] {
        var opens: [ViewerOpen] = []
        for open in 0...viewerOpens {
            bench.progress("gallery: the 12 MP photo in the app's viewer, open \(open) of \(viewerOpens)\(open == 0 ? " (the page made)" : "")")
            _ = PageCache.evict(library.viewerPhoto)
            let watcher = try watch.start(session: session, name: "viewer-\(open)")
            // A click selects the first cell (and gives the grid the keyboard); Enter opens it,
            // as a double-click does. The time runs from just before Enter.
            try xdotool(["mousemove", "90", "130", "click", "1"], session: session, timeout: 20)
            Sleep.seconds(0.6)  // input right after a click can be lost (gtk4-swift-notes)
            let click = MonotonicClock.nanoseconds()
            try xdotool(["key", "Return"], session: session, timeout: 20)
            let seen = try watch.seen(watcher, timeout: 60)
            let opened = try run.next("viewer-open", timeout: 30)[0], decoded = try run.next("viewer-decoded", timeout: 30)[0]
            let drawn = try run.next("viewer-drawn", timeout: 30)[0], settled = try run.next("viewer-settled", timeout: 30)[0]
            opens.append(ViewerOpen(fromClick: Double(seen.at - click) / 1e6, clickToOpen: Double(opened - click) / 1e6,
                                    decoded: Double(decoded - opened) / 1e6, drawn: Double(drawn - opened) / 1e6,
                                    settled: Double(settled - opened) / 1e6, seenAfterDrawn: Double(seen.at - drawn) / 1e6))
            _ = try run.action("back", session: session)
            _ = try run.next("gallery-open", timeout: 30)
            _ = try run.next("gallery-drawn", timeout: 30)
            Sleep.seconds(0.6)  // a click right after an activation can be lost (gtk4-swift-notes)
        }
        return opens
    }

    /// `eog PHOTO` started `viewerOpens` + 1 times (the first untimed: its libraries into the page
    /// cache, as the app's are), each timed from its spawn to the picture on screen, then stopped;
    /// the photo evicted from the page cache before each.
    func eogOpens(library: GalleryLibrary, watch: ScreenWatch, session: HeadlessSession) throws -> [Double] {
        var times: [Double] = []
        for launch in 0...viewerOpens {
            bench.progress("gallery: eog on the same photo, launch \(launch) of \(viewerOpens)\(launch == 0 ? " (untimed)" : "")")
            _ = PageCache.evict(library.viewerPhoto)
            let watcher = try watch.start(session: session, name: "eog-\(launch)")
            let eog = try ChildProcess(["eog", library.viewerPhoto], environment: session.environment, errorPath: session.folder + "/eog-\(launch).txt")
            let seen: (at: Int64, captureMs: Double)
            do { seen = try watch.seen(watcher, timeout: 60) } catch {
                eog.stop()
                throw CaptureBenchError(description: "\(error); eog: \(eog.errors.trimmed.suffix(300))")
            }
            if launch > 0 { times.append(Double(seen.at - eog.spawnedAt) / 1e6) }
            eog.stop(grace: 5)
            Sleep.seconds(0.3)
        }
        return times
    }

    /// The viewer row: ours from the click, eog from its start, both to the picture on screen.
    func viewerRow(ours opens: [ViewerOpen], eog: [Double], photo: String) -> Row {
        let timed = Array(opens.dropFirst()), fromClick = timed.map(\.fromClick)
        /// The median of one figure of the timed opens.
        func median(_ figure: KeyPath<ViewerOpen, Double>) -> Double { Sample.median(timed.map { $0[keyPath: figure] }) }
        let version = Subprocess.output(["dpkg-query", "-W", "-f=${Version}", "eog"])?.trimmed ?? "?"
        var info = stat()
        let bytes = stat(photo, &info) == 0 ? Format.bytes(Int(info.st_size)) : "?"
        return Row(stage: "viewer: open a 12 MP JPEG → picture on screen", size: "12 MP", oursMs: Sample.median(fromClick), memcpyMs: nil,
                   peer: "eog \(version) (Eye of GNOME) PHOTO: start → picture on screen", peerMs: Sample.median(eog),
                   check: Check(text: "app: viewer-open → picture painted \(Format.ms(median(\.drawn))) ms, in place \(Format.ms(median(\.settled))) ms",
                                failed: false),
                   note: "median of \(timed.count) each (app \(range(fromClick)) ms, eog \(range(eog)) ms); both timed by the same screen watcher "
                    + "(Peers/screen-watch.c: XShmGetImage of the whole 1920×1080 screen every \(ScreenWatch.intervalMs) ms, done when the photo's "
                    + "markers show: a magenta square at its centre and a cyan band along its bottom edge, at least \(ScreenWatch.magenta) and "
                    + "\(ScreenWatch.cyan) samples of every 4th pixel, so the gallery's thumbnail of it does not count and a picture drawn from "
                    + "the top down counts once whole); ours from just before Enter on the gallery's first cell (selected by an xdotool click first) "
                    + "with the app running and the gallery shown; eog from its spawn, a new process each time, after one untimed launch; in the "
                    + "app (medians): its viewer-open \(Format.ms(median(\.clickToOpen))) ms after the click; from there, the whole photo decoded "
                    + "off the main thread (TurboJPEG to BGRA, EXIF orientation) and handed to the picture at \(Format.ms(median(\.decoded))) ms; "
                    + "GTK's cairo renderer scales the 4000×3000 texture into the window at every frame it paints: the first frame with the "
                    + "picture (the page's 200-ms slide-in may still run) ended at \(Format.ms(median(\.drawn))) ms, the first with it in place at "
                    + "\(Format.ms(median(\.settled))) ms; the watcher saw it \(Self.signedMs(median(\.seenAfterDrawn))) ms from the first; the first "
                    + "open in the process, which makes the viewer page, took \(Format.ms(opens.first?.fromClick)) ms from the click; the photo "
                    + "(\(bytes), q95 4:2:0) evicted from the page cache before every open of both")
    }

    /// "+12.3" or "−4.56": a signed difference in ms.
    static func signedMs(_ value: Double) -> String {
        value < 0 ? "−" + Format.ms(-value) : "+" + Format.ms(value)
    }

    // MARK: Live

    /// A photo another program adds, with the gallery open at its top: `liveAdds` 12 MP photos
    /// copied into the Photos folder with `cp` (as a file manager copies), then `liveAdds` taken
    /// with `pinhole snap --device test` (the library's own add, in another process), one at a time.
    func liveAdds(_ run: ReportingApp, library: GalleryLibrary, cli: String, session: HeadlessSession) throws -> LiveAdds {
        var copied: [LiveAdd] = [], snapped: [LiveAdd] = []
        for add in 0..<liveAdds {
            bench.progress("gallery: a photo copied into the library, \(add + 1) of \(liveAdds)")
            let source = session.folder + "/live-\(add).jpg"
            try library.livePhoto(at: source, offset: add)
            let copy = try ChildProcess(["cp", source, library.photos + "/Copied photo \(add).jpg"], environment: session.environment,
                                        errorPath: session.folder + "/cp.txt")
            guard let done = copy.wait(timeout: 30), done.status == 0 else {
                copy.stop()
                throw CaptureBenchError(description: "cp failed: \(copy.errors.trimmed.suffix(300))")
            }
            copied.append(try arrival(run, since: copy.spawnedAt, copyMs: done.wallSeconds * 1000))
            Sleep.seconds(0.5)
        }
        for shot in 0..<liveAdds {
            bench.progress("gallery: a photo taken with pinhole snap, \(shot + 1) of \(liveAdds)")
            let snap = try ChildProcess([cli, "snap", "--device", "test"], environment: session.environment, errorPath: session.folder + "/snap.txt",
                                        standardOutput: .pipe)
            guard snap.readLine(timeout: 60) != nil else {
                snap.stop()
                throw CaptureBenchError(description: "pinhole snap printed no path: \(snap.errors.trimmed.suffix(300))")
            }
            let saved = MonotonicClock.nanoseconds()
            guard let done = snap.wait(timeout: 30), done.status == 0 else {
                snap.stop()
                throw CaptureBenchError(description: "pinhole snap failed: \(snap.errors.trimmed.suffix(300))")
            }
            snapped.append(try arrival(run, since: saved, copyMs: Double(saved - snap.spawnedAt) / 1e6))
            Sleep.seconds(0.5)
        }
        return LiveAdds(copied: copied, snapped: snapped)
    }

    /// The next arrival the app reports: its cell on screen and its thumbnail, from `start`.
    func arrival(_ run: ReportingApp, since start: Int64, copyMs: Double) throws -> LiveAdd {
        let shown = try run.next("gallery-item-shown", timeout: 20)[0]
        let thumbnail = try run.next("gallery-item-thumbnail", timeout: 20)[0]
        let splice = run.events("gallery-splice").first { $0.count == 3 && $0[0] >= start && $0[1] > 0 }?[0]
        return LiveAdd(shown: Double(shown - start) / 1e6, thumbnail: Double(thumbnail - start) / 1e6,
                       spliced: splice.map { Double($0 - start) / 1e6 }, before: copyMs)
    }

    /// The live rows: a file copied in, and `pinhole snap`, to the cell on screen.
    func liveRows(_ live: LiveAdds) -> [Row] {
        /// One row.
        func row(_ adds: [LiveAdd], stage: String, how: String) -> Row {
            let shown = adds.map(\.shown), worst = shown.max() ?? 0
            return Row(stage: stage, size: "12 MP", oursMs: Sample.median(shown), memcpyMs: nil, peer: "aim: within 1 s", peerMs: Self.liveAimMs,
                       check: Check(text: "worst \(Format.ms(worst)) ms: \(worst <= Self.liveAimMs ? "met" : "not met")", failed: false),
                       note: "median of \(adds.count), one at a time (\(range(shown)) ms), with the gallery open at its top: " + how
                        + " to the end (after-paint) of the first frame that painted the new item's cell where it can be seen; the items reached "
                        + "the grid (the model's splice) at \(Format.ms(Sample.median(adds.compactMap(\.spliced)))) ms and the cell was painted with "
                        + "its thumbnail at \(Format.ms(Sample.median(adds.map(\.thumbnail)))) ms (medians); the library notices other programs' files "
                        + "through inotify, and the gallery lists its \(items)+ items again at every change")
        }
        return [
            row(live.copied, stage: "gallery live: file copied into Photos → cell on screen",
                how: "from spawning `cp PHOTO LIBRARY/Photos/` (a 12 MP JPEG dated now; cp itself took \(Format.ms(Sample.median(live.copied.map(\.before)))) ms)"),
            row(live.snapped, stage: "gallery live: `pinhole snap` saved → cell on screen",
                how: "from the saved path on `pinhole snap --device test`'s standard output (the JPEG written, fsynced, indexed and its "
                    + "large thumbnail made, in that process; from its spawn it took \(Format.ms(Sample.median(live.snapped.map(\.before)))) ms more)"),
        ]
    }
}

/// One opening of the photo in the app's viewer, in ms.
struct ViewerOpen {
    /// From just before the click to the screen watcher seeing the picture.
    let fromClick: Double
    /// From just before the click to the app's viewer-open.
    let clickToOpen: Double
    /// From the app's viewer-open to the decoded picture handed to GTK (viewer-decoded).
    let decoded: Double
    /// From viewer-open to the end of the first frame that painted the picture (viewer-drawn).
    let drawn: Double
    /// From viewer-open to the end of the first frame that painted it in place (viewer-settled).
    let settled: Double
    /// From viewer-drawn to the watcher seeing the picture (negative: seen before).
    let seenAfterDrawn: Double
}

/// One photo another program added, in ms from when it was in place (cp spawned; snap's path printed).
struct LiveAdd {
    /// To its cell painted where it can be seen.
    let shown: Double
    /// To its cell painted with its thumbnail.
    let thumbnail: Double
    /// To the gallery's splice that brought it in (nil when not found).
    let spliced: Double?
    /// What came before the start: cp's own time, or snap's from its spawn to its path.
    let before: Double
}

/// The live measure's arrivals.
struct LiveAdds {
    /// Photos copied in with cp.
    let copied: [LiveAdd]
    /// Photos taken with `pinhole snap`.
    let snapped: [LiveAdd]
}

/// The camera app under a `HeadlessSession` with PINHOLE_BENCH_REPORT=1, its report lines
/// (the app's marks: `Marks`, `FrameMarks`) read one event at a time, in order.
final class ReportingApp {
    /// The app's process.
    let child: ChildProcess
    /// Lines of each event read so far with `next`.
    private var consumed: [String: Int] = [:]

    /// Starts `arguments` (the app, or the grid floor) with `environment` and waits for its first
    /// frame (the app's first camera frame: its camera page is up).
    init(_ arguments: [String], environment: [String], session: HeadlessSession, name: String) throws {
        child = try ChildProcess(arguments, environment: environment, errorPath: session.folder + "/app-\(name).txt")
        do { _ = try next("first-frame", timeout: 60) } catch {
            child.stop()
            throw error
        }
    }

    /// The values of the next `event` line not read yet, waiting up to `timeout` seconds for it.
    func next(_ event: String, timeout: Double) throws -> [Int64] {
        let index = consumed[event, default: 0]
        guard let line = child.waitForErrorLine(startingWith: AppBenchmark.report + event + " ", after: index, timeout: timeout) else {
            throw CaptureBenchError(description: "the app reported no \(event) in \(Format.fixed(timeout, 0)) s (exit \(child.reap()?.status ?? -1)): "
                                    + child.errors.split(separator: "\n").filter { !$0.hasPrefix(AppBenchmark.report + "gallery-frame") }
                                        .joined(separator: "\n").suffix(400))
        }
        consumed[event] = index + 1
        return ReportingApp.values(line)
    }

    /// The values of every `event` line so far.
    func events(_ event: String) -> [[Int64]] {
        let prefix = AppBenchmark.report + event + " "
        return child.errors.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { ReportingApp.values(String($0)) }
    }

    /// The numbers after "pinhole-bench: EVENT".
    static func values(_ line: String) -> [Int64] {
        line.split(separator: " ").dropFirst(2).compactMap { Int64($0) }
    }

    /// Asks for `app.NAME` with `gapplication action` on the session bus; returns when it was spawned.
    @discardableResult
    func action(_ name: String, session: HeadlessSession) throws -> Int64 {
        let trigger = try ChildProcess(["gapplication", "action", AppBenchmark.appID, name], environment: session.environment,
                                       errorPath: session.folder + "/gapplication.txt")
        guard let done = trigger.wait(timeout: 20), done.status == 0 else {
            trigger.stop()
            throw CaptureBenchError(description: "gapplication action \(name) failed: \(trigger.errors.trimmed.suffix(300))")
        }
        return trigger.spawnedAt
    }

    /// Asks for the gallery and waits for its first screen: the action's times and the cells.
    func open(session: HeadlessSession) throws -> GalleryOpen {
        let spawned = try action("gallery", session: session)
        let opened = try next("gallery-open", timeout: 30)[0]
        let drawn = try next("gallery-drawn", timeout: 120)
        let splice = events("gallery-splice").first { $0.count == 3 && $0[0] >= opened }?[0] ?? drawn[0]
        return GalleryOpen(fromAction: Double(drawn[0] - opened) / 1e6, fromSpawn: Double(drawn[0] - spawned) / 1e6,
                           listed: Double(splice - opened) / 1e6, cells: drawn.count > 1 ? Int(drawn[1]) : 0)
    }

    /// Stops the app (SIGTERM, as a logout does).
    @discardableResult
    func stop() -> ChildProcess.Exit { child.stop() }
}

/// The screen watcher (`Peers/screen-watch.c`), compiled during the stage: it reads the X screen
/// until the bench's marked photo shows.
struct ScreenWatch {
    /// The compiled program.
    let binary: String
    /// Milliseconds between captures.
    static let intervalMs = 5
    /// Magenta and cyan samples (every 4th pixel of every 4th row) that make the photo drawn.
    static let magenta = 400, cyan = 200

    /// Compiles `source` against Xlib and MIT-SHM into `folder`.
    static func compile(source: String, into folder: String) throws -> ScreenWatch {
        ScreenWatch(binary: try GalleryBenchmark.compile(source, into: folder, packages: ["x11", "xext"]))
    }

    /// Starts a watcher on the session's display; returns once it has seen the screen without the photo.
    func start(session: HeadlessSession, name: String) throws -> ChildProcess {
        let watcher = try ChildProcess([binary, "60", "\(ScreenWatch.intervalMs)", "\(ScreenWatch.magenta)", "\(ScreenWatch.cyan)"],
                                       environment: session.environment, errorPath: session.folder + "/watch-\(name).txt", standardOutput: .pipe)
        guard watcher.readLine(timeout: 20) == "ready" else {
            watcher.stop()
            throw CaptureBenchError(description: "the screen watcher did not start: \(watcher.errors.trimmed.suffix(300))")
        }
        return watcher
    }

    /// Waits for `watcher` to see the photo: when (CLOCK_MONOTONIC ns) and how long that capture took.
    func seen(_ watcher: ChildProcess, timeout: Double) throws -> (at: Int64, captureMs: Double) {
        let line = watcher.readLine(timeout: timeout)
        watcher.stop()
        let fields = (line ?? "").split(separator: " ")
        guard fields.count == 4, fields[0] == "seen", let at = Int64(fields[1]), let took = Int64(fields[2]) else {
            throw CaptureBenchError(description: "the photo did not show on screen: \(watcher.errors.trimmed.suffix(300))")
        }
        return (at, Double(took) / 1e6)
    }
}
