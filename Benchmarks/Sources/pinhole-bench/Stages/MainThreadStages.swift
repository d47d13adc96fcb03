import Capture
import Dispatch
import Glibc
import Media
import PinholeTestSupport
import PhotoLibrary
import Synchronization

extension Stage {
    /// One thread, run as a toolkit's main loop runs, drives what the camera app does — open the
    /// library, find the test camera, configure and start a session, show preview frames, take
    /// a photo, write it and save it, record and stop, add the video, list and thumbnail the library, stop
    /// — and the longest stretch that thread spent in one go is reported. A measurement, not a
    /// pass or fail: the aim is under 5 ms.
    static var mainThreadBlocking: Stage {
        Stage(name: "main-thread blocking", sizes: [.hd1080]) { bench, size in
            try MainThreadBenchmark(bench: bench, size: size).rows()
        }
    }
}

/// A serial executor whose jobs all run on one dedicated thread, each timed from start to end:
/// a job that waits on a device, the disk or another thread keeps the thread from everything
/// else for that long, as it would keep a UI from drawing.
final class TimedThreadExecutor: SerialExecutor, Sendable {
    /// One timed job: how long it held the thread, and the step the driver was in.
    struct Job: Sendable {
        /// Nanoseconds from the job's start to its end.
        let nanoseconds: Int64
        /// Of those, nanoseconds the thread waited in the run queue for a CPU (preempted by other
        /// processes on a busy machine: not the job's doing), from /proc's schedstat.
        let runQueueNanoseconds: Int64
        /// The job's length without its wait for a CPU: what the code held the thread for.
        var heldNanoseconds: Int64 { max(0, nanoseconds - runQueueNanoseconds) }
        /// The driver's step when it ended.
        let step: String
    }

    /// What the thread has run so far.
    struct Record: Sendable {
        /// The step the driver is in (set by the driver, which runs on the thread).
        var step = "starting"
        /// Every job, in order.
        var jobs: [Job] = []
    }

    /// Jobs waiting to run, and whether the thread should end once none are left.
    private let pending = Mutex<(jobs: [UnownedJob], stopping: Bool)>(([], false))
    /// Posted once per job queued, and once to stop.
    private let wake = DispatchSemaphore(value: 0)
    /// The timings.
    private let record = Mutex(Record())
    /// The thread, once started.
    private let thread = Mutex<pthread_t?>(nil)

    /// Queues `job` for the thread.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pending.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// This executor, as the runtime refers to it.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Names the step that the jobs from now on belong to.
    func setStep(_ step: String) { record.withLock { $0.step = step } }

    /// Everything timed so far.
    var timings: Record { record.withLock { $0 } }

    /// Starts the thread.
    func start() {
        var handle = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&handle, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<TimedThreadExecutor>.fromOpaque(argument).takeRetainedValue().loop()
            return nil
        }, context)
        thread.withLock { $0 = handle }
    }

    /// Lets the thread end once its queue is empty, and waits for it.
    func stop() {
        pending.withLock { $0.stopping = true }
        wake.signal()
        if let handle = thread.withLock({ $0 }) { pthread_join(handle, nil) }
    }

    /// Nanoseconds this thread has waited in the run queue so far (the second field of
    /// /proc/thread-self/schedstat; 0 when the kernel does not keep it).
    static func runQueueNanoseconds() -> Int64 {
        let fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = read(fd, &bytes, bytes.count)
        guard count > 0 else { return 0 }
        let fields = String(decoding: bytes[..<count], as: UTF8.self).split(separator: " ")
        return fields.count >= 2 ? Int64(fields[1]) ?? 0 : 0
    }

    /// The thread's body: runs each job as it comes and times it.
    private func loop() {
        while true {
            wake.wait()
            let (job, stopping) = pending.withLock { state -> (UnownedJob?, Bool) in
                (state.jobs.isEmpty ? nil : state.jobs.removeFirst(), state.stopping)
            }
            guard let job else {
                if stopping { return }
                continue
            }
            let waited = TimedThreadExecutor.runQueueNanoseconds()
            let start = MonotonicClock.nanoseconds()
            job.runSynchronously(on: asUnownedSerialExecutor())
            let length = MonotonicClock.nanoseconds() - start
            let queued = max(0, TimedThreadExecutor.runQueueNanoseconds() - waited)
            record.withLock { $0.jobs.append(Job(nanoseconds: length, runQueueNanoseconds: min(queued, length), step: $0.step)) }
        }
    }
}

/// The code the one thread runs: an actor on `TimedThreadExecutor`, using only the libraries'
/// public API as the camera app does: their async calls straight from the thread (opening the
/// library, writing a photo), and the one blocking look-up (finding the camera) sent off it.
actor MainThreadDriver {
    /// The thread everything here runs on.
    let executor: TimedThreadExecutor

    /// Runs on `executor`.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A driver on `executor`.
    init(executor: TimedThreadExecutor) { self.executor = executor }

    /// What the drive did, for the table's note.
    struct Summary: Sendable {
        /// Preview frames received on the thread.
        let previewFrames: Int
        /// Frames in the recording.
        let recordedFrames: Int
        /// Assets in the library at the end.
        let assets: Int
    }

    /// Drives a session, a photo, a recording and the library at `size` in a library in `folder`.
    func drive(folder: String, size: FrameSize) async throws -> Summary {
        executor.setStep("open the library")
        let location = LibraryLocation(folder: folder, trash: folder + "/Trash", thumbnails: folder + "/thumbnails")
        let library = try await PhotoLibrary(location: location)
        executor.setStep("find the test camera (off the thread)")
        let device = try await Task.detached { () throws -> CaptureDevice in try CaptureDevice.device(withID: "test-back") }.value

        executor.setStep("configure the session")
        let session = CaptureSession()
        let preview = VideoDataOutput()
        preview.videoSettings = .init(pixelFormat: .bgra, maximumDimensions: .init(width: 960, height: 540))
        let photos = PhotoOutput()
        let movie = MovieFileOutput()
        session.beginConfiguration()
        session.sessionPreset = size == .hd1080 ? .hd1920x1080 : .high
        session.addInput(try CaptureDeviceInput(device: device))
        session.addOutput(preview)
        session.addOutput(photos)
        session.addOutput(movie)
        await session.commitConfiguration()
        executor.setStep("start the session")
        try await session.start()
        let frames = preview.sampleBuffers()
        var previewFrames = 0
        /// Takes `count` preview frames, as a view would draw them; returns how many came.
        func show(_ count: Int) async -> Int {
            var seen = 0
            for await _ in frames {
                seen += 1
                if seen >= count { break }
            }
            return seen
        }
        executor.setStep("preview")
        previewFrames += await show(30)

        executor.setStep("take a photo")
        let photo = try await photos.capturePhoto(with: PhotoSettings())
        executor.setStep("write the photo to a file")
        let written = try await photo.write(to: folder + "/main-thread-bench.jpg")
        unlink(written)
        executor.setStep("save the photo in the library")
        let bytes = photo.fileDataRepresentation()
        _ = try await library.performChanges { $0.createAsset(fromImageData: bytes, name: "photo.jpg") }

        executor.setStep("start recording")
        let path = location.videos + "/main-thread-bench.mp4"
        try await movie.startRecording(to: path, timeout: 10)
        executor.setStep("preview while recording")
        previewFrames += await show(60)
        executor.setStep("stop recording")
        let recorded = await movie.stopRecording()
        executor.setStep("add the video to the library")
        _ = try await library.performChanges { $0.createAsset(fromVideoFile: path, moving: true) }

        executor.setStep("list and thumbnail the library")
        let assets = try await library.assets()
        for asset in assets { _ = try await library.thumbnail(for: asset.id, size: .normal) }
        executor.setStep("stop the session")
        await session.stop()
        executor.setStep("done")
        return Summary(previewFrames: previewFrames, recordedFrames: recorded?.frameCount ?? 0, assets: assets.count)
    }
}

/// Runs `MainThreadDriver` on its own thread and reports the longest job.
struct MainThreadBenchmark {
    /// The bench run.
    let bench: Bench
    /// The camera's stream size.
    let size: FrameSize

    /// One row: the longest time the thread was held, with the next longest and where they were.
    func rows() throws -> [Row] {
        bench.progress("main-thread blocking: a session, a photo, a recording and the library from one thread")
        let folder = bench.scratch + "/main-thread-library"
        defer { removeDirectory(folder) }
        let executor = TimedThreadExecutor()
        executor.start()
        let driver = MainThreadDriver(executor: executor)
        let size = self.size
        let summary = try Blocking.run { try await driver.drive(folder: folder, size: size) }
        executor.stop()
        let jobs = executor.timings.jobs
        let longest = jobs.sorted { $0.heldNanoseconds > $1.heldNanoseconds }
        guard let worst = longest.first else { throw CaptureBenchError(description: "the thread ran nothing") }
        let busy = jobs.reduce(0) { $0 + $1.nanoseconds }
        let top = longest.prefix(5).map { "\(Format.ms(Double($0.heldNanoseconds) / 1e6)) ms (\($0.step))" }.joined(separator: ", ")
        let longestWall = jobs.map(\.nanoseconds).max() ?? 0
        let queued = jobs.reduce(0) { $0 + $1.runQueueNanoseconds }
        let ms = Double(worst.heldNanoseconds) / 1e6
        let note = "longest single job on the one thread, less the time it waited in the run queue for a CPU (/proc schedstat: other processes' doing); the thread drove: opening the library (its async initialiser), finding the test camera (sent off the thread), "
            + "configuring and starting a session (preview, photo and movie outputs), \(summary.previewFrames) preview frames, a photo written to a file (`CapturePhoto.write(to:)`) and saved to the library, "
            + "a recording of \(summary.recordedFrames) frames added to it, \(summary.assets) assets listed and thumbnailed, stopping; "
            + "\(jobs.count) jobs, \(Format.ms(Double(busy) / 1e6)) ms busy in all, of which \(Format.ms(Double(queued) / 1e6)) ms waiting for a CPU; "
            + "longest job by the clock \(Format.ms(Double(longestWall) / 1e6)) ms; longest five (with the step each ended in): \(top). Aim: under 5 ms"
        return [Row(stage: "main-thread blocking: longest job", size: size.name, oursMs: ms, memcpyMs: nil, peer: "—", peerMs: nil,
                    check: Check(text: ms < 5 ? "under 5 ms" : "over 5 ms (\(worst.step))", failed: false), note: note)]
    }
}
