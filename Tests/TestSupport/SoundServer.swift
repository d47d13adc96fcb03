import Foundation
import Glibc
import Synchronization
import Testing

/// A PulseAudio server of the test's own, on a socket in a temporary folder: a null sink
/// ("speakers", clocked by the system timer like a sound card) playing a 440 Hz sine
/// (module-sine), and a source "sine" remapping the sink's monitor: a microphone hearing the
/// tone, with the low, adjustable latency of real hardware. (module-sine-source would be simpler
/// but has a fixed 2 s latency: it hands over sound in 2-second bursts, nothing like a microphone.)
/// The monitor itself is a source too, and must not be listed as a microphone.
///
/// As root, PulseAudio only warns that it is "not intended to be run as root" and serves anyway;
/// the strict server (`anonymous: false`) runs as nobody through setpriv. HOME, XDG_* and PULSE_*
/// all point into the folder, so it never touches or finds a user's server. `stop()` (or the
/// value dying) kills it with SIGKILL; the folder goes with the value.
public final class PrivateSoundServer: @unchecked Sendable {
    /// The server of the running suite (see `SoundServerScope`).
    @TaskLocal public static var current: PrivateSoundServer?

    public let folder: TemporaryDirectory
    public let process: BackgroundProcess
    private var keeper: BackgroundProcess?
    /// "unix:/tmp/…/native", what PULSE_SERVER takes.
    public let address: String

    /// Starts a server; with `anonymous` false, only clients holding its cookie get in.
    public init(anonymous: Bool = true) throws {
        folder = try TemporaryDirectory()
        let runtime = folder.path("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        // PulseAudio lets in any client of its own user (credentials on the socket): to refuse
        // this process, the strict server runs as nobody, in folders it owns.
        let user: [String]
        if anonymous {
            user = []
        } else {
            chown(folder.url.path, 65534, 65534)
            chown(runtime, 65534, 65534)
            user = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        }
        let socket = folder.path("native")
        address = "unix:\(socket)"
        let environment = ["HOME": folder.url.path, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": folder.path("config"),
                           "XDG_STATE_HOME": folder.path("state"), "PULSE_RUNTIME_PATH": runtime, "PULSE_STATE_PATH": folder.path("state"),
                           "PULSE_SERVER": address]
        // Raised priority (as root; elsewhere nice only warns): a sound server starved by the
        // tests running beside it stalls, which no microphone does.
        let priority = ["/usr/bin/nice", "-n", "-10"]
        process = try BackgroundProcess(priority + user + PrivateSoundServer.command(socket: socket, anonymous: anonymous), environment: environment)
        // Ready once pactl (an independent client, given the server's cookie) gets an answer.
        let cookie = ["PULSE_COOKIE": folder.path("config/pulse/cookie")]
        let ready = blockUntil(everyMilliseconds: 50) {
            FileManager.default.fileExists(atPath: socket) && (try? runTool("pactl", ["--server", address, "info"], environment: cookie))?.status == 0
        }
        try #require(ready, "pulseaudio did not start (install pulseaudio: scripts/setup): \(process.errors)")
        // An idle null sink renders 2-second blocks, and a stream asking for less latency waits for
        // the current block to end (up to 2 s of silence first). A low-latency reader kept on the
        // monitor makes the sink run in 10 ms steps throughout, like a sound card's interrupts;
        // the sink has switched once that reader gets its first bytes.
        let kept = folder.path("keeper.raw")
        keeper = try BackgroundProcess(["/usr/bin/nice", "-n", "-10", "/usr/bin/parec", "--server", address, "--device", "speakers.monitor", "--latency-msec=10",
                                        "--rate=8000", "--channels=1", "--format=u8", "--raw", kept], environment: cookie)
        let switched = blockUntil(everyMilliseconds: 50) {
            ((try? FileManager.default.attributesOfItem(atPath: kept)[.size] as? Int) ?? 0) > 0
        }
        try #require(switched, "parec got no sound from the null sink's monitor")
    }

    /// The command line (the socket's path aside, what to run by hand to reproduce a test).
    public static func command(socket: String, anonymous: Bool = true) -> [String] {
        ["/usr/bin/pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no",
         "--disable-shm=yes", "--log-target=stderr",
         "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=\(anonymous ? 1 : 0)",
         "-L", "module-null-sink sink_name=speakers rate=48000",
         "-L", "module-sine sink=speakers frequency=440",
         "-L", "module-remap-source source_name=sine master=speakers.monitor source_properties=device.description=Sine"]
    }

    /// Makes this the server the library talks to (libpulse reads PULSE_SERVER at each connection).
    public func publish() { setenv("PULSE_SERVER", address, 1) }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) the server: frozen, it accepts connections and never answers.
    public func freeze(_ frozen: Bool) { kill(process.pid, frozen ? SIGSTOP : SIGCONT) }

    private let stopped = Mutex(false)

    /// Kills the server and reaps it (once: its pid may be reused afterwards).
    public func stop() {
        guard !stopped.withLock({ was in defer { was = true }; return was }) else { return }
        keeper?.stop()
        process.stop()
    }

    deinit { stop() }
}

/// Runs a whole suite with one private sound server, killed when the suite ends.
public struct SoundServerScope: SuiteTrait, TestScoping {
    /// A scope.
    public init() {}

    /// Runs the suite inside a server's lifetime.
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let server = try PrivateSoundServer()
        defer {
            server.stop()
            setenv("PULSE_SERVER", "unix:/nonexistent/pinhole-test-pulse", 1)
        }
        server.publish()
        try await PrivateSoundServer.$current.withValue(server, operation: function)
    }
}

extension Trait where Self == SoundServerScope {
    /// A private PulseAudio server for the suite (see `PrivateSoundServer`).
    public static var privateSoundServer: Self { Self() }
}

/// The power of `frequency` in `samples` (every `stride`-th value from `offset`: one channel) at
/// `rate`, by the Goertzel algorithm, normalised by the length.
public func goertzel(_ samples: [Int16], frequency: Double, rate: Double, stride: Int = 1, offset: Int = 0) -> Double {
    let coefficient = 2 * cos(2 * Double.pi * frequency / rate)
    var previous = 0.0, beforePrevious = 0.0, count = 0
    var index = offset
    while index < samples.count {
        let current = Double(samples[index]) + coefficient * previous - beforePrevious
        beforePrevious = previous
        previous = current
        index += stride
        count += 1
    }
    let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
    return power / Double(max(count, 1) * max(count, 1))
}

