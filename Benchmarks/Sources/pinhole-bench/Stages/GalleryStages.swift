import Glibc
import Media
import PinholeTestSupport

/// The gallery stage; `--only gallery` runs it.
extension Stage {
    /// The gallery benchmark, on the GTK app `pinhole-camera` (the release build next to
    /// this program) over a library of 10 000 photos, under a display and session bus of its own:
    /// opening the gallery to its first screen of thumbnails drawn (thumbnails cached, and cold),
    /// frame times while the mouse wheel scrolls it from top to bottom (against a minimal GTK 4
    /// grid, the toolkit's floor), opening a 12 MP photo in the viewer against eog, and how soon a
    /// photo another program adds appears in it.
    static var gallery: Stage {
        Stage(name: "gallery", sizes: [.mp12]) { bench, _ in
            try GalleryBenchmark(bench: bench).rows()
        }
    }
}

/// The gallery measurement: one private headless session (`HeadlessSession`: Xvfb at 1920×1080,
/// a session bus, the library and XDG folders in the scratch directory) for all of it, the app
/// launched several times in it, then the grid floor and eog.
struct GalleryBenchmark {
    /// The bench (options, scratch directory).
    let bench: Bench

    /// Photos in the library: 10 000 (2 000 with `--quick`).
    var items: Int { bench.options.quick ? 2_000 : 10_000 }
    /// Scrolls from the top to the bottom by each app: two with an older app to set against
    /// (in turns, the order changing), else one.
    func scrollRounds(apps: Int) -> Int { apps > 1 ? 2 : 1 }
    /// Launches timed with an empty thumbnail cache.
    var coldLaunches: Int { bench.options.quick ? 1 : 3 }
    /// Launches timed with every thumbnail cached.
    var cachedLaunches: Int { bench.options.quick ? 2 : 5 }
    /// Timed openings of the 12 MP photo, in the app and with eog, each.
    var viewerOpens: Int { bench.options.quick ? 2 : 5 }
    /// Photos copied in, and photos taken with `pinhole snap`, for the live rows.
    var liveAdds: Int { bench.options.quick ? 3 : 5 }
    /// The aim while scrolling: no frame over 50 ms under Xvfb's cairo renderer.
    static let frameAimMs = 50.0
    /// Milliseconds between wheel clicks while scrolling: about 100 clicks a second, more input than
    /// the frame clock's 60 frames, so it never idles and a frame interval is the frame's own.
    static let wheelDelayMs = 10
    /// The aim for another program's photo to appear: within this many milliseconds.
    static let liveAimMs = 1000.0
    /// The grid's size label in the table.
    var sizeLabel: String { "\(items) items" }

    /// Measures everything and returns the rows.
    func rows() throws -> [Row] {
        guard let app = AppBenchmark.sibling("pinhole-camera"), let cli = AppBenchmark.sibling("pinhole") else {
            throw CaptureBenchError(description: "no `pinhole-camera` and `pinhole` next to this program: build them with `swift build -c release "
                                    + "--product pinhole-camera` and `--product pinhole` (scripts/bench does)")
        }
        guard let tree = AppBenchmark.sourceTree() else {
            throw CaptureBenchError(description: "cannot find the source tree (data/ and \(AppBenchmark.peers)/): run from the repository's root")
        }
        for tool in ["Xvfb", "dbus-daemon", "glib-compile-schemas", "gapplication", "xdotool", "eog", "cp", "cc", "pkg-config"] where Subprocess.find(tool) == nil {
            throw CaptureBenchError(description: "\(tool) is not installed (scripts/setup --bench)")
        }
        let folder = bench.scratch + "/gallery"
        mkdir(folder, 0o700)
        defer { removeDirectory(folder) }
        bench.progress("gallery: compiling the screen watcher")
        let watch = try ScreenWatch.compile(source: tree + "/" + AppBenchmark.peers + "/screen-watch.c", into: folder)
        bench.progress("gallery: starting Xvfb and a session bus")
        let session = try AppBinary.session(in: folder, tree: tree)
        defer {
            let (strays, survivors) = session.stop()
            if !strays.isEmpty { bench.progress("gallery: stopped what the bus started: \(strays.joined(separator: ", "))") }
            if !survivors.isEmpty { printError("pinhole-bench: gallery: could not stop \(survivors.joined(separator: ", "))") }
        }
        bench.progress("gallery: writing and indexing \(items) photos")
        let library = try GalleryLibrary(bench: bench, session: session, count: items)
        let seeding = "library: \(items) JPEGs written in \(Format.fixed(library.filesSeconds, 1)) s and indexed by opening the library over them "
            + "in \(Format.fixed(library.indexSeconds, 1)) s (the newest \(GalleryLibrary.largeCount) 12 MP q95 with EXIF, the rest "
            + "\(GalleryLibrary.smallSize.width)×\(GalleryLibrary.smallSize.height) q85; each with its own EXIF date)"

        // The current app, and `--before`'s older one: each opening below is made by each in turn.
        let apps = [AppBinary.current(app, session: session)] + (try AppBinary.before(bench.options.before, session: session).map { [$0] } ?? [])
        let thumbnails = folder + "/cache/thumbnails"
        bench.progress("gallery: a warm-up launch (untimed)")
        for (index, app) in apps.enumerated() { _ = try openGallery(app: app, session: session, name: "warm-up-\(index)") }
        var cold = apps.map { _ in [GalleryOpen]() }
        for launch in 1...coldLaunches {
            for (index, app) in apps.enumerated() {
                bench.progress("gallery: open with no thumbnails cached, launch \(launch) of \(coldLaunches)\(app.mark)")
                removeDirectory(thumbnails)
                for photo in library.largePhotos { _ = PageCache.evict(photo) }
                cold[index].append(try openGallery(app: app, session: session, name: "cold-\(index)-\(launch)"))
            }
        }
        bench.progress("gallery: making the thumbnails the cold launches did not")
        let premade = try library.makeThumbnails(cache: thumbnails)
        var cached = apps.map { _ in [GalleryOpen]() }
        for launch in 1...cachedLaunches {
            for (index, app) in apps.enumerated() {
                bench.progress("gallery: open with every thumbnail cached, launch \(launch) of \(cachedLaunches)\(app.mark)")
                cached[index].append(try openGallery(app: app, session: session, name: "cached-\(index)-\(launch)"))
            }
        }
        let premadeNote = "every thumbnail cached: \(premade.made) made by this program in \(Format.fixed(premade.seconds, 1)) s before "
            + "(as a file manager leaves them: Pinhole's Thumbnailer, the spec's PNG with Thumb::URI and Thumb::MTime), the rest by the app "
            + "during the cold launches"

        let long = try ReportingApp([app], environment: session.environment, session: session, name: "long")
        let inApp: (viewer: [ViewerOpen], live: LiveAdds)
        do {
            Sleep.seconds(0.5)
            _ = try long.open(session: session)
            let viewer = try viewerOpens(long, library: library, watch: watch, session: session)
            let live = try liveAdds(long, library: library, cli: cli, session: session)
            inApp = (viewer, live)
        } catch {
            long.stop()
            throw error
        }
        long.stop()
        // Each app scrolls the same library (with the live rows' photos in it too) in a launch of
        // its own that does nothing else, so that what an earlier measurement left behind in one
        // app falls on neither; with an older app, the order changes from round to round, so the
        // page cache and the machine's state fall on both alike.
        var scrolls = apps.map { _ in [ScrollRun]() }
        for round in 0..<scrollRounds(apps: apps.count) {
            for index in round % 2 == 0 ? Array(apps.indices) : apps.indices.reversed() {
                let app = apps[index]
                let run = try ReportingApp([app.path], environment: app.environment, session: session, name: "scroll-\(index)-\(round)")
                defer { run.stop() }
                Sleep.seconds(0.5)
                _ = try run.open(session: session)
                scrolls[index].append(try scroll(run, session: session, count: items + 2 * liveAdds, label: "the gallery\(app.mark)"))
            }
        }
        bench.progress("gallery: the GTK 4 grid floor")
        let floorProgram = try Self.compile(tree + "/" + AppBenchmark.peers + "/gtk4-grid-floor.c", into: folder, packages: ["gtk4"])
        let floorRun = try ReportingApp([floorProgram, "\(items)", thumbnails + "/" + ThumbnailSize.normal.folderName], environment: session.environment,
                                        session: session, name: "floor")
        let floor: ScrollRun
        do { floor = try scroll(floorRun, session: session, count: items, label: "the floor's grid") } catch {
            floorRun.stop()
            throw error
        }
        floorRun.stop()
        let eog = try eogOpens(library: library, watch: watch, session: session)

        let interleaved = apps.count > 1 ? "; launches interleaved with the other build's, one by one" : ""
        let openRows = apps.indices.flatMap { index in [
            openRow(cached[index], app: apps[index], cache: "thumbnails cached", note: premadeNote + "; " + seeding + interleaved),
            openRow(cold[index], app: apps[index], cache: "cold", note: "no thumbnail cached (the cache folder removed before each launch, and the 12 MP "
                    + "photos evicted from the page cache: PageCache.evict), so the app makes the visible cells' 128-px thumbnails first" + interleaved),
        ] }
        return openRows + apps.indices.flatMap { scrollRows(ours: scrolls[$0], floor: floor, app: apps[$0]) }
            + [viewerRow(ours: inApp.viewer, eog: eog, photo: library.viewerPhoto)] + liveRows(inApp.live)
    }

    // MARK: Opening the gallery

    /// One launch: the app up on its camera page (its first camera frame drawn), then the gallery
    /// asked for with `gapplication action … gallery`, timed to the app's `gallery-drawn`; the app
    /// is stopped after.
    func openGallery(app: AppBinary, session: HeadlessSession, name: String) throws -> GalleryOpen {
        let run = try ReportingApp([app.path], environment: app.environment, session: session, name: name)
        defer { run.stop() }
        Sleep.seconds(0.5)
        return try run.open(session: session)
    }

    /// The row of one opening's launches of `app`: the median from the action reaching the app to
    /// the first screen drawn.
    func openRow(_ opens: [GalleryOpen], app: AppBinary, cache: String, note: String) -> Row {
        let fromAction = opens.map(\.fromAction), fromSpawn = opens.map(\.fromSpawn), listed = opens.map(\.listed)
        let cells = Set(opens.map(\.cells)).sorted().map(String.init).joined(separator: "/")
        return Row(stage: "gallery\(app.mark): open → first screen of thumbnails drawn, \(cache)", size: sizeLabel, oursMs: Sample.median(fromAction), memcpyMs: nil,
                   peer: "—", peerMs: nil,
                   check: Check(text: "\(cells) cells on the first screen, each with its thumbnail", failed: false),
                   note: "median of \(opens.count) launches (\(range(fromAction)) ms): from the `app.gallery` action reaching the app to the end "
                    + "(frame clock after-paint) of the first frame that painted every visible cell with its thumbnail, the page's slide-in over; "
                    + "the \(items) items reached the grid at \(Format.ms(Sample.median(listed))) ms (median; the library's query and the list "
                    + "model's splice); from spawning `gapplication action \(AppBenchmark.appID) gallery` \(Format.ms(Sample.median(fromSpawn))) ms; "
                    + "each launch a new process (the gallery page is made on first use), 960×720 window, cairo renderer; " + note + "; " + app.origin)
    }

    // MARK: Scrolling

    /// Scrolls `run`'s grid of `count` items (the app's gallery, or the floor's) from the top to
    /// the bottom with the mouse wheel (xdotool, button 5 every `wheelDelayMs`), and collects its
    /// frames meanwhile.
    func scroll(_ run: ReportingApp, session: HeadlessSession, count: Int, label: String) throws -> ScrollRun {
        bench.progress("gallery: scrolling \(label) from the top to the bottom with the mouse wheel")
        try xdotool(["mousemove", "480", "400"], session: session, timeout: 20)
        Sleep.seconds(0.5)
        let first = run.events("gallery-frame").count
        guard let top = run.events("gallery-frame").last, top.count == 6, top[2] == 0 else {
            throw CaptureBenchError(description: "the gallery is not at its top before scrolling")
        }
        // A first batch gives the distance a wheel click scrolls; the second goes the rest of the
        // way in one xdotool run (one continuous scroll), and small batches finish if it fell short.
        var batches: [(start: Int64, end: Int64, clicks: Int)] = []
        var clicks = 100
        let deadline = Clock.now() + 240
        while true {
            let start = MonotonicClock.nanoseconds()
            try xdotool(["click", "--repeat", "\(clicks)", "--delay", "\(Self.wheelDelayMs)", "5"], session: session, timeout: 200)
            let end = MonotonicClock.nanoseconds()
            batches.append((start, end, clicks))
            Sleep.seconds(0.3)
            guard let last = run.events("gallery-frame").last, last.count == 6 else { throw CaptureBenchError(description: "no gallery frames") }
            if last[2] + last[4] >= last[3] - 1 { break }
            guard Clock.now() < deadline else {
                throw CaptureBenchError(description: "the wheel did not reach the bottom in 240 s (at \(last[2]) of \(last[3] - last[4]) px)")
            }
            let perClick = Double(last[2]) / Double(batches.reduce(0) { $0 + $1.clicks })
            clicks = batches.count == 1 && perClick > 0 ? Int(Double(last[3] - last[4] - last[2]) / perClick * 1.02) + 5 : 50
        }
        let frames = Array(run.events("gallery-frame").dropFirst(first)).filter { $0.count == 6 }
        let warnings = run.child.errors.split(separator: "\n").filter { $0.contains("failed to scroll to given position") }.count
        return ScrollRun(frames: frames, batches: batches, height: Int(top[3]), page: Int(top[4]), items: count, gridWarnings: warnings)
    }

    /// The frame rows: the 99th percentile and the worst frame interval while the wheel turned,
    /// over `ours` (the scrolls of `app`, each in a launch of its own) against the GTK 4 grid
    /// floor, and the 50 ms aim (`frameAimMs`).
    func scrollRows(ours: [ScrollRun], floor: ScrollRun, app: AppBinary) -> [Row] {
        let intervals = ours.flatMap(\.intervalsMs), floorIntervals = floor.intervalsMs
        let p99 = Self.percentile(intervals, 0.99), worst = intervals.max() ?? 0
        let over = intervals.filter { $0 > Self.frameAimMs }.count
        let aim = "aim no frame over \(Format.fixed(Self.frameAimMs, 0)) ms: \(worst <= Self.frameAimMs ? "met" : "not met")"
        let peer = "GTK 4 grid floor (C): GtkGridView of \(floor.items) cells built as the app's, 16 thumbnails decoded at start, the same wheel"
        let scrolls = ours.count == 1 ? "app (one launch that only scrolls" : "app (\(ours.count) launches that only scroll, figures over all"
        let note = "frame interval = one frame's before-paint to the next's (what the eye sees) while xdotool turns the wheel (button 5 every "
            + "\(Self.wheelDelayMs) ms: more input than frames, so the frame clock never idles), with the pointer over the grid, from the top "
            + "to the bottom; intervals spanning the pauses between xdotool runs are left out; each frame's own work = before-paint → after-paint "
            + "(layout, binding new cells, painting); a leap = a frame whose first visible item is further on than the wheel could have "
            + "taken it (3× its clicks in that frame, plus two); a stall = an interval over \(Format.fixed(Self.frameAimMs, 0)) ms, given as "
            + "the seconds into the scroll and the first visible item where it ended; \(scrolls); every thumbnail cached, each loaded as a texture "
            + "off the main thread when its cell is bound, at most 600 kept): " + ours.map(summary).joined(separator: " | ") + "; floor: " + summary(floor)
            + "; both 960×720 windows, cairo renderer under Xvfb; " + app.origin
        return [
            Row(stage: "gallery\(app.mark): scroll top → bottom, frame interval, 99th percentile", size: sizeLabel, oursMs: p99, memcpyMs: nil,
                peer: peer, peerMs: Self.percentile(floorIntervals, 0.99),
                check: Check(text: "worst \(Format.ms(worst)) ms (floor \(Format.ms(floorIntervals.max() ?? 0))); \(aim)", failed: false), note: note),
            Row(stage: "gallery\(app.mark): scroll top → bottom, worst frame interval", size: sizeLabel, oursMs: worst, memcpyMs: nil,
                peer: peer, peerMs: floorIntervals.max(),
                check: Check(text: "\(over) of \(intervals.count) over \(Format.fixed(Self.frameAimMs, 0)) ms (floor "
                             + "\(floorIntervals.filter { $0 > Self.frameAimMs }.count) of \(floorIntervals.count))", failed: false),
                note: "the same scrolls; worst of each: " + ours.map { Format.ms($0.intervalsMs.max() ?? 0) }.joined(separator: ", ") + " ms"),
        ]
    }

    /// One scroll in words: the wheel's pace, the intervals, the frames' own work, the leaps.
    func summary(_ run: ScrollRun) -> String {
        let intervals = run.intervalsMs, paints = run.paintMs
        let over = run.intervals.filter { $0.ms > Self.frameAimMs }, leapFrames = Set(run.jumps.map(\.at))
        let clicks = run.batches.reduce(0) { $0 + $1.clicks }
        let seconds = run.batches.reduce(0.0) { $0 + Double($1.end - $1.start) / 1e9 }
        return "\(intervals.count) intervals, \(clicks) clicks in \(run.batches.count) xdotool runs over \(Format.fixed(seconds, 1)) s "
            + "(\(Format.fixed(Double(clicks) / max(seconds, 1e-9), 0)) clicks/s, \(run.height - run.page) px of grid, page \(run.page) px); "
            + "interval median \(Format.ms(Sample.median(intervals))), 99th percentile \(Format.ms(Self.percentile(intervals, 0.99))), worst "
            + "\(Format.ms(intervals.max() ?? 0)) ms, \(over.count) over \(Format.fixed(Self.frameAimMs, 0)) ms; own work median "
            + "\(Format.ms(Sample.median(paints))), 99th percentile \(Format.ms(Self.percentile(paints, 0.99))), worst \(Format.ms(paints.max() ?? 0)) ms; "
            + (run.jumps.isEmpty ? "no leaps" : "\(run.jumps.count) leaps (items " + run.jumps.map { "\($0.from)→\($0.to)" }.joined(separator: ", ")
                + "; \(run.jumps.reduce(0) { $0 + Int($1.to - $1.from) }) of \(run.items) items passed that way; "
                + "\(over.filter { leapFrames.contains($0.end) }.count) of the intervals over \(Format.fixed(Self.frameAimMs, 0)) ms ended in one)")
            + "; " + (over.isEmpty ? "no stalls" : "stalls " + over.map { stall in
                let item = run.frames.first { $0[0] == stall.end }.map { $0[5] } ?? -1
                return "\(Format.ms(stall.ms)) ms at \(Format.fixed(Double(stall.end - (run.batches.first?.start ?? stall.end)) / 1e9, 1)) s (item \(item))"
            }.joined(separator: ", "))
            + "; GtkGridView logged \"failed to scroll to given position\" \(run.gridWarnings) times"
    }

    // MARK: Helpers

    /// Runs xdotool with `arguments` on the session's display and waits for it, up to `timeout` seconds.
    func xdotool(_ arguments: [String], session: HeadlessSession, timeout: Double) throws {
        let child = try ChildProcess(["xdotool"] + arguments, environment: session.environment, errorPath: session.folder + "/xdotool.txt")
        guard let exit = child.wait(timeout: timeout), exit.status == 0 else {
            child.stop()
            throw CaptureBenchError(description: "xdotool \(arguments.joined(separator: " ")) failed: \(child.errors.trimmed.suffix(300))")
        }
    }

    /// Compiles the C program `source` against pkg-config's `packages` into `folder`; returns its path.
    static func compile(_ source: String, into folder: String, packages: [String]) throws -> String {
        guard let flags = Subprocess.output(["pkg-config", "--cflags", "--libs"] + packages) else {
            throw CaptureBenchError(description: "pkg-config knows no \(packages.joined(separator: ", ")) (scripts/setup)")
        }
        let name = String(source.split(separator: "/").last ?? "program").replacingAll(".c", with: "")
        let binary = folder + "/" + name
        let result = Subprocess.run(["cc", "-O2", "-o", binary, source] + flags.split(separator: " ").map { String($0).trimmed }.filter { !$0.isEmpty },
                                    scratch: folder)
        guard result.status == 0 else { throw CaptureBenchError(description: "cc \(name).c failed: \(result.errors.trimmed.suffix(300))") }
        return binary
    }

    /// The `fraction` percentile of `values` (nearest rank; 0 for none).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// "min–max" of `values` in ms.
    func range(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "—" }
        return "\(Format.ms(low))–\(Format.ms(high))"
    }
}

/// One opening of the gallery, in ms.
struct GalleryOpen {
    /// From the action reaching the app to the first screen drawn.
    let fromAction: Double
    /// From spawning `gapplication action` to the first screen drawn.
    let fromSpawn: Double
    /// From the action to the items' splice into the grid's list.
    let listed: Double
    /// Cells on the first screen.
    let cells: Int
}

/// The frames of one scroll from the top to the bottom.
struct ScrollRun {
    /// The app's `gallery-frame` values: before-paint, after-paint (ns), scroll value, height, page
    /// (px), the first visible item's position.
    let frames: [[Int64]]
    /// The xdotool runs: start and end (ns) and clicks.
    let batches: [(start: Int64, end: Int64, clicks: Int)]
    /// The grid's height and the viewport's, in pixels.
    let height: Int, page: Int
    /// Items in the grid.
    let items: Int
    /// GtkGridView's "failed to scroll to given position" warnings in the app's log.
    let gridWarnings: Int

    /// Frames whose first visible item is further on than the wheel could have taken it in that
    /// frame, three times over (its clicks at `wheelDelayMs` plus two, each GTK's wheel step, the
    /// viewport's height to the 2/3, at the grid's pixels per item): the grid leaping ahead by itself.
    var jumps: [(from: Int64, to: Int64, at: Int64)] {
        let step = pow(Double(page), 2.0 / 3.0), pixelsPerItem = Double(height) / Double(max(items, 1))
        return zip(frames, frames.dropFirst()).compactMap { previous, next in
            guard previous[5] >= 0, next[5] >= 0 else { return nil }
            let clicks = Double(next[0] - previous[0]) / 1e6 / Double(GalleryBenchmark.wheelDelayMs) + 2
            return Double(next[5] - previous[5]) * pixelsPerItem > 3 * clicks * step ? (previous[5], next[5], next[0]) : nil
        }
    }

    /// Frame intervals (one frame's start to the next's) within an xdotool run, in ms.
    var intervalsMs: [Double] { intervals.map(\.ms) }

    /// Frame intervals within an xdotool run, in ms, each with the start of the frame that ends it.
    var intervals: [(ms: Double, end: Int64)] {
        var intervals: [(ms: Double, end: Int64)] = []
        for batch in batches {
            let inside = frames.filter { $0[0] >= batch.start && $0[0] <= batch.end }
            for (previous, next) in zip(inside, inside.dropFirst()) { intervals.append((Double(next[0] - previous[0]) / 1e6, next[0])) }
        }
        return intervals
    }

    /// Each frame's own work (before-paint to after-paint) within an xdotool run, in ms.
    var paintMs: [Double] {
        frames.filter { frame in batches.contains { frame[0] >= $0.start && frame[0] <= $0.end } }.map { Double($0[1] - $0[0]) / 1e6 }
    }
}
