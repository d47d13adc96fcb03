import Foundation
import Glibc
import Testing
import TestSupport

/// How long a monkey runs and with which seed: `PINHOLE_MONKEY_SEED` (default 1), and either
/// `PINHOLE_MONKEY_SECONDS` (a run of that length, as `scripts/monkey` asks for) or
/// `PINHOLE_MONKEY_ACTIONS` (default `ciActions`, CI's fixed count).
struct MonkeyPlan: CustomStringConvertible {
    /// The seed of the actions' choices.
    var seed: UInt64
    /// The number of actions, when the run is counted in actions.
    var actions: Int?
    /// The run's length in seconds, when it is counted in time.
    var seconds: Double?

    /// CI's run: seed 1, this many actions (1.5 to 3 minutes on a busy 2-core machine).
    static let ciActions = 150

    /// The plan the environment asks for.
    static func fromEnvironment() -> MonkeyPlan {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["PINHOLE_MONKEY_SEED"].flatMap { UInt64($0) } ?? 1
        if let seconds = environment["PINHOLE_MONKEY_SECONDS"].flatMap(Double.init) {
            return MonkeyPlan(seed: seed, actions: environment["PINHOLE_MONKEY_ACTIONS"].flatMap { Int($0) }, seconds: seconds)
        }
        return MonkeyPlan(seed: seed, actions: environment["PINHOLE_MONKEY_ACTIONS"].flatMap { Int($0) } ?? ciActions, seconds: nil)
    }

    /// The plan as the log says it: "seed 1, 150 actions".
    var description: String {
        "seed \(seed), " + [actions.map { "\($0) actions" }, seconds.map { "\(Int($0)) s" }].compactMap { $0 }.joined(separator: " or ")
    }
}

/// What a person can do to the camera app, each a step of the monkey (`Monkey.perform`).
enum MonkeyAction: String, CaseIterable {
    /// The camera page's: Space or Enter, D-Bus take-photo and record, B, T, Escape, V or the mode
    /// action, P, C, filters, flash, G.
    case shutter, takePhoto, record, burst, timer, cancelTimer, mode, pause, switchCamera, filter, flash, grid
    /// The gallery and the viewer: Ctrl+G, a filter, Alt+Left, show-camera, a double-click on the
    /// first cell, arrows, zoom, F, K and seeking, the properties, Ctrl+C.
    case gallery, galleryFilter, back, showCamera, openViewer, viewerStep, viewerZoom, favourite, playPause, info, copy
    /// Delete in the viewer or on the gallery's selection, Undo, Recently Deleted, Restore, Empty Trash.
    case deleteItem, deleteSelection, undoDelete, recentlyDeleted, restore, emptyTrash
    /// The album actions, with their dialogs and pickers answered.
    case newAlbum, addToAlbum, removeFromAlbum, renameAlbum, deleteAlbum, chooseCover, addPhotosToAlbum
    /// Import over D-Bus, `pinhole-camera --pick`, the Preferences window, gsettings, Save or
    /// Discard of a photo waiting for confirmation, the shortcuts and About windows.
    case importFiles, picker, preferences, setting, confirmPhoto, shortcuts, about
    /// The window resized and minimised (through mutter), a test camera's fault set and cleared,
    /// Retry, quit over D-Bus and launch again.
    case resize, minimise, fault, clearFaults, retry, quitAndRelaunch
}

/// The page the monkey believes the window shows (its actions keep it; a belief that is wrong
/// only sends a key where a person's could go too).
enum MonkeyPage: String {
    /// The camera, the gallery, the viewer, Recently Deleted.
    case camera, gallery, viewer, trash
}

/// Drives the running app in an `AppSession` (its own Xvfb, with mutter as the window manager,
/// and its test cameras) with a seeded random sequence of what a person does: real keys and
/// clicks (xdotool), GActions over D-Bus, the accessibility tree, a second process's picker,
/// settings changed from a terminal, the window resized and minimised, and camera faults from
/// the test cameras' control FIFO. Every step is printed with its index; every failure names the
/// seed and the step. After the run: the app alive and answering, quit over D-Bus with status 0,
/// no GTK or GLib critical warning on its standard error, every photo and video the app said it
/// saved (its `photo-saved` and `video-saved` lines) or imported ("N imported") is in the
/// library, its Trash or was deleted for good by the monkey, and decodes (exiftool, ffmpeg); the
/// index passes `PRAGMA integrity_check`, `pinhole library verify` finds files and rows agree,
/// and the Trash's files and the index's trashed rows agree.
final class Monkey {
    /// The seed and the length of the run.
    let plan: MonkeyPlan
    /// Every choice's source, seeded by the plan.
    private var random: SeededGenerator
    /// The app, its display, bus and library.
    private let session: AppSession
    /// The window manager on the session's display.
    private let mutter: BackgroundProcess
    /// What earlier app processes (before a quit and relaunch) wrote on standard error.
    private var earlierErrors = ""
    /// How much of the current app's standard error has been scanned for critical warnings.
    private var scanned = 0
    /// The step now running (0 before the first).
    private(set) var step = 0
    /// The page the monkey believes shown.
    private var page = MonkeyPage.camera
    /// Faults set on the test cameras and not yet cleared.
    private var faults: Set<String> = []
    /// How many new files the monkey made to import.
    private var importsMade = 0
    /// Names the monkey saw deleted for good by Empty Trash (no longer anywhere).
    private var deletedForGood: [String] = []
    /// Album names given so far ("Album N").
    private var albumsMade = 0
    /// Actions done, by kind.
    private(set) var counts: [MonkeyAction: Int] = [:]
    /// Failures found, each naming its step.
    private(set) var failures: [String] = []
    /// When the run began.
    private let started = Date()
    /// Photos and videos the app has said it saved so far (its benchmark lines), for the log.
    private var saidSaved = (photos: 0, videos: 0)
    /// The app's relaunches (each after a quit the monkey asked for).
    private var launches = 1

    /// The markers of a critical warning on standard error.
    static let criticals = ["Gtk-CRITICAL", "GLib-CRITICAL", "GLib-GObject-CRITICAL", "Gdk-CRITICAL", "Adwaita-CRITICAL", "GLib-GIO-CRITICAL", "Pango-CRITICAL",
                            // The app's own: its gallery list found out of step with the model (and mended).
                            "the gallery's list was out of step"]

    /// Starts the session, mutter on its display, and the app.
    init(plan: MonkeyPlan) throws {
        self.plan = plan
        random = SeededGenerator(seed: plan.seed)
        // The benchmark's lines: the app's own word for each photo and video saved.
        session = try AppSession(preferences: ["burst-count": "3"], extra: ["PINHOLE_BENCH_REPORT": "1"])
        // A window manager, so that minimising is a person's minimising (mutter on the X display:
        // GNOME's, compositing on llvmpipe).
        mutter = try BackgroundProcess(["/usr/bin/mutter", "--x11", "--replace", "--sm-disable"], environment: session.environment)
        let managed = try waitFor(seconds: patience) {
            try runTool("xprop", ["-root", "_NET_SUPPORTING_WM_CHECK"], environment: ["DISPLAY": session.display]).stdout.contains("window id")
        }
        try #require(managed, "mutter did not start: \(mutter.errors.suffix(600))")
        try session.launch()
        try #require(waitFor(seconds: patience) { AppSuites.GalleryTests.cameraRunning(session) == true }, "the camera did not start: \(session.app?.errors ?? "")")
    }

    deinit { mutter.stop() }

    /// Writes a line of the run's log on standard output, at once (one write, unbuffered: a
    /// long run can be followed as it goes).
    private func log(_ text: String) {
        FileHandle.standardOutput.write(Data("monkey [seed \(plan.seed) step \(step)] \(text)\n".utf8))
    }

    /// Records a failure at this step (and goes on: a run reports all it finds).
    private func fail(_ text: String) {
        let line = "seed \(plan.seed) step \(step): \(text)"
        failures.append(line)
        log("FAILURE: " + text)
    }

    // MARK: The run

    /// Runs the plan's steps, then the checks. Returns the run's figures as text.
    func run() throws -> String {
        log("starting: \(plan)")
        while true {
            if let actions = plan.actions, step >= actions { break }
            if let seconds = plan.seconds, Date().timeIntervalSince(started) >= seconds { break }
            step += 1
            try tidy()
            let action = choose()
            counts[action, default: 0] += 1
            let begun = Date()
            // The clock of the app's marks (CLOCK_MONOTONIC), so its lines can be set beside the steps.
            var clock = timespec()
            clock_gettime(CLOCK_MONOTONIC, &clock)
            var detail = ""
            do {
                detail = try perform(action)
            } catch {
                fail("\(action.rawValue) threw: \(error)")
            }
            let alive = checkAlive()
            log("\(action.rawValue)\(detail.isEmpty ? "" : " " + detail) (\(String(format: "%.1f", Date().timeIntervalSince(begun))) s from \(String(format: "%.3f", Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9)), page \(page.rawValue); "
                + "saved so far: \(saidSaved.photos) photos, \(saidSaved.videos) videos)")
            guard alive else { break }
        }
        step += 1
        log("the run is over: finishing")
        return try finish()
    }

    /// Picks the next action, weighted by what makes sense on the page the monkey believes shown.
    private func choose() -> MonkeyAction {
        let weighted = MonkeyAction.allCases.map { ($0, weight($0)) }.filter { $0.1 > 0 }
        var pick = Int.random(in: 0..<weighted.reduce(0) { $0 + $1.1 }, using: &random)
        for (action, weight) in weighted {
            if pick < weight { return action }
            pick -= weight
        }
        return .takePhoto
    }

    /// Weights given in `PINHOLE_MONKEY_WEIGHTS` ("quitAndRelaunch=10,record=6"): to chase a
    /// finding, its actions made likelier (or others 0); they replace the usual weight where the
    /// action makes sense.
    private let chosenWeights: [MonkeyAction: Int] = Dictionary(
        (ProcessInfo.processInfo.environment["PINHOLE_MONKEY_WEIGHTS"] ?? "").split(separator: ",").compactMap { pair in
            let parts = pair.split(separator: "=")
            guard parts.count == 2, let action = MonkeyAction(rawValue: String(parts[0])), let weight = Int(parts[1]) else { return nil }
            return (action, weight)
        }, uniquingKeysWith: { $1 })

    /// How often `action` is chosen now (0: not now).
    private func weight(_ action: MonkeyAction) -> Int {
        let usual = usualWeight(action)
        guard usual > 0, let chosen = chosenWeights[action] else { return usual }
        return chosen
    }

    /// The usual weight of `action` on the page the monkey believes shown (0: not now).
    private func usualWeight(_ action: MonkeyAction) -> Int {
        let camera = page == .camera, gallery = page == .gallery, viewer = page == .viewer, trash = page == .trash
        switch action {
        case .shutter: return camera ? 14 : 0
        case .takePhoto: return 5
        case .record: return 3
        case .burst: return camera ? 4 : 0
        case .timer: return camera ? 2 : 0
        case .cancelTimer: return camera ? 1 : 0
        case .mode: return camera ? 4 : 1
        case .pause: return camera ? 1 : 0
        case .switchCamera: return camera ? 3 : 0
        case .filter, .flash: return 2
        case .grid: return camera ? 1 : 0
        case .gallery: return camera ? 5 : 1
        case .galleryFilter: return 2
        case .back: return camera ? 0 : 4
        case .showCamera: return camera ? 0 : 2
        case .openViewer: return gallery ? 6 : 0
        case .viewerStep: return viewer ? 5 : 0
        case .viewerZoom, .favourite, .playPause: return viewer ? 2 : 0
        case .info: return viewer ? 1 : 0
        case .copy: return viewer || gallery ? 1 : 0
        case .deleteItem: return viewer ? 3 : 0
        case .deleteSelection: return gallery ? 3 : 0
        case .undoDelete: return 2
        case .recentlyDeleted: return 2
        case .restore: return trash ? 5 : 0
        case .emptyTrash: return trash ? 1 : 0
        case .newAlbum: return gallery || viewer ? 2 : 0
        case .addToAlbum: return gallery || viewer ? 2 : 0
        case .removeFromAlbum, .renameAlbum, .chooseCover, .addPhotosToAlbum: return gallery ? 1 : 0
        case .deleteAlbum: return gallery ? 1 : 0
        case .importFiles: return 2
        case .picker: return 2
        case .preferences, .setting, .confirmPhoto: return 2
        case .shortcuts, .about: return 1
        case .resize: return 2
        case .minimise: return 2
        case .fault: return faults.isEmpty ? 3 : 1
        case .clearFaults: return faults.isEmpty ? 0 : 12
        case .retry: return 1
        case .quitAndRelaunch: return 1
        }
    }

    /// A random element of `choices`.
    private func any<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }

    /// A random whole number in `range`.
    private func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    /// True with probability `p`.
    private func chance(_ p: Double) -> Bool { Double(random.next() >> 11) / Double(1 << 53) < p }

    // MARK: Actions

    /// Does `action`, returning what it chose (for the log).
    private func perform(_ action: MonkeyAction) throws -> String {
        switch action {
        case .shutter:
            let key = any(["space", "space", "Return"])
            try pressKey(key)
            return key
        case .takePhoto:
            try session.action("take-photo")
            page = .camera
            return ""
        case .record:
            try session.action("record")
            page = .camera
            return ""
        case .burst:
            try pressKey("b")
        case .timer:
            try pressKey("t")
        case .cancelTimer:
            try pressKey("Escape")
        case .mode:
            if page == .camera && chance(0.6) {
                try pressKey("v")
                return "v"
            }
            let mode = any(["photo", "video"])
            try session.action("mode", mode)
            return mode
        case .pause:
            try pressKey("p")
        case .switchCamera:
            try pressKey("c")
        case .filter:
            let filter = any(["none", "mono", "noir", "sepia", "invert"])
            try session.action("filter", filter)
            return filter
        case .flash:
            let flash = any(["off", "on", "auto"])
            try session.action("flash", flash)
            return flash
        case .grid:
            try pressKey("g")
        case .gallery:
            try pressKey("ctrl+g")
            page = .gallery
        case .galleryFilter:
            let albums = try albumNames()
            let filter = any(["all", "all", "photos", "videos", "favorites"] + albums.map { "album:" + $0 })
            try session.action("gallery-filter", filter)
            page = .gallery
            return filter
        case .back:
            try pressKey("alt+Left")
            page = page == .viewer ? .gallery : page == .trash ? .gallery : .camera
        case .showCamera:
            try session.action("show-camera")
            page = .camera
        case .openViewer:
            // The first cell, under the header, wherever the window's size puts the rest.
            try session.click(x: 100, y: 130, count: 2)
            if try cellCount() > 0 { page = .viewer }
        case .viewerStep:
            let key = any(["Left", "Right", "Right"])
            try pressKey(key)
            return key
        case .viewerZoom:
            let key = any(["ctrl+plus", "ctrl+minus", "ctrl+0"])
            try pressKey(key)
            return key
        case .favourite:
            try pressKey("f")
        case .playPause:
            let key = any(["k", "shift+Right", "shift+Left"])
            try pressKey(key)
            return key
        case .info:
            try pressKey("alt+Return")
        case .copy:
            try pressKey("ctrl+c")
        case .deleteItem:
            try pressKey("Delete")
        case .deleteSelection:
            let all = chance(0.2)
            try session.click(x: 100, y: 130)
            if all { try pressKey("ctrl+a") }
            try pressKey("Delete")
            return all ? "all" : "first"
        case .undoDelete:
            try session.action("undo-delete")
        case .recentlyDeleted:
            try session.action("recently-deleted")
            page = .trash
        case .restore:
            return try pressButton(startingWith: "Restore ", patience: 5) ? "pressed" : "nothing to restore"
        case .emptyTrash:
            return try emptyTrash()
        case .newAlbum:
            if page == .gallery { try session.click(x: 100, y: 130) }
            try session.action("new-album")
            albumsMade += 1
            let name = "Album \(albumsMade)"
            guard try answerNameDialog("^New Album$", with: name, clearing: false, patience: patience) else {
                fail("no New Album dialog after app.new-album")
                return ""
            }
            return name
        case .addToAlbum:
            guard let name = try albumNames().randomElement(using: &random) else { return "no album" }
            if page == .gallery { try session.click(x: 100, y: 130) }
            try session.action("add-to-album", name)
            return name
        case .removeFromAlbum:
            try session.click(x: 100, y: 130)
            try session.action("remove-from-album")
        case .renameAlbum:
            try session.action("rename-album")
            albumsMade += 1
            let name = "Album \(albumsMade)"
            return try answerNameDialog("^Rename Album$", with: name, clearing: true, patience: 5) ? name : "no dialog (no album shown)"
        case .deleteAlbum:
            try session.action("delete-album")
            guard waitFor(seconds: 5, { session.windowID(named: "^Delete Album") != nil }) else { return "no dialog (no album shown)" }
            if chance(0.3) {
                try pressKey("Escape", window: "^Delete Album")
                return "cancelled"
            }
            return try pressButton(startingWith: "_Delete", patience: 20) ? "confirmed" : "no Delete button"
        case .chooseCover:
            try session.action("choose-album-cover")
            return try answerPicker("^Choose the Cover of")
        case .addPhotosToAlbum:
            try session.action("add-photos-to-album")
            return try answerPicker("^Choose Photos or Videos$")
        case .importFiles:
            return try importFiles()
        case .picker:
            return try runPicker()
        case .preferences:
            try session.action("preferences")
            guard waitFor(seconds: patience, { session.windowID(named: "^Preferences$") != nil }) else {
                fail("no Preferences window after app.preferences")
                return ""
            }
            for _ in 0..<number(0...3) { try pressKey(any(["Tab", "Down", "space"]), window: "^Preferences$") }
            try closeWindow("^Preferences$")
        case .setting:
            let (key, value) = any([("ask-before-saving", "true"), ("ask-before-saving", "false"), ("ask-before-saving", "false"),
                                    ("burst-count", String(number(2...4))), ("countdown", any(["0", "0", "3"])),
                                    ("mirror-front", any(["true", "false"])), ("shutter-sound", any(["true", "false"]))])
            try session.gsettings(["set", "io.github.pinhole.Camera", key, value])
            return "\(key)=\(value)"
        case .confirmPhoto:
            let choice = any(["save-photo", "save-photo", "discard-photo", "undo-discard"])
            try session.action(choice)
            return choice
        case .shortcuts:
            try pressKey("ctrl+question")
            if waitFor(seconds: patience, { session.windowID(named: "^Keyboard shortcuts$") != nil }) {
                try closeWindow("^Keyboard shortcuts$")
            } else {
                fail("no window titled Keyboard shortcuts after Ctrl+?")
            }
        case .about:
            try session.action("about")
            guard waitFor(seconds: 20, { session.windowID(named: "^About") != nil }) else { return "no window" }
            try closeWindow("^About")
        case .resize:
            let width = number(360...1240), height = number(420...780)
            let window = try #require(session.windowID())
            _ = try runTool("xdotool", ["windowsize", window, String(width), String(height)], environment: ["DISPLAY": session.display])
            usleep(300_000)
            return "\(width)x\(height)"
        case .minimise:
            return try minimise()
        case .fault:
            let camera = any(["front", "back"]), kind = any(["unplugged", "unplugged", "busy", "fatal"])
            session.send("\(camera) \(kind) on")
            faults.insert("\(camera) \(kind)")
            usleep(UInt32(number(200...2000)) * 1000)
            return "\(camera) \(kind)"
        case .clearFaults:
            let cleared = faults.sorted().joined(separator: ", ")
            session.send("reset")
            let fatal = faults.contains { $0.hasSuffix("fatal") }
            faults = []
            // A camera that stopped working is started again by Retry on its page, as a person does.
            if fatal, try pressButton(startingWith: "Retry", patience: 5) { return cleared + "; Retry pressed" }
            return cleared
        case .retry:
            return try pressButton(startingWith: "Retry", patience: 2) ? "pressed" : "no Retry shown"
        case .quitAndRelaunch:
            return try quitAndRelaunch()
        }
        return ""
    }

    // MARK: Input through the window manager

    /// Raises and focuses the window `id` as a person's click on it would: through mutter
    /// (_NET_ACTIVE_WINDOW; a focus set directly is taken back by the window manager), waiting
    /// until mutter says it is active.
    private func activate(_ id: String) throws {
        let x = ["DISPLAY": session.display]
        _ = try runTool("xdotool", ["windowactivate", id], environment: x)
        _ = waitFor(seconds: 5) { (try? runTool("xdotool", ["getactivewindow"], environment: x))?.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == id }
    }

    /// Presses `name` in the app's window (or the window titled `title`, a regular expression),
    /// activated first; real X input to the focused window, then half a second for the next input.
    private func pressKey(_ name: String, window title: String? = nil) throws {
        // Looked for again for a few seconds: a picker found by title was once not visible half
        // a second later (the replay of seed 1796353223, step 1445), and stayed open unanswered.
        var found = session.windowID(named: title)
        if found == nil { _ = waitFor(seconds: 5) { found = session.windowID(named: title); return found != nil } }
        guard let id = found else {
            log("no window \(title ?? session.title) to press \(name) in")
            return
        }
        try activate(id)
        let result = try runTool("xdotool", ["key", name], environment: ["DISPLAY": session.display])
        if result.status != 0 { log("xdotool key \(name): \(result.stderr)") }
        usleep(500_000)
    }

    /// Types `text` into the window titled `title` (activated first), as a keyboard does.
    private func type(_ text: String, window title: String) throws {
        guard let id = session.windowID(named: title) else { return }
        try activate(id)
        _ = try runTool("xdotool", ["type", "--delay", "30", text], environment: ["DISPLAY": session.display])
        usleep(500_000)
    }

    /// Whether mutter has the window `id` minimised (ICCCM's WM_STATE Iconic: a compositing
    /// mutter keeps a minimised window mapped, so xdotool still calls it visible).
    private func isMinimised(_ id: String) -> Bool {
        (try? runTool("xprop", ["-id", id, "WM_STATE"], environment: ["DISPLAY": session.display]))?.stdout.contains("Iconic") == true
    }

    // MARK: Helpers

    /// The app's own dialogs and windows an action opens and closes (New Album, Preferences…).
    static let dialogs = "^(New Album|Rename Album|Delete Album.*|Choose the Cover of.*|Choose Photos or Videos|Preferences|About.*|Keyboard shortcuts)$"

    /// Closes a dialog an earlier action left open (one that came after the action stopped
    /// waiting for it, on a slow machine), as a person would before going on, and says so.
    private func tidy() throws {
        guard let left = session.windowID(named: Monkey.dialogs) else { return }
        let name = (try? runTool("xdotool", ["getwindowname", left], environment: ["DISPLAY": session.display]))?.stdout
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        log("a window left open: \(name); closed with Escape")
        try closeWindow("^" + NSRegularExpression.escapedPattern(for: name) + "$")
    }

    /// The albums in the index.
    private func albumNames() throws -> [String] {
        try AppSuites.GalleryTests.index(session, "SELECT name FROM albums ORDER BY name").split(separator: "\n").map(String.init)
    }

    /// The gallery's cells now (AT-SPI).
    private func cellCount() throws -> Int { try AppSuites.GalleryTests.cells(session) }

    /// Presses the first push button whose accessible name starts with `prefix`, if one shows
    /// within `patience` seconds (GTK 4.8 names a mnemonic button "_Label Label").
    private func pressButton(startingWith prefix: String, patience: Double) throws -> Bool {
        let text = AppSuites.AppStateTests.pythonString(prefix)
        let result = try session.accessibility("""
        until = time.time() + \(patience)
        while time.time() < until:
            try:
                found = [n for n in walk(app()) if n.getRole() == pyatspi.ROLE_PUSH_BUTTON and (n.name or '').startswith(\(text))]
                if found and found[0].queryAction().doAction(0):
                    print('pressed')
                    break
            except Exception:
                pass
            time.sleep(0.3)
        else:
            print('absent')
        """)
        usleep(300_000)
        return result.stdout.contains("pressed")
    }

    /// Answers the dialog titled `title` (a regular expression) asking for a name: types `name`
    /// (over the whole text with `clearing`) and Enter, or Escape. False when no such dialog came
    /// within `patience` seconds.
    private func answerNameDialog(_ title: String, with name: String, clearing: Bool, patience: Double) throws -> Bool {
        guard waitFor(seconds: patience, { session.windowID(named: title) != nil }) else { return false }
        if clearing { try pressKey("ctrl+a", window: title) }
        try type(name, window: title)
        if chance(0.15) {
            try pressKey("Escape", window: title)
        } else {
            try pressKey("Return", window: title)
        }
        if !waitFor(seconds: 20, { session.windowID(named: title) == nil }) { fail("the dialog \(title) stayed open after Enter") }
        return true
    }

    /// Answers the picker window titled `title` (a regular expression) opened by the app, if one
    /// came: Enter on the first item, Ctrl+A and Enter, or Escape.
    private func answerPicker(_ title: String) throws -> String {
        guard waitFor(seconds: 10, { session.windowID(named: title) != nil }) else { return "no picker (no album shown)" }
        let choice = any(["Return", "all", "Escape"])
        if choice == "all" { try pressKey("ctrl+a", window: title) }
        try pressKey(choice == "Escape" ? "Escape" : "Return", window: title)
        if !waitFor(seconds: 20, { session.windowID(named: title) == nil }) {
            fail("the picker \(title) stayed open after \(choice)")
            try closeWindow(title)
        }
        return choice
    }

    /// Closes the window titled `title` as a person does (Escape, again if the first closed a
    /// popover inside it, then Ctrl+W), and says so if it stays.
    private func closeWindow(_ title: String) throws {
        for key in ["Escape", "Escape", "Escape", "ctrl+w"] {
            guard session.windowID(named: title) != nil else { return }
            try pressKey(key, window: title)
            if waitFor(seconds: 5, { session.windowID(named: title) == nil }) { return }
        }
        fail("the window \(title) would not close (Escape three times, then Ctrl+W)")
    }

    /// Empty Trash on the Recently Deleted page, confirmed (or the confirmation cancelled): what
    /// was in the Trash and is gone afterwards was deleted for good by the person.
    private func emptyTrash() throws -> String {
        let trash = session.folder.path("data/Trash/files")
        let before = MoreAppSuites.ImportTests.everything(in: trash)
        guard try pressButton(startingWith: "_Empty Trash", patience: 5) else { return "no Empty Trash button (empty)" }
        let cancel = chance(0.3)
        guard try pressButton(startingWith: cancel ? "_Cancel" : "_Delete", patience: 20) else {
            fail("no confirmation after Empty Trash")
            return ""
        }
        if cancel { return "cancelled" }
        _ = waitFor(seconds: 30) { Set(MoreAppSuites.ImportTests.everything(in: trash)).isDisjoint(with: before) }
        let gone = Set(before).subtracting(MoreAppSuites.ImportTests.everything(in: trash))
        deletedForGood += gone
        return "\(gone.count) deleted for good"
    }

    /// Imports new files over D-Bus (as the file chooser and a drop do): one to three new PNGs,
    /// sometimes a copy of a library photo (a duplicate) and a damaged JPEG.
    private func importFiles() throws -> String {
        let folder = session.folder.path("incoming")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [String] = []
        for _ in 0..<number(1...3) {
            importsMade += 1
            let path = folder + "/monkey-\(importsMade).png"
            let colour = "rgb(\(number(0...255)),\(number(0...255)),\(number(0...255)))"
            // Each one new to the library: its own width.
            let made = try runTool("convert", ["-size", "\(64 + importsMade)x48", "xc:" + colour, "PNG24:" + path])
            try #require(made.status == 0, "convert: \(made.stderr)")
            files.append(path)
        }
        if chance(0.3), let photo = session.files(in: session.photos).randomElement(using: &random) {
            let copy = folder + "/monkey-copy-\(importsMade).jpg"
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: photo, toPath: copy)
            files.append(copy)
        }
        if chance(0.2), let photo = session.files(in: session.photos).randomElement(using: &random),
           let bytes = FileManager.default.contents(atPath: photo) {
            let damaged = folder + "/monkey-damaged-\(importsMade).jpg"
            try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: damaged))
            files.append(damaged)
        }
        try session.action("import-files", variant: "[" + files.map { "'\($0)'" }.joined(separator: ", ") + "]")
        page = .gallery
        return files.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " ")
    }

    /// `pinhole-camera --pick` from another program, answered by Enter, Ctrl+A and Enter, or
    /// Escape: it must print paths of library files and exit 0, or print nothing and exit 1.
    private func runPicker() throws -> String {
        let type = any([[], [], ["--type", "photo"], ["--type", "video"]])
        let multiple = chance(0.4)
        let picker = try BackgroundProcess([builtProduct("pinhole-camera"), "--pick"] + (multiple ? ["--multiple"] : []) + type, environment: session.environment)
        let title = "^Choose (a Photo or Video|a Photo|a Video|Photos or Videos|Photos|Videos)$"
        guard waitFor(seconds: patience, { session.windowID(named: title) != nil }) else {
            fail("no picker window from pinhole-camera --pick: \(picker.errors.suffix(400))")
            picker.stop()
            return ""
        }
        let choice = any(["Return", "all", "Escape"])
        if choice == "all" { try pressKey("ctrl+a", window: title) }
        try pressKey(choice == "Escape" ? "Escape" : "Return", window: title)
        let status = picker.waitForExit(seconds: patience)
        let printed = picker.output.split(separator: "\n").map(String.init)
        scanCriticals(picker.errors, source: "the picker")
        switch status {
        case 0:
            if printed.isEmpty || !printed.allSatisfy({ $0.hasPrefix(session.folder.path("library")) }) {
                fail("the picker exited 0 printing \(printed)")
            }
        case 1:
            if !printed.isEmpty { fail("the picker exited 1 printing \(printed)") }
        default:
            fail("the picker exited \(status.map(String.init) ?? "not at all") after \(choice): \(picker.errors.suffix(600))")
        }
        return "\(type.joined(separator: " "))\(multiple ? " --multiple" : "") \(choice): exit \(status.map(String.init) ?? "none"), \(printed.count) printed"
    }

    /// Minimises the window through mutter, sometimes asks for a photo over D-Bus while it is,
    /// and restores it after up to 3 s.
    private func minimise() throws -> String {
        let window = try #require(session.windowID())
        let x = ["DISPLAY": session.display]
        _ = try runTool("xdotool", ["windowminimize", window], environment: x)
        let hidden = waitFor(seconds: patience) { isMinimised(window) }
        var detail = hidden ? "minimised" : "did not minimise"
        if !hidden { fail("the window did not minimise through mutter (WM_STATE not Iconic)") }
        usleep(UInt32(number(300...3000)) * 1000)
        if chance(0.3) {
            try session.action("take-photo")
            detail += ", take-photo while minimised"
        }
        try activate(window)
        if !waitFor(seconds: patience, { !isMinimised(window) }) { fail("the window stayed minimised after windowactivate") }
        return detail
    }

    /// Quits over D-Bus (app.quit: whatever is under way is saved first) and starts the app again.
    private func quitAndRelaunch() throws -> String {
        guard let app = session.app else { return "no app" }
        try session.action("quit")
        let status = quitStatus(app, patience: 120)
        earlierErrors += app.errors
        digest(String(decoding: app.errors.utf8.dropFirst(scanned), as: UTF8.self))
        scanned = 0
        if let status, status != 0 { fail("the app exited \(status) after app.quit: \(app.errors.suffix(800))") }
        session.forgetApp()
        faults = []
        try session.launch()
        launches += 1
        page = .camera
        return "exit \(status.map(String.init) ?? "none"), relaunched"
    }

    /// The exit status of the app told to quit, waiting up to `patience` seconds; nil if it did
    /// not exit, after saying why: its threads (with `PINHOLE_MONKEY_BACKTRACE=1` and gdb), and
    /// the work in flight it names when two SIGTERMs cut its quit short.
    private func quitStatus(_ app: BackgroundProcess, patience: Double) -> Int32? {
        if waitFor(seconds: patience, { app.hasExited }) { return app.waitForExit(seconds: 1) }
        if ProcessInfo.processInfo.environment["PINHOLE_MONKEY_BACKTRACE"] == "1", FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb"),
           let trace = try? runTool("/usr/bin/gdb", ["-p", String(app.pid), "-batch", "-ex", "thread apply all bt"]) {
            log("the app's threads, hung in its quit:\n" + trace.stdout)
        }
        kill(app.pid, SIGTERM)
        usleep(1_000_000)
        kill(app.pid, SIGTERM)
        _ = waitFor(seconds: 20) { app.hasExited }
        let said = app.errors.split(separator: "\n").filter { $0.hasPrefix("pinhole-camera: ") }.suffix(10)
        fail("the app did not exit within \(Int(patience)) s of app.quit; after two SIGTERMs its last words were: \(said.joined(separator: " | "))")
        return nil
    }

    // MARK: Checks

    /// Whether the app is still running (said as a failure if not), and scans what it said since
    /// the last step for critical warnings.
    private func checkAlive() -> Bool {
        guard let app = session.app else { return false }
        let errors = app.errors
        digest(String(decoding: errors.utf8.dropFirst(scanned), as: UTF8.self))
        scanned = errors.utf8.count
        if app.hasExited {
            fail("the app exited by itself: \(app.errors.suffix(1500))")
            return false
        }
        // Answering D-Bus is the main loop turning: a hung app answers nothing.
        let answered = (try? waitFor(seconds: patience) { try session.actionState("mode") != nil }) ?? false
        if !answered { fail("the app does not answer D-Bus (org.gtk.Actions.Describe) within \(Int(patience)) s") }
        return answered
    }

    /// Reads what the app wrote on standard error since the last look: critical warnings are
    /// failures, what it told the person (toasts, pages) goes into the log, its photos and videos
    /// saved are counted.
    private func digest(_ news: String) {
        scanCriticals(news, source: "the app")
        for line in news.split(separator: "\n") {
            if line.hasPrefix("pinhole-camera: ") { log("  the app said: " + line.dropFirst("pinhole-camera: ".count)) }
            if line.hasPrefix("pinhole-bench: photo-saved ") { saidSaved.photos += 1 }
            if line.hasPrefix("pinhole-bench: video-saved ") { saidSaved.videos += 1 }
            // The monkey never closes the camera window (it quits over D-Bus): a close request
            // is a key or a click gone astray, or the window manager's, and the log says when.
            if line.hasPrefix("pinhole-bench: window-close-request ") { log("  the camera window was asked to close: " + line) }
        }
    }

    /// Records every critical warning in `text`.
    private func scanCriticals(_ text: String, source: String) {
        for line in text.split(separator: "\n") where Monkey.criticals.contains(where: { line.contains($0) }) {
            fail("\(source) said: \(line)")
        }
    }

    /// Stops what is under way, quits the app over D-Bus, and checks the library; returns the figures.
    private func finish() throws -> String {
        if !faults.isEmpty {
            session.send("reset")
            faults = []
        }
        var figures: [String] = []
        if let app = session.app {
            let errors = app.errors
            scanCriticals(String(decoding: errors.utf8.dropFirst(scanned), as: UTF8.self), source: "the app")
            try session.action("quit")
            let status = quitStatus(app, patience: 180)
            earlierErrors += app.errors
            scanCriticals(String(decoding: app.errors.utf8.dropFirst(errors.utf8.count), as: UTF8.self), source: "the app while quitting")
            if let status, status != 0 { fail("the app exited \(status) after app.quit: \(app.errors.suffix(800))") }
            session.forgetApp()
        }
        let errors = earlierErrors
        let lines = errors.split(separator: "\n")
        let photosSaved = lines.filter { $0.hasPrefix("pinhole-bench: photo-saved ") }.count
        let videosSaved = lines.filter { $0.hasPrefix("pinhole-bench: video-saved ") }.count
        let toasts = lines.filter { $0.hasPrefix("pinhole-camera: ") }.map { String($0.dropFirst("pinhole-camera: ".count)) }
        let imported = toasts.compactMap { toast -> Int? in
            let count = toast.hasPrefix("Import cancelled: ") ? String(toast.dropFirst("Import cancelled: ".count)) : toast
            guard count.hasSuffix(" imported") else { return nil }
            return Int(count.dropLast(" imported".count))
        }.reduce(0, +)
        for toast in toasts where toast.contains("was not saved") || toast.contains("was not added to the library") {
            fail("the app said: \(toast)")
        }

        // Where the items are: the library's folders, its Trash, or deleted for good.
        let trashFiles = session.folder.path("data/Trash/files")
        let photos = session.files(in: session.photos), videos = session.files(in: session.videos)
        let trashed = MoreAppSuites.ImportTests.everything(in: trashFiles).filter { !$0.hasPrefix(".") }.map { trashFiles + "/" + $0 }
        func isVideo(_ path: String) -> Bool { ["mp4", "webm", "mkv", "mov"].contains(URL(fileURLWithPath: path).pathExtension.lowercased()) }
        let photoCount = photos.count + trashed.filter { !isVideo($0) }.count + deletedForGood.filter { !isVideo($0) }.count
        let videoCount = videos.count + trashed.filter(isVideo).count + deletedForGood.filter(isVideo).count
        if photoCount != photosSaved + imported {
            fail("photos: the app said it saved \(photosSaved) and imported \(imported), but there are \(photos.count) in the library, "
                 + "\(trashed.filter { !isVideo($0) }.count) in the Trash and \(deletedForGood.filter { !isVideo($0) }.count) deleted for good")
        }
        if videoCount != videosSaved {
            fail("videos: the app said it saved \(videosSaved), but there are \(videos.count) in the library, "
                 + "\(trashed.filter(isVideo).count) in the Trash and \(deletedForGood.filter(isVideo).count) deleted for good")
        }

        // Every photo decodes by exiftool's reading (a size, no error), every video by FFmpeg.
        let stills = photos + trashed.filter { !isVideo($0) }
        if !stills.isEmpty {
            let tags = try ExifTool.locate().tags(stills.map { URL(fileURLWithPath: $0) }, options: ["-n", "-G", "-a", "-File:ImageWidth", "-File:ImageHeight", "-PNG:ImageWidth", "-ExifTool:Error", "-ExifTool:Warning", "-SourceFile"])
            for entry in tags {
                let file = entry["SourceFile"] as? String ?? "?"
                let width = jsonNumber(entry["File:ImageWidth"]) ?? jsonNumber(entry["PNG:ImageWidth"]) ?? 0
                if width <= 0 || entry["ExifTool:Error"] != nil { fail("\(file) does not read: \(entry)") }
            }
            if tags.count != stills.count { fail("exiftool read \(tags.count) of \(stills.count) photos") }
        }
        for movie in videos + trashed.filter(isVideo) {
            let duration = Double((try? ffprobe(movie, select: nil, "format=duration"))?["duration"] ?? "") ?? 0
            if duration <= 0 { fail("\(movie) has no duration by ffprobe") }
            if !(try decodesCleanly(movie)) { fail("\(movie) does not decode cleanly") }
        }

        // The index: whole, agreeing with the files, and with the Trash.
        let integrity = try AppSuites.GalleryTests.index(session, "PRAGMA integrity_check")
        if integrity != "ok" { fail("PRAGMA integrity_check: \(integrity)") }
        let verify = try runTool(builtProduct("pinhole"), ["library", "verify"], environment: session.environment)
        if verify.status != 0 { fail("pinhole library verify (exit \(verify.status)): \(verify.stdout) \(verify.stderr)") }
        let trashRows = Set(try AppSuites.GalleryTests.index(session, "SELECT trash_name FROM trashed").split(separator: "\n").map(String.init))
        let trashNames = Set(trashed.map { URL(fileURLWithPath: $0).lastPathComponent })
        if trashRows != trashNames {
            fail("the Trash and the index disagree: rows without a file \(trashRows.subtracting(trashNames).sorted()), files without a row \(trashNames.subtracting(trashRows).sorted())")
        }
        let rows = try AppSuites.GalleryTests.index(session, "SELECT count(*) FROM assets")

        let kinds = counts.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key.rawValue < $1.key.rawValue) }
            .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
        let sayings = Dictionary(grouping: toasts.map { $0.replacingOccurrences(of: #"\d+"#, with: "N", options: .regularExpression) }, by: { $0 })
            .map { ($0.key, $0.value.count) }.sorted { $0.1 > $1.1 }.map { "\($0.1)× \($0.0)" }.joined(separator: "; ")
        figures.append("monkey figures: \(plan), \(step - 1) actions in \(Int(Date().timeIntervalSince(started))) s, \(launches) launch(es)")
        figures.append("actions by kind: \(kinds)")
        figures.append("photos saved \(photosSaved), videos saved \(videosSaved), imported \(imported); at the end \(photos.count) photos and "
                       + "\(videos.count) videos in the library (\(rows) rows), \(trashed.count) in the Trash, \(deletedForGood.count) deleted for good by Empty Trash")
        figures.append("critical warnings: \(failures.filter { $0.contains("CRITICAL") }.count); failures: \(failures.count)")
        figures.append("what the app said (toasts, counted): \(sayings)")
        for line in figures { log(line) }
        return figures.joined(separator: "\n")
    }
}
