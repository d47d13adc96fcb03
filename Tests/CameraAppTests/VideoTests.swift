import Foundation
import Glibc
import Testing
import TestSupport

/// Videos in the viewer, headless: keyboard play/pause and seeking (the position read from
/// GtkVideo's own slider through AT-SPI), and sound reaching a private PulseAudio server.
extension AppSuites {
@Suite("The camera app's video playback, headless")
struct VideoTests {
    /// Records a video of `seconds` with the CLI into the session's library (with the server's
    /// test microphone when `sound` is given, else silent).
    static func record(_ session: AppSession, seconds: Int, sound: PrivateSoundServer? = nil) throws -> String {
        var environment = ["PINHOLE_LIBRARY": session.folder.path("library")]
        if let sound { environment["PULSE_SERVER"] = sound.address }
        let recorded = try runTool(builtProduct("pinhole"), ["record", "--device", "test", "--size", "640x480", "--duration", String(seconds)]
                                   + (sound == nil ? ["--no-audio"] : []), environment: environment)
        try #require(recorded.status == 0, "pinhole record: \(recorded.stderr)")
        // GStreamer builds its plugin registry on first use, which takes seconds on a busy
        // machine: build it before the app starts, as earlier use would have on a desktop.
        let registry = try runTool("gst-inspect-1.0", ["playbin"], environment: session.environment)
        try #require(registry.status == 0, "gst-inspect-1.0: \(registry.stderr)")
        return try #require(session.files(in: session.videos).first { $0.hasSuffix(".mp4") })
    }

    /// The playing position in seconds, as GtkVideo's controls show it: the value of their
    /// slider (the page's only one), through AT-SPI; nil when it cannot be read.
    static func position(_ session: AppSession) throws -> Double? {
        let read = try session.accessibility("""
        sliders = []
        for n in walk(app()):
            try:
                if n.getRole() == pyatspi.ROLE_SLIDER:
                    sliders.append(n.queryValue().currentValue)
            except Exception:
                pass
        print(sliders[0] if len(sliders) == 1 else 'sliders: %s' % sliders)
        """)
        return Double(read.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test("K pauses a playing video (its play button's name follows); Shift+Right goes 5 s on and Shift+Left 5 s back, and it stays paused; K plays on; the shortcuts window lists both")
    func seek() throws {
        let session = try AppSession()
        let length = 20.0
        _ = try Self.record(session, seconds: Int(length))
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        try MoreAppSuites.SharingTests.openViewer(session, items: 1)
        // It plays by itself: the position moves past the start.
        var position: Double?
        #expect(try waitFor(seconds: 30) { position = try Self.position(session); return (position ?? 0) > 0.3 }, "position \(String(describing: position))")
        try session.key("k")
        // Paused: the position stays where it is (read twice, a second apart).
        var paused = -1.0
        let settled = try waitFor(seconds: 30) {
            guard let first = try Self.position(session) else { return false }
            sleep(1)
            paused = try Self.position(session) ?? -1
            return paused == first
        }
        #expect(settled, "the video did not pause: \(paused)")
        // GtkVideo's own buttons carry names: the play button says what it does, and Volume.
        let button = { (name: String) in try session.accessibility("print(find('\(name)', pyatspi.ROLE_PUSH_BUTTON).name)").status == 0 }
        #expect(try button("Play") && button("Volume"), "the video's buttons are unnamed, or the play button says Pause while paused")
        // Each way once, the one with room for 5 s first (where it paused depends on the
        // machine's speed): from the first half on then back, from the second back then on.
        var at = paused
        var positions: [Double] = []
        for key in paused < length / 2 ? ["shift+Right", "shift+Left"] : ["shift+Left", "shift+Right"] {
            let target = at + (key == "shift+Right" ? 5 : -5)
            try session.key(key)
            var now = -1.0
            #expect(try waitFor(seconds: 30) { now = try Self.position(session) ?? -1; return abs(now - target) <= 1.1 }, "\(key) from \(at) s: at \(now) s")
            sleep(1)
            #expect(try Self.position(session) == now, "it played on after \(key)")
            at = now
            positions.append(now)
        }
        // K again plays on from there.
        try session.key("k")
        var playing = -1.0
        #expect(try waitFor(seconds: 30) { playing = try Self.position(session) ?? -1; return playing > at + 0.3 }, "from \(at): \(playing)")
        // The button's accessible name follows the state on the app's next turn: waited for.
        let saysPause = try waitFor(seconds: 30) { try button("Pause") }
        let now = try Self.position(session) ?? -1
        #expect(saysPause, "the play button does not say Pause while playing (at \(now) s of \(length))")
        // The shortcuts window (Ctrl+?) says so.
        try session.key("ctrl+question")
        // Titled (untitled, window lists named it "pinhole-camera": the monkey's seed 3, step 93).
        #expect(waitFor(seconds: 30) { session.windowID(named: "^Keyboard shortcuts$") != nil }, "no window titled Keyboard shortcuts")
        #expect(try AppStateTests.shows(session, "Play or pause a video"))
        #expect(try AppStateTests.shows(session, "Back or forward 5 seconds in a video"))
        print("video seek: paused at \(paused) s, sought to \(positions) s, K played on to \(playing) s")
    }

    /// The sink inputs (playback streams) of the server whose process is `pid`, each as
    /// `pactl list sink-inputs` describes it.
    static func streams(of pid: pid_t, on sound: PrivateSoundServer) throws -> [String] {
        let listed = try runTool("pactl", ["--server", sound.address, "list", "sink-inputs"])
        return listed.stdout.components(separatedBy: "Sink Input #").filter { $0.contains("application.process.id = \"\(pid)\"") }
    }

    @Test("a video with sound plays to the sound server: a stream of the app's appears on it, and the video's 440 Hz tone comes out of the sink")
    func sound() throws {
        let sound = try PrivateSoundServer()
        let session = try AppSession(extra: ["PULSE_SERVER": sound.address])
        let movie = try Self.record(session, seconds: 5, sound: sound)
        #expect(try ffprobe(movie, select: "a:0", "stream=codec_name")["codec_name"] == "aac", "the video has no sound track")
        // A sink of its own for what is played, made the default, so the app's sound is heard
        // apart from the server's own tone (which plays into "speakers" for the microphone).
        for command in [["load-module", "module-null-sink", "sink_name=playback", "rate=48000"], ["set-default-sink", "playback"]] {
            let done = try runTool("pactl", ["--server", sound.address] + command)
            try #require(done.status == 0, "pactl \(command): \(done.stderr)")
        }
        let heard = session.folder.path("heard.raw")
        let listener = try BackgroundProcess(["/usr/bin/parec", "--server", sound.address, "--device", "playback.monitor", "--rate=48000", "--channels=1",
                                              "--format=s16le", "--raw", heard])
        defer { listener.stop() }
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        let pid = try #require(session.app?.pid)
        #expect(try Self.streams(of: pid, on: sound).isEmpty, "the app plays something before the video is opened")
        try MoreAppSuites.SharingTests.openViewer(session, items: 1)
        var streams: [String] = []
        let appeared = try waitFor(seconds: 30) { streams = try Self.streams(of: pid, on: sound); return !streams.isEmpty }
        let all = try runTool("pactl", ["--server", sound.address, "list", "sink-inputs"]).stdout
        #expect(appeared, "no stream of the app's on the sound server: \(all)")
        #expect(streams.first?.contains("application.process.binary = \"pinhole-camera\"") == true, "\(streams)")
        // What the sink played holds the tone: far more power at 440 Hz than at 600 Hz.
        var power = (tone: 0.0, other: 0.0)
        let toned = waitFor(seconds: 30) {
            guard let bytes = try? Data(contentsOf: URL(fileURLWithPath: heard)), bytes.count > 96_000 else { return false }
            let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            power = (goertzel(samples, frequency: 440, rate: 48_000), goertzel(samples, frequency: 600, rate: 48_000))
            return power.tone > 0 && power.tone > 100 * power.other
        }
        #expect(toned, "440 Hz power \(power.tone), 600 Hz power \(power.other)")
        print("video sound: the app's stream on the server; 440 Hz power \(power.tone), 600 Hz power \(power.other)")
    }
}
}
