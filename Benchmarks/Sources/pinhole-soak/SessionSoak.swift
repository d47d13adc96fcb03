import Capture
import Glibc
import Media
import PinholeTestSupport

/// The in-process soaks: photos through one session, and session start/stop cycles, on
/// Pinhole's virtual back camera ("test-back") streaming YUYV 1280×720 at its fastest rate, with
/// this process's census printed along the way.
enum SessionSoak {
    /// The camera's stream.
    static let size = CaptureDevice.Dimensions(width: 1280, height: 720)
    /// How much resident memory may grow from the census after the warm-up to the last one,
    /// with the session in the same state: a leak of 1 KiB per photo or cycle over the 9000
    /// photos after the warm-up of a default run (one 1280×720 YUYV frame is 1.8 MiB) exceeds it.
    static let residentGrowthBound = 8 << 20

    /// A session on the test camera with `outputs`, configured as `pinhole snap` does (the
    /// format set under the configuration lock, the preset `.inputPriority`), not started.
    static func session(outputs: [any CaptureOutput]) throws -> CaptureSession {
        let device = try CaptureDevice.device(withID: "test-back")
        guard let format = device.formats.first(where: { $0.pixelFormat == .yuyv && $0.dimensions == size }) else {
            throw SoakError(description: "the test camera offers no YUYV \(size)")
        }
        try device.lockForConfiguration()
        do {
            try device.setActiveFormat(format, frameInterval: format.frameIntervals.first)
            device.unlockForConfiguration()
        } catch {
            device.unlockForConfiguration()
            throw error
        }
        let session = CaptureSession()
        session.sessionPreset = .inputPriority
        session.addInput(try CaptureDeviceInput(device: device))
        for output in outputs { session.addOutput(output) }
        return session
    }

    /// Waits until `session` has delivered more than `count` frames; throws after 10 s.
    static func waitForFrames(after count: Int, in session: CaptureSession) throws {
        let deadline = MonotonicClock.seconds() + 10
        while session.statistics.framesDelivered <= count {
            guard MonotonicClock.seconds() < deadline, session.isRunning else {
                throw SoakError(description: "no frame in 10 s (\(session.statistics.framesDelivered) delivered, running: \(session.isRunning))")
            }
            Sleep.seconds(0.002)
        }
    }

    /// The census now, or a failure when /proc cannot be read.
    static func census() throws -> Census {
        guard let census = Census.of() else { throw SoakError(description: "/proc/self/status has no VmRSS") }
        return census
    }

    /// The most libdispatch workers a soak may end with: 8 per core this process may run on.
    static var poolThreadBound: Int { 8 * max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    /// The warm-up: the first tenth of the run, at most 1000 iterations.
    static func warmUp(_ count: Int) -> Int { max(1, min(1000, count / 10)) }

    /// Prints the verdict of a run from the census after the warm-up and the last one (taken in
    /// the same state: session running for photos, stopped for cycles); true when every rule
    /// holds. Growth is counted, not shrinkage. Threads are judged in two parts: Pinhole's own
    /// (and any but libdispatch's) must not grow; libdispatch's workers, which its pool starts as
    /// load rises (two more were seen under a load average of 12) and bounds itself, must stay
    /// within `poolThreadBound`: a worker lost per photo or cycle passes it within a hundred.
    static func judge(warm: Census, last: Census, iterations: Int, warmUp: Int) -> Bool {
        let files = last.files - warm.files, resident = last.resident - warm.resident
        let own = (warm: warm.threads - warm.poolThreads, last: last.threads - last.poolThreads), threads = own.last - own.warm
        say("threads at the end by name: \(Census.threadNames())")
        let later = iterations - warmUp
        let perIteration = later > 0 ? fixed(Double(resident) / Double(later), 0) + " bytes each" : "no iterations after the warm-up"
        let lines = [
            (files <= 0, verdict(files <= 0, "open fds do not grow after the warm-up", "\(warm.files) → \(last.files) (\(files >= 0 ? "+" : "")\(files))")),
            (threads <= 0, verdict(threads <= 0, "threads other than libdispatch's workers do not grow after the warm-up",
                                   "\(own.warm) → \(own.last) (\(threads >= 0 ? "+" : "")\(threads))")),
            (last.poolThreads <= poolThreadBound,
             verdict(last.poolThreads <= poolThreadBound, "libdispatch's workers stay within \(poolThreadBound) (8 per core)",
                     "\(warm.poolThreads) after the warm-up, \(last.poolThreads) at the end")),
            (resident <= residentGrowthBound,
             verdict(resident <= residentGrowthBound, "VmRSS grows by at most \(mebibytes(residentGrowthBound)) MiB after the warm-up",
                     "\(mebibytes(warm.resident)) → \(mebibytes(last.resident)) MiB (\(resident >= 0 ? "+" : "")\(mebibytes(resident)) MiB over \(later), \(perIteration))")),
        ]
        for (_, line) in lines { say(line) }
        let passed = lines.allSatisfy { $0.0 }
        say(passed ? "PASS" : "FAIL")
        return passed
    }

    /// Takes `count` photos through one running session (`PhotoOutput.capturePhoto`, the
    /// default settings at 1280×720, each written with `write(to:)` — fsynced — and deleted),
    /// printing the census before the session starts, after the warm-up, every 1000 photos, after
    /// the last (still running) and after the session stopped.
    static func photos(_ count: Int) async throws -> Bool {
        let folder = try TemporaryFolder(prefix: "pinhole-soak-photos")
        let warmUp = warmUp(count)
        say("pinhole-soak photos \(count): test-back YUYV \(size.width)×\(size.height), one session, each photo written (fsync) to \(folder.path) and deleted; warm-up \(warmUp) photos")
        say("before (no session):   \(try census().text)")
        let photos = PhotoOutput()
        let session = try session(outputs: [photos])
        try await session.start()
        try waitForFrames(after: 0, in: session)
        let started = MonotonicClock.nanoseconds()
        say("session running:       \(try census().text)")
        let settings = PhotoSettings(maxPhotoDimensions: .init(width: size.width, height: size.height))
        var warm: Census?
        for number in 1...count {
            let photo = try await photos.capturePhoto(with: settings)
            let path = try await photo.write(to: folder.path + "/photo.jpg")
            unlink(path)
            if number == warmUp {
                warm = try census()
                say("after warm-up \(number):   \(warm!.text)  (\(elapsed(since: started)) s)")
                say("  threads by name: \(Census.threadNames())")
            } else if number % 1000 == 0 || number == count {
                say("after \(number) photos: \(try census().text)  (\(elapsed(since: started)) s)")
            }
        }
        let last = try census()
        let statistics = session.statistics
        await session.stop()
        say("after (stopped):       \(try census().text)")
        say("\(count) photos in \(elapsed(since: started)) s; the session delivered \(statistics.framesDelivered) frames "
              + "(\(statistics.framesCorrupt) corrupt, \(statistics.framesDroppedByDriver) dropped by the driver)")
        return judge(warm: warm ?? last, last: last, iterations: count, warmUp: warmUp)
    }

    /// Starts and stops one session `count` times (each start waits for a frame delivered after
    /// it; a photo output is attached, as in the app), printing the census before the first
    /// start, after the warm-up, every 100 cycles, and after the last stop.
    static func cycles(_ count: Int) async throws -> Bool {
        let warmUp = warmUp(count)
        say("pinhole-soak cycles \(count): test-back YUYV \(size.width)×\(size.height), one session with a PhotoOutput, started (a frame awaited) and stopped; warm-up \(warmUp) cycles")
        let session = try session(outputs: [PhotoOutput()])
        say("before:             \(try census().text)")
        let started = MonotonicClock.nanoseconds()
        var warm: Census?
        for number in 1...count {
            try await session.start()
            try waitForFrames(after: session.statistics.framesDelivered, in: session)
            await session.stop()
            if number == warmUp {
                warm = try census()
                say("after warm-up \(number):  \(warm!.text)  (\(elapsed(since: started)) s)")
                say("  threads by name: \(Census.threadNames())")
            } else if number % 100 == 0 || number == count {
                say("after \(number) cycles: \(try census().text)  (\(elapsed(since: started)) s)")
            }
        }
        let last = try census()
        say("\(count) cycles in \(elapsed(since: started)) s")
        return judge(warm: warm ?? last, last: last, iterations: count, warmUp: warmUp)
    }
}

/// A temporary folder (mkdtemp under $TMPDIR or /tmp), removed with what it holds when the value dies.
final class TemporaryFolder {
    /// Its path.
    let path: String

    /// Makes a folder named `prefix`-XXXXXX.
    init(prefix: String) throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/" + prefix + "-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw SoakError(description: "mkdtemp: \(String(cString: strerror(errno)))") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { TemporaryFolder.remove(path) }

    /// Removes `path` and, when it is a folder (not a link to one), everything under it.
    static func remove(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR {
            for name in folderNames(path) { remove(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
