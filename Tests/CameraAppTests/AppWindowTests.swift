import Capture
import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// The app under Xvfb, driven with real X input (xdotool), D-Bus actions and the accessibility
/// tree, checked by its pixels and by the files it writes (read back by exiftool and ffprobe).
extension AppSuites {
@Suite("The camera app, headless")
struct AppWindowTests {
    /// The colour bars left to right as the test camera draws them (75 %: white, yellow, cyan,
    /// green, magenta, red, blue, black).
    static let bars: [(Int, Int, Int)] = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0),
                                          (191, 0, 191), (191, 0, 0), (0, 0, 191), (0, 0, 0)]

    /// The bar colours seen across the preview: the 960×720 window at (0, 0) has a 5-pixel
    /// shadow, and a 16:9 picture fills its width, so the bars' centres are at known columns.
    static func previewBars(_ shot: PixelBuffer) -> [(r: Int, g: Int, b: Int)] {
        (0..<8).map { i in shot.mean(x: 5 + 950 * (2 * i + 1) / 16, y: 300) }
    }

    /// Whether `seen` matches the bars in order (or mirrored), each channel within 24 levels.
    static func matches(_ seen: [(r: Int, g: Int, b: Int)], mirrored: Bool) -> Bool {
        let wanted = mirrored ? bars.reversed() : bars
        return zip(seen, wanted).allSatisfy { abs($0.r - $1.0) <= 24 && abs($0.g - $1.1) <= 24 && abs($0.b - $1.2) <= 24 }
    }

    /// Waits for the preview to show the test camera's bars.
    static func waitForPreview(_ session: AppSession, mirrored: Bool) throws -> Bool {
        try waitFor(seconds: 30) { matches(previewBars(try session.screenshot()), mirrored: mirrored) }
    }

    @Test("the window shows the live front camera mirrored; Space saves an unmirrored photo at the largest size into the library")
    func previewAndPhoto() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true), session.describePreview())
        // Live: the moving square's band changes between two screenshots.
        let first = try session.screenshot()
        usleep(600_000)
        let second = try session.screenshot()
        let band = (0..<40).map { 20 + $0 * 23 }
        let changed = band.filter { x in
            let a = first.mean(x: x, y: 560, side: 4), b = second.mean(x: x, y: 560, side: 4)
            return abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b) > 60
        }
        #expect(!changed.isEmpty, "the preview did not move")
        try session.saveScreenshot(to: session.folder.path("window.png"))
        if let target = ProcessInfo.processInfo.environment["PINHOLE_SCREENSHOT"] {
            _ = try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: session.folder.path("window.png"), toPath: target)
        }

        try session.key("space")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 }, "no photo in \(session.photos)")
        let photo = try #require(session.files(in: session.photos).first)
        #expect(photo.hasSuffix(".jpg"))
        let tags = try ExifTool.locate().tags(URL(fileURLWithPath: photo))
        #expect(jsonNumber(tags["File:ImageWidth"]) == 3840 && jsonNumber(tags["File:ImageHeight"]) == 2160, "\(tags["File:ImageWidth"] ?? "")")
        #expect(jsonText(tags["EXIF:Make"]) != nil)
        let pixels = try JPEGDecoder().decode(try session.folder.read(URL(fileURLWithPath: photo)), scale: .eighth)
        let seen = (0..<8).map { i in pixels.mean(x: pixels.width * (2 * i + 1) / 16, y: pixels.height / 3) }
        #expect(Self.matches(seen, mirrored: false), "saved photo bars: \(seen)")
        // The newest item's thumbnail button appears.
        let found = try session.accessibility("print(find('Open Gallery').name)")
        #expect(found.status == 0, "\(found.stderr)")
    }

    @Test("switching camera (C) shows the back camera: not mirrored, its square blue")
    func switchCamera() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        try session.key("c")
        #expect(try Self.waitForPreview(session, mirrored: false), session.describePreview())
        // The square: blue on the back camera, somewhere along its band.
        let shot = try session.screenshot()
        let blue = (0..<95).map { shot.mean(x: 10 + $0 * 10, y: 560, side: 6) }.contains { $0.b > 180 && $0.r < 80 && $0.g < 150 && $0.g > 60 }
        #expect(blue, "no blue square in the back camera's picture")
    }

    /// Whether the bars run down the preview in order, white at the top (the picture turned a
    /// quarter clockwise): read down a column just right of the shutter button.
    static func barsDownTheMiddle(_ shot: PixelBuffer) -> Bool {
        var seen: [Int] = []
        for y in stride(from: 60, through: 712, by: 4) {
            let p = shot.mean(x: 560, y: y, side: 4)
            guard let bar = bars.firstIndex(where: { abs(p.r - $0.0) <= 24 && abs(p.g - $0.1) <= 24 && abs(p.b - $0.2) <= 24 }) else { continue }
            if seen.last != bar { seen.append(bar) }
        }
        return seen == Array(0..<8)
    }

    @Test("held turned (a stand-in accelerometer says left-up): the back camera's preview turns a quarter, the photo carries it as EXIF orientation; turned back, the preview follows")
    func followsRotation() throws {
        let sensor = try FakeSensorBus(orientation: "left-up", publish: false)
        let session = try AppSession(preferences: ["last-camera": "'\(VirtualCamera.backID)'"], extra: ["DBUS_SYSTEM_BUS_ADDRESS": sensor.address])
        try session.launch()
        #expect(try waitFor(seconds: 30) { Self.barsDownTheMiddle(try session.screenshot()) }, session.describePreview())
        try session.key("space")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 }, "no photo in \(session.photos)")
        let photo = try #require(session.files(in: session.photos).first)
        let tags = try ExifTool.locate().tags(URL(fileURLWithPath: photo))
        #expect(jsonNumber(tags["EXIF:Orientation"]) == 6, "a quarter clockwise is EXIF orientation 6: \(tags["EXIF:Orientation"] ?? "none")")
        try sensor.turn("normal")
        #expect(try Self.waitForPreview(session, mirrored: false), session.describePreview())
    }

    @Test("at a phone's 360 pixels wide (decoration layout ':close', as phone shells set it) the window fits: the header squeezes, the preview and the shutter stay in view")
    func narrow() throws {
        let session = try AppSession()
        let settings = session.folder.path("config/gtk-4.0")
        try FileManager.default.createDirectory(atPath: settings, withIntermediateDirectories: true)
        try "[Settings]\ngtk-decoration-layout=:close\n".write(toFile: settings + "/settings.ini", atomically: true, encoding: .utf8)
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        let window = try #require(session.windowID())
        let x = ["DISPLAY": session.display]
        _ = try runTool("xdotool", ["windowsize", window, "360", "640"], environment: x)
        // What GTK asks of the window manager: no more than 360 pixels.
        let hints = try runTool("xprop", ["-id", window, "WM_NORMAL_HINTS"], environment: x).stdout
        let minimum = hints.split(separator: "\n").first { $0.contains("minimum size") }?.split(separator: " ").compactMap { Int($0) }.first
        #expect((minimum ?? .max) <= 360, "\(hints)")
        #expect(waitFor(seconds: 30) { (try? runTool("xwininfo", ["-id", window], environment: x).stdout.contains("Width: 360")) == true })
        // The bars fill the narrow picture's width (some row of it, wherever it sits).
        let fits = try waitFor(seconds: 30) {
            let shot = try session.screenshot()
            return stride(from: 80, to: 600, by: 6).contains { y in
                Self.matches((0..<8).map { i in shot.mean(x: 5 + 350 * (2 * i + 1) / 16, y: y, side: 4) }, mirrored: true)
            }
        }
        #expect(fits, "the preview does not fill the 360-pixel window")
        let shutter = try session.accessibility("e = find('Take Photo', pyatspi.ROLE_PUSH_BUTTON).queryComponent().getExtents(pyatspi.WINDOW_COORDS); print(e.x, e.y, e.width, e.height)")
        let box = shutter.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        #expect(box.count == 4 && box[0] >= 0 && box[0] + box[2] <= 360 && box[1] + box[3] <= 640, "shutter at \(shutter.stdout) \(shutter.stderr)")
        // Grid and filter moved into one menu.
        #expect(try session.accessibility("print(find('More Controls').name)").status == 0)
    }

    @Test("in dark style (libadwaita's prefer-dark) the header is dark and the preview unchanged")
    func darkStyle() throws {
        let session = try AppSession(extra: ["ADW_DEBUG_COLOR_SCHEME": "prefer-dark"])
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        let header = try session.screenshot().mean(x: 300, y: 30)
        #expect(header.r < 80 && header.g < 80 && header.b < 80, "header \(header)")
    }

    @Test("a mono filter turns the preview and the saved photo grey (the shutter clicked with the mouse)")
    func monoFilter() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        try session.action("filter", "mono")
        let grey = try waitFor(seconds: 20) {
            let seen = Self.previewBars(try session.screenshot())
            return seen.allSatisfy { abs($0.r - $0.g) <= 3 && abs($0.g - $0.b) <= 3 } && Set(seen.map { $0.g / 16 }).count >= 4
        }
        #expect(grey, session.describePreview())
        // The shutter button, clicked: bottom centre of the 960×720 window.
        try session.click(x: 480, y: 656)
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 })
        let photo = try #require(session.files(in: session.photos).first)
        let pixels = try JPEGDecoder().decode(try session.folder.read(URL(fileURLWithPath: photo)), scale: .eighth)
        for i in 0..<8 {
            let p = pixels.mean(x: pixels.width * (2 * i + 1) / 16, y: pixels.height / 3)
            #expect(abs(p.r - p.g) <= 4 && abs(p.g - p.b) <= 4, "bar \(i) of the saved photo: \(p)")
        }
    }

    @Test("flash on with the front camera: the window turns white while the photo is taken")
    func screenFlash() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        try session.action("flash", "on")
        usleep(300_000)
        // Screenshots in the background from before the shutter until the photo is saved.
        let white = LockedFlag()
        let done = LockedFlag()
        let watcher = Thread {
            while !done.value {
                if let shot = try? session.screenshot() {
                    let points = [(200, 200), (480, 300), (760, 500), (480, 600)].map { shot.mean(x: $0.0, y: $0.1) }
                    if points.allSatisfy({ $0.r > 245 && $0.g > 245 && $0.b > 245 }) { white.value = true }
                }
            }
        }
        watcher.start()
        try session.key("space")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 })
        usleep(300_000)
        done.value = true
        #expect(white.value, "no white frame was seen while the photo was taken")
        #expect(try Self.waitForPreview(session, mirrored: true), "the preview came back after the flash")
    }

    @Test("the self-timer delays the photo, and Escape cancels it")
    func countdown() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        try session.key("t")  // the self-timer key: off → 3 s
        try session.key("space")
        let start = Date()
        // The count is on screen: white digits on a dark rounded plate in the middle of the preview.
        // (The bars are at most 191; the frame label's white is at the top.)
        let shot = try session.screenshot()
        let white = (400..<560).flatMap { x in stride(from: 250, to: 500, by: 2).map { shot.bgraPixel(x: x, y: $0) } }.filter { $0.r > 235 && $0.g > 235 && $0.b > 235 }
        #expect(white.count > 100, "no countdown in the middle of the preview (\(white.count) white pixels)")
        #expect(session.files(in: session.photos).isEmpty || Date().timeIntervalSince(start) >= 3)
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 })
        #expect(Date().timeIntervalSince(start) >= 2.9, "the photo came before the 3 s timer ran out")
        // Escape cancels the next countdown: no second photo.
        try session.key("space")
        try session.key("Escape")
        usleep(4_500_000)
        #expect(session.files(in: session.photos).count == 1)
    }

    @Test("the shutter is found by its accessible name and pressed through AT-SPI")
    func accessibleShutter() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        let pressed = try session.accessibility("find('Take Photo', pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 })
    }

    @Test("video mode records with Space; ffprobe reads the movie's length and its sound")
    func recordVideo() throws {
        let sound = try PrivateSoundServer()
        let session = try AppSession(extra: ["PULSE_SERVER": sound.address])
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        try session.key("v")
        let started = Date()
        try session.key("space")
        // The recording state is in the accessibility tree ("Stop Recording").
        let recording = try session.accessibility("print(find('Stop Recording', pyatspi.ROLE_PUSH_BUTTON).name)")
        #expect(recording.status == 0, "\(recording.stderr)")
        usleep(UInt32(max(0, 3 - Date().timeIntervalSince(started)) * 1_000_000))
        try session.key("space")
        let held = Date().timeIntervalSince(started)
        // Finished: the shutter says "Start Recording" again (the file is written while recording,
        // so its presence proves nothing).
        let stopped = try session.accessibility("print(find('Start Recording', pyatspi.ROLE_PUSH_BUTTON).name)")
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let movie = try #require(session.files(in: session.videos).first { $0.hasSuffix(".mp4") })
        // The library indexes it (the file is complete: a regular MP4 with a video and a sound track).
        #expect(try decodesCleanly(movie))
        let format = try ffprobe(movie, select: nil, "format=duration")
        let duration = Double(format["duration"] ?? "") ?? 0
        let streams = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name,start_time,duration,nb_frames", "-of", "compact", movie])
        #expect(duration > 2 && duration < held + 1.5, "duration \(duration) s for about \(held) s held: \(streams.stdout)")
        let audio = try ffprobe(movie, select: "a:0", "stream=codec_name")
        #expect(audio["codec_name"] == "aac", "\(audio); the app said: \(session.app?.errors ?? "")")
    }

    @Test("while recording the app keeps the system from suspending (Inhibit to a stand-in session manager), and lets it again when the recording stops")
    func inhibitsSuspend() throws {
        let session = try AppSession(preferences: ["mode": "'video'"])
        let fixture = AppSession.repository + "/Tests/Fixtures/fake-session-manager.py"
        let manager = try BackgroundProcess(["/usr/bin/python3", fixture], environment: ["DBUS_SESSION_BUS_ADDRESS": session.busAddress])
        defer { manager.stop() }
        try #require(manager.waitForOutput(containing: "ready"), "the stand-in session manager did not start: \(manager.errors)")
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        #expect(!manager.output.contains("inhibit "), "inhibited before recording: \(manager.output)")
        try session.key("space")
        // GTK_APPLICATION_INHIBIT_SUSPEND is 4; the app ID and the reason come with it.
        #expect(manager.waitForOutput(containing: "inhibit 1 4 io.github.pinhole.Camera Recording a video"), "\(manager.output)")
        #expect(try session.accessibility("print(find('Stop Recording', pyatspi.ROLE_PUSH_BUTTON).name)").status == 0)
        try session.key("space")
        #expect(manager.waitForOutput(containing: "uninhibit 1"), "\(manager.output)")
    }

    @Test("the choices are stateful actions: D-Bus (as menus) sees the model's flash, timer, filter, grid and mode whatever changed them; the mode is greyed while recording")
    func statefulChoices() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        #expect(try session.actionState("flash")?.state == "'off'" && session.actionState("toggle-grid")?.state == "false")
        try session.action("flash", "auto")
        try session.action("timer", "5")
        try session.action("filter", "sepia")
        try session.key("g")
        try session.key("v")
        let expected = [("flash", "'auto'"), ("timer", "'5'"), ("filter", "'sepia'"), ("toggle-grid", "true"), ("mode", "'video'")]
        let reached = try waitFor(seconds: 10) { try expected.allSatisfy { try session.actionState($0.0)?.state == $0.1 } }
        let states = try expected.map { "\($0.0): \(try session.actionState($0.0).map { "\($0)" } ?? "no answer")" }
        #expect(reached, "\(states)")
        // A preference changed in a terminal reaches the model, the action and the header.
        try session.gsettings(["set", "io.github.pinhole.Camera", "flash", "on"])
        #expect(try waitFor(seconds: 10) { try session.actionState("flash")?.state == "'on'" }, "gsettings' flash did not reach the app")
        #expect(try session.accessibility("print(find('Flash: On').name)").status == 0, "the flash button's name")
        // A value the model does not take leaves the state at the model's.
        try session.action("timer", "7")
        #expect(try waitFor(seconds: 10) { try session.actionState("timer")?.state == "'0'" })
        try session.key("space")
        #expect(try waitFor(seconds: 20) { try session.actionState("mode")?.enabled == false }, "the mode stayed enabled while recording")
        try session.key("space")
        #expect(try waitFor(seconds: 30) { try session.actionState("mode")?.enabled == true }, "the mode stayed greyed after the recording")
    }
}
}

/// A boolean shared with a background thread.
final class LockedFlag: @unchecked Sendable {
    private var stored = false
    private let lock = NSLock()
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension AppSession {
    /// The preview's bar colours now, for a failure message.
    func describePreview() -> Comment {
        (try? screenshot()).map { "preview bars: \(AppSuites.AppWindowTests.previewBars($0))" } ?? "no screenshot"
    }
}

extension AppSuites.AppWindowTests {
    @Test("the camera controls popover offers the test camera's controls and the photo and video sizes")
    func controlsPopover() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try Self.waitForPreview(session, mirrored: true))
        let listed = try session.accessibility("""
        press('Camera Controls')
        wanted = ['Autofocus', 'Focus', 'Automatic Exposure', 'Exposure Time', 'Brightness', 'Contrast', 'Zoom', 'Photo Size', 'Video Size']
        until = time.time() + 30
        while time.time() < until:
            present = set(n.rsplit(' (', 1)[0] for n in names())
            missing = [n for n in wanted if n not in present]
            if not missing:
                break
            time.sleep(0.5)
        if missing:
            sys.exit('the popover lacks %s' % missing)
        zoom = find('Zoom', pyatspi.ROLE_SLIDER).queryValue()
        print(zoom.minimumValue, zoom.maximumValue)
        """)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("100.0 400.0"), "zoom range: \(listed.stdout)")
    }
}
