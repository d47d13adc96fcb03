import Foundation
import Glibc
import PinholeTestSupport
import Testing
import TestSupport

/// Every camera state has a page in words a person can act on, and the app recovers by itself.
extension AppSuites {
@Suite("The camera app's states, headless")
struct AppStateTests {
    /// Whether the accessibility tree shows a label with `text` (a status page's title).
    static func shows(_ session: AppSession, _ text: String) throws -> Bool {
        let result = try session.accessibility("print(find(\(pythonString(text))).name)")
        return result.status == 0
    }

    static func pythonString(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }

    /// Presses the button `name` of the page shown, through the accessibility tree.
    static func press(_ session: AppSession, _ name: String) throws {
        let pressed = try session.accessibility("find(\(pythonString(name)), pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(pressed.status == 0, "\(name): \(pressed.stderr)")
    }

    /// The camera's states as the window shows them, walked in one launch (the model's side of
    /// each, with its exact words, is `CameraStateTests`, in-process): each page read through
    /// the accessibility tree, its button pressed, the preview's pixels back after each.
    @Test("the camera's states in one launch: \"No Camera Found\" and Use Test Camera; access denied and Retry; busy and back by itself; unplugged, dimmed and back; a fatal error and Retry")
    func cameraStates() throws {
        let session = try AppSession(testCameras: false)
        try session.launch()
        // No camera: the page, the camera off, and its button switches to the front test camera (mirrored).
        #expect(try Self.shows(session, "No Camera Found"))
        #expect(GalleryTests.cameraRunning(session) == false)
        try Self.press(session, "Use Test Camera")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), session.describePreview())
        #expect(GalleryTests.cameraRunning(session) == true)
        // Switched to a camera the user may not open: the page names the group and the command;
        // Retry, once access is given, brings that camera's preview (the back one, unmirrored).
        session.send("back denied on")
        try session.key("c")
        #expect(try Self.shows(session, "Camera Access Denied"))
        #expect(try Self.shows(session, "You may not use the camera. It belongs to the group 'video': join it with `sudo usermod -aG video $USER`, then log out and back in."))
        session.send("reset")
        try Self.press(session, "Retry")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: false), session.describePreview())
        // Switched to a camera another app holds: the page says so; the preview comes back by itself once it is free.
        session.send("front busy on")
        try session.key("c")
        #expect(try Self.shows(session, "The Camera Is in Use by Another App"))
        session.send("reset")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), session.describePreview())
        // Unplugged while running: the preview dims with a message, and resumes when the camera returns.
        session.send("front unplugged on")
        #expect(try Self.shows(session, "Camera disconnected — plug it back in"))
        let dimmed = try waitFor(seconds: 20) { !AppSuites.AppWindowTests.matches(AppSuites.AppWindowTests.previewBars(try session.screenshot()), mirrored: true) }
        #expect(dimmed, "the preview did not dim")
        session.send("front unplugged off")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), "the preview did not resume")
        // A fatal error: the page, and Retry brings the preview back.
        session.send("front fatal on")
        #expect(try Self.shows(session, "The Camera Stopped Working"))
        try Self.press(session, "Retry")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), session.describePreview())
    }

    @Test("access denied by the kernel: run as an unprivileged user, a camera node of group 'video' gives \"Camera Access Denied\" with the group and the command")
    func accessDeniedForReal() throws {
        let session = try AppSession(testCameras: false)
        // A home of the user's own, and a character device named video0 that only root and the
        // group 'video' may open (as a real camera's node, the user not in the group).
        let home = session.folder.path("nobody")
        let dev = home + "/dev"
        for folder in [home, dev, home + "/runtime", home + "/config", home + "/cache", home + "/data", home + "/library"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let node = dev + "/video0"
        let made = try runTool("mknod", ["-m", "660", node, "c", "1", "3"])
        try #require(made.status == 0, "\(made.stderr)")
        _ = try runTool("chgrp", ["video", node])
        try HeadlessSession.writeKeyfile([:], in: home + "/config")
        _ = try runTool("chown", ["-R", "65534:65534", home + "/runtime", home + "/config", home + "/cache", home + "/data", home + "/library"])
        chmod(home + "/runtime", 0o700)
        chmod(session.folder.url.path, 0o755)
        var environment = session.environment.filter { !["DBUS_SESSION_BUS_ADDRESS", "PINHOLE_TEST_CONTROL", "PINHOLE_TEST_CAMERA"].contains($0.key) }
        environment.merge(["HOME": home, "XDG_RUNTIME_DIR": home + "/runtime", "XDG_CONFIG_HOME": home + "/config", "XDG_CACHE_HOME": home + "/cache",
                           "XDG_DATA_HOME": home + "/data", "PINHOLE_LIBRARY": home + "/library", "PINHOLE_DEV_DIR": dev]) { $1 }
        // The user's own session bus (the test's is root's, and a session bus takes its own user only).
        let app = try BackgroundProcess(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/dbus-run-session", "--",
                                         try builtProductForAnyone("pinhole-camera")], environment: environment, ownGroup: true)
        defer { app.stop() }
        #expect(waitFor(seconds: patience) { session.windowID() != nil }, "no window: \(app.errors)")
        let advice = "Camera Access Denied: You may not use the camera. It belongs to the group 'video': join it with `sudo usermod -aG video $USER`, then log out and back in."
        #expect(waitFor(seconds: patience) { app.errors.contains(advice) }, "\(app.errors)")
        #expect(!app.errors.contains("No Camera Found"), "the node is listed although it cannot be opened: \(app.errors)")
    }

    @Test("minimised, the camera is let go (\"Camera Paused\" once the session has stopped); restored, the preview comes back")
    func releasedWhenMinimized() throws {
        let session = try AppSession()
        // Xvfb has no window manager, and GDK reads _NET_WM_STATE only where one says it
        // supports it: a stand-in script says so before the app starts, then sets the state a
        // window manager would on minimising, which GTK 4.8 reads on X11 as minimised.
        let script = AppSession.repository + "/Tests/Fixtures/ewmh-state.py"
        func ewmh(_ arguments: String...) throws {
            let result = try runTool("/usr/bin/python3", [script] + arguments, environment: ["DISPLAY": session.display])
            #expect(result.status == 0, "ewmh-state.py \(arguments): \(result.stderr)")
        }
        try ewmh("supports")
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        let window = try #require(session.windowID())
        try ewmh("hide", window)
        #expect(try Self.shows(session, "Camera Paused"))
        try ewmh("show", window)
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), session.describePreview())
    }

    @Test("a full disk: the photo is not saved, a toast says why, nothing half-written is left; with space again the next photo is saved")
    func diskFull() throws {
        let session = try AppSession()
        let disk = try SmallDisk(at: session.folder.path("small"), size: "2m")
        defer { disk.unmount() }
        let library = disk.path
        session.environment["PINHOLE_LIBRARY"] = library
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        // The library is open (its folders exist); then the disk fills up.
        #expect(waitFor(seconds: 30) { FileManager.default.fileExists(atPath: library + "/Photos") })
        _ = try runTool("dd", ["if=/dev/zero", "of=" + library + "/filler", "bs=64k"])
        try session.key("space")
        let said = "The photo was not saved: the disk is full; free some space"
        #expect(waitFor(seconds: 30) { (session.app?.errors ?? "").contains("pinhole-camera: " + said) }, "\(session.app?.errors ?? "")")
        #expect(try Self.shows(session, said), "the toast on screen")
        #expect(session.files(in: library + "/Photos").isEmpty, "left behind: \(session.files(in: library + "/Photos"))")
        unlink(library + "/filler")
        try session.key("space")
        #expect(waitFor(seconds: 30) { session.files(in: library + "/Photos").count == 1 }, "\(session.files(in: library + "/Photos"))")
    }

    @Test("a library on a read-only disk: a toast says the library cannot be opened and why, and the shutter says the photo was not saved")
    func readOnlyLibrary() throws {
        let session = try AppSession()
        let disk = try SmallDisk(at: session.folder.path("readonly"), size: "1m", readOnly: true)
        defer { disk.unmount() }
        let library = disk.path
        session.environment["PINHOLE_LIBRARY"] = library
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        // Toasts are also written to standard error (the journal): read there, since a toast
        // shown at start-up may be gone before a busy machine gets to look.
        let errors = { session.app?.errors ?? "" }
        #expect(waitFor(seconds: 30) { errors().contains("pinhole-camera: The photo library cannot be opened: ") }, "\(errors())")
        try session.key("space")
        #expect(waitFor(seconds: 30) { errors().contains("pinhole-camera: The photo was not saved: ") }, "\(errors())")
        let line = errors().split(separator: "\n").first { $0.hasPrefix("pinhole-camera: The photo was not saved: ") } ?? ""
        #expect(line.contains("read-only"), "\(line)")
    }

    @Test("no microphone (no sound server): videos record without sound, and a toast says so once")
    func noMicrophone() throws {
        let session = try AppSession(preferences: ["mode": "'video'"])
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        for round in 1...2 {
            try session.key("space")
            #expect(try session.accessibility("print(find('Stop Recording', pyatspi.ROLE_PUSH_BUTTON).name)").status == 0, "round \(round)")
            usleep(1_500_000)
            try session.key("space")
            #expect(try session.accessibility("print(find('Start Recording', pyatspi.ROLE_PUSH_BUTTON).name)").status == 0, "round \(round)")
        }
        #expect(waitFor(seconds: 30) { session.files(in: session.videos).filter { $0.hasSuffix(".mp4") }.count == 2 })
        for movie in session.files(in: session.videos) where movie.hasSuffix(".mp4") {
            let streams = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", movie])
            #expect(streams.stdout.split(separator: "\n").map(String.init) == ["video"], "\(movie): \(streams.stdout)")
        }
        let said = (session.app?.errors ?? "").components(separatedBy: "pinhole-camera: No microphone: the video is recorded without sound.").count - 1
        #expect(said == 1, "said \(said) times: \(session.app?.errors ?? "")")
    }

    @Test("a second launch presents the running window instead of opening another (single instance)")
    func singleInstance() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        let second = try runTool(builtProduct("pinhole-camera"), [], environment: session.environment)
        #expect(second.status == 0, "\(second.stderr)")
        let windows = try runTool("xdotool", ["search", "--onlyvisible", "--name", "^Camera$"], environment: ["DISPLAY": session.display])
        #expect(windows.stdout.split(separator: "\n").count == 1, "windows: \(windows.stdout)")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), "the first instance went on")
    }
}
}

extension MoreAppSuites {
@Suite("The camera app's preferences and languages")
struct AppPreferenceTests {
    @Test("\"Ask before saving\": the photo is shown with Cancel and Save; Cancel (Escape) writes nothing, Save (Enter) saves it")
    func askBeforeSaving() throws {
        let session = try AppSession(preferences: ["ask-before-saving": "true"])
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("space")
        // The photo is shown, unmirrored, where the preview was (Escape is Cancel, Enter is Save).
        #expect(try waitFor(seconds: 30) { AppSuites.AppWindowTests.matches(AppSuites.AppWindowTests.previewBars(try session.screenshot()), mirrored: false) },
                session.describePreview())
        try session.key("Escape")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), "the preview came back after Cancel")
        usleep(1_000_000)
        let everything = (FileManager.default.enumerator(atPath: session.folder.path("library"))?.allObjects as? [String]) ?? []
        #expect(!everything.contains { $0.hasSuffix(".jpg") || $0.contains(".tmp") || $0.contains("Photos/") }, "Cancel wrote: \(everything)")
        try session.key("space")
        #expect(try waitFor(seconds: 30) { AppSuites.AppWindowTests.matches(AppSuites.AppWindowTests.previewBars(try session.screenshot()), mirrored: false) })
        try session.key("Return")
        #expect(waitFor(seconds: 30) { session.files(in: session.photos).count == 1 })
    }

    @Test("the mode and the last camera are remembered across launches (GSettings)")
    func remembered() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try session.key("c")  // the back camera
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: false))
        try session.key("v")  // video mode
        #expect(waitFor(seconds: 10) { session.keyfile.contains("mode='video'") }, "\(session.keyfile)")
        #expect(try session.quit() == 0)
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: false), "the back camera was not reopened")
        let shutter = try session.accessibility("print(find('Start Recording', pyatspi.ROLE_PUSH_BUTTON).name)")
        #expect(shutter.status == 0, "not in video mode: \(shutter.stderr)")
    }

    @Test("Preferences: a switch writes its key; the microphone chosen is listed and is the one a video records (880 Hz, not the default's 440 Hz)")
    func chosenMicrophone() throws {
        let sound = try PrivateSoundServer()
        let loaded = try runTool("pactl", ["--server", sound.address, "load-module", "module-sine-source", "source_name=high", "frequency=880", "rate=48000"])
        try #require(loaded.status == 0, "\(loaded.stderr)")
        let session = try AppSession(preferences: ["microphone": "'high'", "mode": "'video'"], extra: ["PULSE_SERVER": sound.address])
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        // Preferences (Ctrl+,) list the sound server's microphones, the chosen one selected.
        try session.key("ctrl+comma")
        let listed = try session.accessibility("print(find('Sine source at 880 Hz').name)")
        #expect(listed.status == 0, "\(listed.stderr)")
        // A switch there writes its key at once (and the app lives on: a property-change
        // handler connected as a plain signal once crashed here).
        let toggled = try session.accessibility("find('Shutter Sound', pyatspi.ROLE_CHECK_BOX).queryAction().doAction(0); print('ok')")
        #expect(toggled.status == 0, "\(toggled.stderr)")
        #expect(waitFor(seconds: 30) { session.keyfile.contains("shutter-sound=false") }, "keyfile: \(session.keyfile)")
        try session.key("Escape", window: "^Preferences$")
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Preferences$") == nil }, "the preferences window did not close")
        try session.key("space")
        let recording = try session.accessibility("print(find('Stop Recording', pyatspi.ROLE_PUSH_BUTTON).name)")
        #expect(recording.status == 0, "\(recording.stderr); the app said: \(session.app?.errors ?? "")")
        usleep(2_000_000)
        try session.key("space")
        #expect(try session.accessibility("print(find('Start Recording', pyatspi.ROLE_PUSH_BUTTON).name)").status == 0)
        let movie = try #require(session.files(in: session.videos).first { $0.hasSuffix(".mp4") })
        let samples = try decodedSound(movie)
        try #require(samples.count > 48_000, "\(samples.count) samples")
        let high = goertzel(samples, frequency: 880, rate: 48000), low = goertzel(samples, frequency: 440, rate: 48000)
        #expect(high > 100 * low, "880 Hz power \(high), 440 Hz power \(low)")
    }

    @Test("in Simplified Chinese (LANG=zh_CN.UTF-8) the accessible names are translated")
    func chinese() throws {
        let locales = try AppSession.buildTranslations()
        let session = try AppSession(extra: ["LANG": "zh_CN.UTF-8", "LANGUAGE": "zh_CN", "LC_ALL": "zh_CN.UTF-8", "PINHOLE_LOCALEDIR": locales])
        try session.launch(title: "^相机$")
        let shutter = try session.accessibility("print(find('拍照', pyatspi.ROLE_PUSH_BUTTON).name)")
        #expect(shutter.status == 0, "\(shutter.stderr)")
        if let target = ProcessInfo.processInfo.environment["PINHOLE_SCREENSHOT_ZH"] {
            #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
            try session.saveScreenshot(to: target)
        }
    }
}
}
