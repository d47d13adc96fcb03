import Glibc
import PinholeTestSupport

/// A long recording with sound: the release `pinhole record` (next to this program) recording
/// the test camera at 1920×1080 and 30 fps for `minutes`, with sound from a private PulseAudio
/// server's 440 Hz "sine" source (the server the tests start: `PrivateSoundServer` in
/// Tests/TestSupport/SoundServer.swift, same command line), watched from outside every 10 s
/// (`ChildProcess.memorySoFar`: its `VmRSS` and own `VmHWM`, its threads and descriptors), then
/// the file checked by ffprobe and decoded end to end by ffmpeg.
struct RecordSoak {
    /// Minutes to record.
    let minutes: Int
    /// The camera's frame rate.
    static let fps = 30
    /// How much the recorder's `VmRSS` may grow from the first sample at or after 60 s (encoder
    /// and muxer warmed up) to the last (the issue's bound): a leak of 100 bytes a frame, or of
    /// two 1080p I420 frames (3 MiB each) in the hour, exceeds it.
    static let residentGrowthBound = 5 << 20
    /// How far the end of the sound may be from the end of the picture: one frame.
    static let driftBound = 1.0 / Double(fps)

    /// Seconds to record.
    var seconds: Int { minutes * 60 }

    /// Records, watches, checks and prints the verdict; true when every rule holds.
    func run() throws -> Bool {
        guard let pinhole = RecordSoak.binary(named: "pinhole") else {
            throw SoakError(description: "no `pinhole` next to this program: scripts/soak builds it")
        }
        let folder = try TemporaryFolder(prefix: "pinhole-soak-record")
        let sound = try SoundServer(folder: folder.path)
        defer { sound.stop() }
        let movie = folder.path + "/soak.mp4"
        let arguments = [pinhole, "record", "--device", "test", "--size", "1920x1080", "--fps", "\(RecordSoak.fps)",
                         "--duration", "\(seconds)", "--audio", "sine", "-o", movie]
        let environment = ChildProcess.environment(adding: ["PULSE_SERVER": sound.address, "HOME": folder.path + "/home",
                                                            "XDG_CONFIG_HOME": folder.path + "/home/.config", "XDG_DATA_HOME": folder.path + "/home/.local/share"])
        say("pinhole-soak record \(minutes): \(arguments.dropFirst().joined(separator: " ")) (PULSE_SERVER=\(sound.address)); sampled every 10 s from outside")
        let recorder = try ChildProcess(arguments, environment: environment, errorPath: folder.path + "/record.err", standardOutput: .file(folder.path + "/record.out"))
        var samples: [(seconds: Double, resident: Int)] = []
        // CPU time the hypervisor took from this machine (a stall that drops frames may be its).
        let stolenAtStart = MachineFacts.stolenSeconds()
        var stolenBefore = stolenAtStart
        var mostStolen: (seconds: Double, at: Double) = (0, 0)
        let deadline = Double(seconds) + 120
        while recorder.wait(timeout: 10) == nil {
            let at = Double(MonotonicClock.nanoseconds() - recorder.spawnedAt) / 1e9
            let stolen = MachineFacts.stolenSeconds()
            if stolen - stolenBefore > mostStolen.seconds { mostStolen = (stolen - stolenBefore, at) }
            stolenBefore = stolen
            if let memory = recorder.memorySoFar() {
                samples.append((at, memory.resident))
                say("\(fixed(at, 0)) s: VmRSS \(mebibytes(memory.resident)) MiB, VmHWM \(mebibytes(memory.peak)) MiB, "
                      + "\(ProcessFacts.threadCount(recorder.pid)) threads, \(ProcessFacts.openFileCount(recorder.pid)) fds")
            }
            if at > deadline {
                say("still running \(fixed(at - Double(seconds), 0)) s after its duration: stopped with SIGINT")
                recorder.signal(SIGINT)
            }
        }
        let exit = recorder.stop()
        say("pinhole record exited with \(exit.status) after \(fixed(exit.wallSeconds, 1)) s, CPU \(fixed(exit.cpuSeconds, 1)) s, "
              + "own peak \(mebibytes(exit.peakResidentBytes)) MiB (\(exit.peakIncludesExit ? "VmHWM reads and ru_maxrss at exit, above anything inherited" : "VmHWM reads while it ran"))")
        for line in recorder.errors.split(separator: "\n") { say("  pinhole: \(line)") }
        say("host: \(fixed(MachineFacts.stolenSeconds() - stolenAtStart, 1)) CPU-seconds stolen by the hypervisor while it ran; "
              + "the most between two samples \(fixed(mostStolen.seconds, 1)) s, up to \(fixed(mostStolen.at, 0)) s")
        let reported = RecordSoak.count(in: recorder.errors, before: " frames were dropped") + RecordSoak.count(in: recorder.errors, before: " frames were skipped")

        var rules: [(Bool, String)] = [(exit.status == 0, verdict(exit.status == 0, "pinhole record exits 0", "\(exit.status)"))]
        let probe = try MovieFacts(path: movie, scratch: folder.path)
        say("file: \(probe.bytes) bytes, container duration \(fixed(probe.duration, 3)) s; video \(probe.video.codec) \(probe.videoSize), "
              + "\(probe.video.count) frames, \(fixed(probe.video.start, 3))–\(fixed(probe.video.end, 3)) s; audio \(probe.audio.codec), "
              + "\(probe.audio.count) packets, \(fixed(probe.audio.start, 3))–\(fixed(probe.audio.end, 3)) s")
        let expected = RecordSoak.fps * seconds
        let accounted = probe.video.count + reported
        let frameSlack = max(2, expected / 1000)
        rules.append((abs(accounted - expected) <= frameSlack,
                      verdict(abs(accounted - expected) <= frameSlack, "frames in the file + frames pinhole reports lost = \(expected) ± \(frameSlack)",
                              "\(probe.video.count) + \(reported) = \(accounted)")))
        // Every frame the camera sent is in the movie: none left out because encoding fell
        // behind (a machine busy beside the soak can cost some; they are then counted above).
        rules.append((reported == 0, verdict(reported == 0, "no frame dropped or skipped", "\(reported) reported")))
        let drift = probe.audio.end - probe.video.end
        rules.append((probe.audio.count > 0 && abs(drift) <= RecordSoak.driftBound,
                      verdict(probe.audio.count > 0 && abs(drift) <= RecordSoak.driftBound, "the sound ends within one frame (\(fixed(RecordSoak.driftBound * 1000, 1)) ms) of the picture (A/V drift)",
                              "last audio \(fixed(probe.audio.end, 3)) s − last video \(fixed(probe.video.end, 3)) s = \(fixed(drift * 1000, 0)) ms; starts \(fixed(probe.audio.start, 3)) / \(fixed(probe.video.start, 3)) s")))
        let decode = Subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", movie, "-f", "null", "-"], scratch: folder.path)
        let plays = decode.status == 0 && decode.errors.trimmed.isEmpty
        rules.append((plays, verdict(plays, "plays end to end (ffmpeg -v error -i FILE -f null -: status 0, no message)",
                                     "status \(decode.status), \(decode.errors.trimmed.isEmpty ? "no message" : String(decode.errors.trimmed.prefix(300))), decoded in \(fixed(decode.wallSeconds, 1)) s")))
        // Samples while it records: after its duration `pinhole record` finishes the file (the
        // rewrite into a regular MP4 takes memory of its own for a moment: +7 MiB at 3611 s of
        // an hour), which is not the recording's footprint growing.
        if let first = samples.first(where: { $0.seconds >= 60 }), let last = samples.last(where: { $0.seconds <= Double(seconds) }),
           last.seconds > first.seconds {
            let growth = last.resident - first.resident
            rules.append((growth < RecordSoak.residentGrowthBound,
                          verdict(growth < RecordSoak.residentGrowthBound, "the recorder's VmRSS grows by less than \(mebibytes(RecordSoak.residentGrowthBound)) MiB from its first minute to its end",
                                  "\(mebibytes(first.resident)) MiB at \(fixed(first.seconds, 0)) s → \(mebibytes(last.resident)) MiB at \(fixed(last.seconds, 0)) s")))
        } else {
            say("(too short for the memory rule: no two samples after the first minute)")
        }
        for (_, line) in rules { say(line) }
        let passed = rules.allSatisfy { $0.0 }
        say(passed ? "PASS" : "FAIL")
        return passed
    }

    /// The number just before `phrase` in pinhole's messages ("12 frames were dropped, …"), or 0.
    static func count(in errors: String, before phrase: String) -> Int {
        for line in errors.split(separator: "\n") {
            guard let range = line.firstRange(of: phrase) else { continue }
            return Int(line[..<range.lowerBound].split(separator: " ").last ?? "") ?? 0
        }
        return 0
    }

    /// The path of the program `name` in the folder of this one, when it is there.
    static func binary(named name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let program = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = program.lastIndex(of: "/") else { return nil }
        let candidate = String(program[..<slash]) + "/" + name
        return access(candidate, X_OK) == 0 ? candidate : nil
    }
}

/// A private PulseAudio server in `folder`, as the tests start one (`PrivateSoundServer`): a null
/// sink "speakers" playing a 440 Hz sine, its monitor remapped as the microphone "sine", and a
/// low-latency reader kept on the monitor so that the sink runs in 10 ms steps like a sound card.
final class SoundServer {
    /// "unix:FOLDER/native", what PULSE_SERVER takes.
    let address: String
    /// The server.
    private let server: ChildProcess
    /// The reader that keeps the sink in small steps.
    private var keeper: ChildProcess?

    /// Starts the server and waits until it answers and its sink runs in small steps.
    init(folder: String) throws {
        let runtime = folder + "/runtime"
        mkdir(runtime, 0o700)
        let socket = folder + "/native"
        address = "unix:\(socket)"
        let environment = ChildProcess.environment(adding: [
            "HOME": folder, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": folder + "/config", "XDG_STATE_HOME": folder + "/state",
            "PULSE_RUNTIME_PATH": runtime, "PULSE_STATE_PATH": folder + "/state", "PULSE_SERVER": address])
        // Tests/TestSupport/SoundServer.swift, `PrivateSoundServer.command(socket:)`, anonymous; raised priority as there.
        server = try ChildProcess(["/usr/bin/nice", "-n", "-10", "/usr/bin/pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1",
                                   "--disallow-exit", "--use-pid-file=no", "--disable-shm=yes", "--log-target=stderr",
                                   "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1",
                                   "-L", "module-null-sink sink_name=speakers rate=48000",
                                   "-L", "module-sine sink=speakers frequency=440",
                                   "-L", "module-remap-source source_name=sine master=speakers.monitor source_properties=device.description=Sine"],
                                  environment: environment, errorPath: folder + "/pulseaudio.err")
        let deadline = MonotonicClock.seconds() + 30
        while Subprocess.run(["pactl", "--server", address, "info"], environment: environment, scratch: folder).status != 0 {
            guard MonotonicClock.seconds() < deadline, server.reap() == nil else {
                throw SoakError(description: "pulseaudio did not start (scripts/setup installs it): \(server.errors.suffix(300))")
            }
            Sleep.seconds(0.05)
        }
        let kept = folder + "/keeper.raw"
        keeper = try ChildProcess(["/usr/bin/nice", "-n", "-10", "/usr/bin/parec", "--server", address, "--device", "speakers.monitor",
                                   "--latency-msec=10", "--rate=8000", "--channels=1", "--format=u8", "--raw", kept],
                                  environment: environment, errorPath: folder + "/parec.err")
        var status = stat()
        while stat(kept, &status) != 0 || status.st_size == 0 {
            guard MonotonicClock.seconds() < deadline else { throw SoakError(description: "parec got no sound from the null sink's monitor") }
            Sleep.seconds(0.05)
        }
    }

    /// Stops the reader and the server.
    func stop() {
        keeper?.stop(grace: 0)
        server.stop(grace: 0)
    }
}

/// What ffprobe finds in the recorded movie: the container, and each stream's packets.
struct MovieFacts {
    /// One stream's codec and packets.
    struct Stream {
        /// The codec's name.
        let codec: String
        /// Packets (frames, for video).
        let count: Int
        /// The first packet's time in seconds.
        let start: Double
        /// The last packet's time plus its duration, in seconds.
        let end: Double
    }

    /// The file's size in bytes.
    let bytes: Int
    /// The container's duration in seconds.
    let duration: Double
    /// "1920×1080".
    let videoSize: String
    /// The first video stream.
    let video: Stream
    /// The first audio stream (an empty one when there is none).
    let audio: Stream

    /// Probes `path`.
    init(path: String, scratch: String) throws {
        let format = try MovieFacts.fields(["-show_entries", "format=duration,size:stream=codec_type,codec_name,width,height", path], scratch: scratch)
        bytes = Int(format["size"] ?? "") ?? 0
        duration = Double(format["duration"] ?? "") ?? 0
        videoSize = "\(format["width"] ?? "?")×\(format["height"] ?? "?")"
        video = try MovieFacts.stream("v:0", path: path, scratch: scratch)
        audio = (try? MovieFacts.stream("a:0", path: path, scratch: scratch)) ?? Stream(codec: "none", count: 0, start: 0, end: 0)
    }

    /// ffprobe's `key=value` lines for `arguments` (the first of a name wins: the video stream's
    /// come before the audio's).
    static func fields(_ arguments: [String], scratch: String) throws -> [String: String] {
        let result = Subprocess.run(["ffprobe", "-v", "error"] + arguments + ["-of", "default=noprint_wrappers=1"], scratch: scratch, captureOutput: true)
        guard result.status == 0 else { throw SoakError(description: "ffprobe exited with \(result.status): \(result.errors.trimmed.suffix(300))") }
        var fields: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[1] != "N/A", fields[String(parts[0])] == nil {
                fields[String(parts[0])] = String(parts[1]).trimmed
            }
        }
        return fields
    }

    /// The codec and packets of `selector` ("v:0", "a:0").
    static func stream(_ selector: String, path: String, scratch: String) throws -> Stream {
        let codec = try fields(["-select_streams", selector, "-show_entries", "stream=codec_name", path], scratch: scratch)["codec_name"]
        guard let codec else { throw SoakError(description: "no stream \(selector)") }
        let result = Subprocess.run(["ffprobe", "-v", "error", "-select_streams", selector, "-show_entries", "packet=pts_time,duration_time",
                                     "-of", "csv=p=0", path], scratch: scratch, captureOutput: true)
        guard result.status == 0 else { throw SoakError(description: "ffprobe exited with \(result.status): \(result.errors.trimmed.suffix(300))") }
        var count = 0, start = Double.infinity, end = 0.0
        for line in result.output.split(separator: "\n") {
            let parts = line.split(separator: ",").map { Double($0.trimmed) }
            guard let time = parts.first ?? nil else { continue }
            count += 1
            start = min(start, time)
            end = max(end, time + ((parts.count > 1 ? parts[1] : nil) ?? 0))
        }
        return Stream(codec: codec, count: count, start: count > 0 ? start : 0, end: end)
    }
}
