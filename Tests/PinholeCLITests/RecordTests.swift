import Foundation
import Glibc
import Media
@testable import pinhole
import Testing
import TestSupport

/// The time of the last frame a movie being written plays so far (its complete fragments), or
/// nil while there is none; ffprobe reads the file as a player would.
func playableUntil(_ path: String) -> Double? {
    guard FileManager.default.fileExists(atPath: path),
          let probe = try? runTool("ffprobe", ["-v", "quiet", "-select_streams", "v:0", "-show_entries", "frame=pts_time", "-of", "csv=p=0", path]) else { return nil }
    return probe.stdout.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }.max()
}

/// The types of an MP4's top-level boxes, space-separated ("ftyp moov mdat" for a regular one).
func mp4Boxes(_ path: String) throws -> String {
    try runTool("/usr/bin/python3", ["-c", """
        import struct,sys
        d=open(sys.argv[1],'rb').read(); o=0; names=[]
        while o+8<=len(d):
            s,=struct.unpack('>I',d[o:o+4]); names.append(d[o+4:o+8].decode('latin-1')); o+=s if s>=8 else len(d)
        print(' '.join(names))
        """, path]).stdout
}

extension CLITests {
    @Test("record --duration into the library: a 640×480 H.264 movie of the right length, indexed with a thumbnail")
    func recordIntoLibrary() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let result = try pinhole(["record", "--device", "test", "--size", "640x480", "--fps", "30", "--duration", "2", "--no-audio"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix(folder.path("Videos/Camera/Video from ")) && path.hasSuffix(".mp4"), "\(path)")
        let video = try ffprobe(path, "stream=codec_name,width,height")
        #expect(video["codec_name"] == "h264" && video["width"] == "640" && video["height"] == "480")
        #expect(try decodesCleanly(path))
        // The 2 s at 30 fps are 60 frame times, each in the file on the camera's timing or reported
        // lost on stderr (a busy machine may drop some; it may not lose any silently), and none
        // at or past the limit.
        let account = try RecordingAccount(path: path, frameInterval: 1.0 / 30, report: result.stderr)
        account.check(expectedSlots: 60, tolerance: 1, onGrid: true)
        #expect((account.times.last ?? 2) < 2 && account.duration <= 2 + 0.001, "\(account)")
        let listed = try pinhole(["library", "list", "--type", "video", "--json"], environment: env)
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(assets.count == 1 && assets.first?["path"] as? String == path)
        let id = try #require(assets.first?["id"] as? String)
        let thumbnail = try pinhole(["library", "thumbnail", id], environment: env).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try runTool("pngcheck", ["-t", thumbnail]).stdout.contains("(256x192,"))
    }

    @Test("record stops cleanly on SIGINT and SIGTERM: exit 0, a regular MP4, the path printed", arguments: [SIGINT, SIGTERM])
    func recordSignal(signal: Int32) throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let path = folder.path("stopped.mp4")
        let clock = ContinuousClock()
        let began = clock.now
        let process = try BackgroundProcess([pinholeBinary, "record", "--device", "test", "--size", "640x480", "--fps", "30", "--no-audio", "-o", path], environment: env)
        // Signalled once the file plays a second (a busy machine may take longer to get there).
        var before: Double?
        #expect(blockUntil(everyMilliseconds: 200) { before = playableUntil(path); return (before ?? 0) >= 1 }, "\(process.errors)")
        // Transparent huge pages are off for the recorder (MovieWriter.tuneMemoryForRecording),
        // or khugepaged steps its memory up minutes in.
        let status = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""
        #expect(status.contains("THP_enabled:\t0"), "\(status)")
        kill(process.pid, signal)
        #expect(process.waitForExit(seconds: patience) == 0, "\(process.errors)")
        let lasted = (clock.now - began) / .seconds(1)
        #expect(process.output == path + "\n")
        // Everything recorded before the signal is kept; nothing is lost unreported, and the
        // movie is no longer than the program ran.
        let account = try RecordingAccount(path: path, frameInterval: 1.0 / 30, report: process.errors)
        account.checkTiming(onGrid: true)
        account.checkLossesReported(trailing: nil)
        #expect((account.times.last ?? 0) >= (before ?? 1) && account.duration < lasted, "\(account); \(before ?? -1) s before the signal, \(lasted) s in all")
        #expect(try decodesCleanly(path))
        let boxes = try mp4Boxes(path)
        #expect(!boxes.contains("moof") && boxes.hasPrefix("ftyp moov"), "a regular MP4 with moov first: \(boxes)")
    }

    @Test("a recording killed with SIGKILL still plays up to its last fragment, and the library picks it up")
    func recordKilled() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let process = try BackgroundProcess([pinholeBinary, "record", "--device", "test", "--size", "640x480", "--fps", "30", "--no-audio"], environment: env)
        // Killed once the file plays 3 s, which a busy machine may take longer to write.
        let videos = folder.path("Videos/Camera")
        var path = "", before: Double?
        #expect(blockUntil(everyMilliseconds: 200) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: videos)) ?? []
            guard names.count == 1 else { return false }
            path = videos + "/" + names[0]
            before = playableUntil(path)
            return (before ?? 0) >= 3
        }, "\(process.errors)")
        process.stop()  // SIGKILL
        let names = try FileManager.default.contentsOfDirectory(atPath: videos)
        #expect(names.count == 1 && names[0].hasPrefix("Video from "), "\(names)")
        #expect(try decodesCleanly(path))
        // What played before the kill still does: every fragment synced, none damaged.
        let kept = try videoFrameTimes(path).last ?? 0
        #expect(kept >= (before ?? 3), "plays to \(kept) s; \(before ?? -1) s before the kill")
        // Left fragmented (GStreamer's players would see only its first fragment) until the
        // library is next opened, which finishes it as a stop would: regular, the same frames.
        #expect(try mp4Boxes(path).contains("moof"))
        let (framesKilled, lengthKilled) = (try videoFrameTimes(path).count, Double(try ffprobe(path, "format=duration")["duration"] ?? "") ?? 0)
        let verify = try pinhole(["library", "verify", "--repair"], environment: env)
        #expect(verify.status == 0 && verify.stdout.contains("1 added"), "\(verify.stdout)")
        let boxes = try mp4Boxes(path)
        #expect(!boxes.contains("moof") && boxes.hasPrefix("ftyp moov"), "finished as a regular MP4: \(boxes)")
        #expect(try videoFrameTimes(path).count == framesKilled)
        let length = Double(try ffprobe(path, "format=duration")["duration"] ?? "") ?? 0
        #expect(abs(length - lengthKilled) < 0.05, "\(length) s against \(lengthKilled) s before")
        #expect(try decodesCleanly(path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: videos) == [(path as NSString).lastPathComponent], "no temporary files")
    }

    @Test("opening the library while a recording runs leaves its file alone; the recording then stops as usual")
    func libraryLeavesLiveRecording() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let path = folder.path("Videos/Camera/live.mp4")
        try FileManager.default.createDirectory(atPath: folder.path("Videos/Camera"), withIntermediateDirectories: true)
        let process = try BackgroundProcess([pinholeBinary, "record", "--device", "test", "--size", "640x480", "--fps", "30", "--no-audio", "-o", path], environment: env)
        #expect(blockUntil(everyMilliseconds: 200) { (playableUntil(path) ?? 0) >= 1 }, "\(process.errors)")
        let verify = try pinhole(["library", "verify", "--repair"], environment: env)
        #expect(verify.status == 0, "\(verify.stderr)")
        // Still the recorder's fragmented file, still growing.
        #expect(try mp4Boxes(path).contains("moof"))
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(blockUntil(everyMilliseconds: 200) { ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) > size })
        kill(process.pid, SIGINT)
        #expect(process.waitForExit(seconds: patience) == 0, "\(process.errors)")
        let boxes = try mp4Boxes(path)
        #expect(!boxes.contains("moof") && boxes.hasPrefix("ftyp moov"), "a regular MP4: \(boxes)")
        #expect(try decodesCleanly(path))
    }

    @Test("a full disk stops the recording with exit 6 and one line; the file plays up to its last fragment")
    func recordFullDisk() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let disk = try SmallDisk(at: folder.path("small"), size: "400k")
        defer { disk.unmount() }
        let mountPoint = disk.path
        let path = mountPoint + "/full.mp4"
        // Lossless (CRF 0) 1080p frames of the test pattern fill 400 kB in over a second with
        // ultrafast (about 300 kB/s: the preset a busy 2-core machine measures it needs) and in
        // about ten with veryfast (40 kB/s).
        let result = try pinhole(["record", "--device", "test", "--size", "1920x1080", "--quality", "0", "--no-audio", "--duration", "60", "-o", path],
                                 environment: env)
        #expect(result.status == 6, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("No camera found") }
        #expect(lines.count == 1 && lines[0].contains("the disk is full") && lines[0].contains("kept up to its last complete second"), "\(result.stderr)")
        #expect(try decodesCleanly(path))
        let kept = Double(try ffprobe(path, "format=duration")["duration"] ?? "") ?? 0
        #expect(kept >= 1, "whole seconds were kept: \(kept)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == ["full.mp4"], "no temporary files")
    }

    @Test("a movie with no room left for its final rewrite stays fragmented: exit 0, the path, one line saying so and how to finish it with FFmpeg")
    func recordLeftFragmented() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        // The test camera's 640×480 at CRF 0 is about 20 kB a second: stopped at 100 kB (it may
        // pass that by a second's worth), the movie fits in 192 kB, but a second copy of it does not.
        let disk = try SmallDisk(at: folder.path("small"), size: "192k")
        defer { disk.unmount() }
        let path = disk.path + "/fragmented.mp4"
        let result = try pinhole(["record", "--device", "test", "--size", "640x480", "--fps", "30", "--quality", "0", "--no-audio", "--max-size", "0.1", "-o", path],
                                 environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == path + "\n")
        let said = result.stderr.split(separator: "\n").filter { $0.contains("fragmented") }
        #expect(said.count == 1 && said[0].hasPrefix(path + " is saved and plays, but stays fragmented (the disk is full)")
                && said[0].contains("Free some space and rewrite it with `ffmpeg -i FILE -c copy -movflags faststart NEW.mp4`."), "\(result.stderr)")
        // What it says is so: complete and playable, fragmented, nothing else left on the disk.
        #expect(try mp4Boxes(path).contains("moof"))
        #expect(try decodesCleanly(path))
        let length = Double(try ffprobe(path, "format=duration")["duration"] ?? "") ?? 0
        #expect(length >= 3, "the whole recording is kept: \(length) s")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["fragmented.mp4"], "no temporary files")
    }

    @Test("a movie in the library with no room for its final rewrite: exit 0, indexed, one line saying the library finishes it, which opening it with room does")
    func recordLeftFragmentedInLibrary() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        // Only the videos folder is small (the index lives elsewhere): see recordLeftFragmented.
        let disk = try SmallDisk(at: folder.path("Videos/Camera"), size: "192k")
        defer { disk.unmount() }
        let result = try pinhole(["record", "--device", "test", "--size", "640x480", "--fps", "30", "--quality", "0", "--no-audio", "--max-size", "0.1"],
                                 environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix(disk.path + "/Video from ") && path.hasSuffix(".mp4"), "\(path)")
        let said = result.stderr.split(separator: "\n").filter { $0.contains("fragmented") }
        #expect(said.count == 1 && said[0] == path + " is saved and plays, but stays fragmented (the disk is full), so some players cannot seek in it. "
                + "Free some space: the library finishes it the next time it is opened.", "\(result.stderr)")
        #expect(try mp4Boxes(path).contains("moof"))
        let frames = try videoFrameTimes(path).count
        // Indexed as it is; once there is room, the next opening of the library makes it regular.
        let listed = try pinhole(["library", "list", "--type", "video"], environment: env)
        #expect(listed.status == 0 && listed.stdout.contains(path), "\(listed.stdout) \(listed.stderr)")
        try disk.resize(to: "1m")
        let opened = try pinhole(["library", "list", "--type", "video"], environment: env)
        #expect(opened.status == 0 && opened.stdout.contains(path), "\(opened.stdout) \(opened.stderr)")
        let boxes = try mp4Boxes(path)
        #expect(!boxes.contains("moof") && boxes.hasPrefix("ftyp moov"), "finished as a regular MP4: \(boxes)")
        #expect(try videoFrameTimes(path).count == frames)
        #expect(try decodesCleanly(path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [(path as NSString).lastPathComponent], "no temporary files")
    }

    @Test("record into a folder the user cannot write, or a path that cannot be made: exit 6, one line, no file, nothing said to be kept")
    func recordUnwritable() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        // As an ordinary user (tests run as root, which may write anywhere): a folder without write permission.
        let locked = folder.path("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked)
        let denied = try pinhole(["record", "--device", "test", "--size", "640x480", "--no-audio", "--duration", "1", "-o", locked + "/x.mp4"],
                                 environment: env, asUser: 65534)
        #expect(denied.status == 6, "\(denied.stderr)")
        #expect(denied.stderr == "pinhole: Cannot save \(locked)/x.mp4: permission denied. Choose a folder you can write with -o.\n", "\(denied.stderr)")
        #expect(denied.stdout.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked).isEmpty)
        // A path under a regular file (ENOTDIR), which the camera's first frame finds when it opens the file.
        let plain = try folder.file("plain", [1, 2, 3]).path
        let notFolder = try pinhole(["record", "--device", "test", "--size", "640x480", "--no-audio", "--duration", "1", "-o", plain + "/x.mp4"], environment: env)
        #expect(notFolder.status == 6, "\(notFolder.stderr)")
        let lines = notFolder.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("a part of the path is not a folder") && !notFolder.stderr.contains("kept"), "\(notFolder.stderr)")
        #expect(notFolder.stdout.isEmpty)
        // A folder that does not exist.
        let missing = try pinhole(["record", "--device", "test", "--size", "640x480", "--no-audio", "--duration", "1", "-o", folder.path("nowhere/x.mp4")], environment: env)
        #expect(missing.status == 6 && missing.stderr.contains("does not exist") && !missing.stderr.contains("kept"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("nowhere")))
    }

    @Test("record refuses bad arguments (exit 2) and a size the camera lacks (exit 1), in one line")
    func recordBadArguments() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let format = try pinhole(["record", "--device", "test", "--format", "avi"], environment: env)
        #expect(format.status == 2 && format.stderr.contains("--format must be mp4 or webm"))
        let both = try pinhole(["record", "--device", "test", "--audio", "x", "--no-audio"], environment: env)
        #expect(both.status == 2)
        let size = try pinhole(["record", "--device", "test", "--size", "123x45", "--no-audio"], environment: env)
        #expect(size.status == 1 && size.stderr.contains("123×45") && size.stderr.split(separator: "\n").count == 1, "\(size.stderr)")
        let exists = try folder.file("taken.mp4", [1, 2, 3]).path
        let taken = try pinhole(["record", "--device", "test", "--size", "640x480", "--no-audio", "-o", exists], environment: env)
        #expect(taken.status == 6 && taken.stderr.contains("never replace"), "\(taken.stderr)")
    }
}

extension CLITests {
    @Test("record with sound from the default microphone (a private PulseAudio server): AAC with the 440 Hz tone; an unknown --audio source exits 1 naming the ones there are; no server: silent, and a line says so")
    func recordSound() throws {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        let server = try PrivateSoundServer()
        defer { server.stop() }
        env["PULSE_SERVER"] = server.address
        let path = folder.path("sound.mp4")
        let result = try pinhole(["record", "--device", "test", "--size", "640x480", "--duration", "2", "-o", path], environment: env)
        #expect(result.status == 0 && !result.stderr.contains("without sound"), "\(result.stderr)")
        let audio = try ffprobe(path, select: "a:0", "stream=codec_name,sample_rate,channels")
        #expect(audio["codec_name"] == "aac" && audio["sample_rate"] == "48000" && audio["channels"] == "2", "\(audio)")
        let samples = try decodedSound(path)
        let middle = Array(samples[(samples.count / 4)..<(samples.count * 3 / 4)])
        #expect(goertzel(middle, frequency: 440, rate: 48_000) > 100 * goertzel(middle, frequency: 600, rate: 48_000))

        let unknown = try pinhole(["record", "--device", "test", "--audio", "no-such-mic", "--duration", "1", "-o", folder.path("never.mp4")], environment: env)
        #expect(unknown.status == 1 && unknown.stderr.contains("no-such-mic") && unknown.stderr.contains("sine"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("never.mp4")))

        env["PULSE_SERVER"] = "unix:" + folder.path("nobody-listens")
        let silentPath = folder.path("silent.mp4")
        let silent = try pinhole(["record", "--device", "test", "--size", "640x480", "--duration", "1", "-o", silentPath], environment: env)
        #expect(silent.status == 0 && silent.stderr.contains("No sound server is running"), "\(silent.stderr)")
        #expect(try ffprobe(silentPath, select: "a", "stream=codec_name").isEmpty, "no audio stream")
    }
}

extension CLITests {
    @Test("on a terminal, record shows elapsed time, size and dropped frames as it goes, and clears the line at the end")
    func recordProgress() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let path = folder.path("tty.mp4")
        // script(1) gives pinhole a pseudo-terminal; what it wrote there comes back on stdout.
        let command = "'\(pinholeBinary)' record --device test --size 640x480 --duration 2 --no-audio -o '\(path)'"
        let result = try runTool("script", ["-qec", command, "/dev/null"], environment: env)
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        // "Recording 0:01  0.2 MB  0 dropped  (Ctrl-C stops)": how many were dropped depends on the machine.
        #expect(result.stdout.range(of: #"\rRecording 0:0\d  \d+\.\d MB  \d+ dropped  \(Ctrl-C stops\) "#, options: .regularExpression) != nil, "\(result.stdout)")
        #expect(result.stdout.contains("\r\u{1B}[K"), "the progress line is cleared")
        #expect(result.stdout.contains(path))
    }

    @Test("frames dropped because encoding could not keep up: one line with the count (as RecordingAccount reads it), the movie's and the camera's frames per second, and advice naming only options `pinhole record` has (--format mp4 only for a WebM)")
    func droppedFramesLine() throws {
        let help = try pinhole(["record", "--help"]).stdout
        let mp4 = RecordCommand.droppedLine(dropped: 17, kept: 7, camera: 12.5, format: .mp4)
        #expect(mp4 == "17 frames were dropped, evenly, because encoding could not keep up: the movie has 7 frames per second instead of 12.5; try a smaller --size or a lower --fps.")
        let webm = RecordCommand.droppedLine(dropped: 40, kept: 9.64, camera: 30, format: .webm)
        #expect(webm.hasPrefix("40 frames were dropped") && webm.contains(" 9.6 frames per second instead of 30;") && webm.hasSuffix("or --format mp4."), "\(webm)")
        // 3 frames left out of an hour at 30 fps (the soak's figure): not "30 instead of 30".
        let hour = RecordCommand.droppedLine(dropped: 3, kept: 107_997.0 / 3600, camera: 30, format: .mp4)
        #expect(hour.contains(" 29.99 frames per second instead of 30;"), "\(hour)")
        for line in [mp4, webm, hour] {
            #expect(!line.contains("\n"))
            let options = line.matches(of: /--[a-z]+/).map { String($0.output) }
            #expect(!options.isEmpty)
            for option in options { #expect(help.contains(option + " "), "\(option) is not in `pinhole record --help`") }
        }
        #expect(!mp4.contains("--format"), "an MP4 is already MP4")
    }
}
