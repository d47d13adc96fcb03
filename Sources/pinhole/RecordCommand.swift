import Capture
import Dispatch
import Foundation
import Media
import PhotoLibrary

/// `pinhole record`: records a movie until a duration, a size or Ctrl-C, and prints where it went.
enum RecordCommand {
    static var help: String {
        Help.page(L("Usage: pinhole record [options]"),
                  L("Records video (with sound from the default microphone when there is one) until --duration,\n--max-size or Ctrl-C, and prints the saved file's path. Movies go into the library:\n$XDG_VIDEOS_DIR/Camera (\"Video from YYYY-MM-DD HH-MM-SS.mmm.mp4\"); with -o, to a plain file.\nThe file plays even if pinhole is killed: at most the last second is lost."),
                  [.init("--device ID|PATH", L("camera ID (see `pinhole devices`), device node, or test-front/test-back")),
                   .init("--size WxH", L("video size (default: the largest up to 1920x1080 the camera streams at 24 fps or more)")),
                   .init("--fps N", L("frame rate (default: the fastest at that size)")),
                   .init("--duration SECONDS", L("stop after this long")),
                   .init("--max-size MB", L("stop once the file reaches this size (it may pass it by up to a second's worth)")),
                   .init("--audio SOURCE", L("record from this PulseAudio/PipeWire source (see `pactl list sources short`)")),
                   .init("--no-audio", L("record without sound")),
                   .init("--format mp4|webm", L("H.264 + AAC in MP4 (default) or VP9 + Opus in WebM")),
                   .init("--quality N", L("constant-rate factor: lower is better and larger (default 23; 0–51)")),
                   .init("-o, --output PATH", L("file to write, or an existing folder to write into")),
                   .init("-h, --help")], width: 22)
    }

    static func run(_ arguments: [String]) async throws(CLIError) {
        let stalled = Lock(false)
        var arguments = Arguments(arguments)
        if arguments.flag("-h", "--help") { output(help); return }
        let deviceID = try arguments.option("--device")
        let sizeText = try arguments.option("--size")
        let fps = try arguments.integer("--fps", range: 1...240)
        let duration = try arguments.number("--duration", range: 0.1...86_400)
        let maxSize = try arguments.number("--max-size", range: 0.1...1_000_000)
        let audioSource = try arguments.option("--audio")
        let noAudio = arguments.flag("--no-audio")
        let formatText = try arguments.option("--format") ?? "mp4"
        let quality = try arguments.integer("--quality", range: 0...63) ?? 23
        let destination = try arguments.option("-o", "--output")
        _ = try arguments.finish()
        guard let format = MovieSettings.Format(rawValue: formatText.lowercased()) else { throw .usage(L("--format must be mp4 or webm, not '%@'", formatText)) }
        if noAudio && audioSource != nil { throw .usage(L("--audio and --no-audio cannot be used together")) }
        var requested: CaptureDevice.Dimensions?
        if let sizeText {
            let parts = sizeText.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
                throw .usage(L("--size must be WIDTHxHEIGHT such as 1280x720, not '%@'", sizeText))
            }
            requested = .init(width: w, height: h)
        }

        MovieWriter.tuneMemoryForRecording()
        // Sound from the microphone asked for, else the default one, looked up before the camera
        // opens (a wrong --audio name must not start the camera); without one (no sound server,
        // no microphone), the movie is silent and we say why once it is recording: a run that
        // fails before (a wrong --device, a name taken) says only what failed.
        var microphone: Microphone?
        var silentBecause: CaptureError?
        if !noAudio {
            do throws(CaptureError) { microphone = try Microphone.microphone(withID: audioSource) } catch {
                if let audioSource { throw .audioUnavailable(source: audioSource, error) }
                silentBecause = error
            }
        }
        let device = try SnapCommand.pickDevice(id: deviceID, position: .unspecified)
        if device.deviceType == .virtual && deviceID == nil {
            FileHandle.standardError.write(Data((L("No camera found: using Pinhole's test camera.") + "\n").utf8))
        }
        let (streamFormat, interval) = try chooseFormat(device, size: requested, fps: fps)
        let session = CaptureSession()
        session.sessionPreset = .inputPriority
        let movie = MovieFileOutput()
        movie.options = .init(format: format, quality: .constantRateFactor(quality))
        movie.maxRecordedDuration = duration
        movie.maxRecordedFileSize = maxSize.map { Int64($0 * 1_000_000) }
        do {
            try device.lockForConfiguration()
            try device.setActiveFormat(streamFormat, frameInterval: interval)
            device.unlockForConfiguration()
            session.addInput(try CaptureDeviceInput(device: device))
            session.addOutput(movie)
            try await session.start()
        } catch {
            throw .capture(error)
        }
        defer { session.stopRunning() }

        // Where the movie goes: the library's videos folder (indexed when finished), or -o.
        let library = destination == nil ? try await LibraryCommand.open() : nil
        let started = Date().timeIntervalSince1970
        let name = PhotoLibrary.fileName(date: started, extension: format.fileExtension, mediaType: .video)
        var path = try target(destination: destination, library: library, name: name)
        // The folder of a name made here (the library's, or -o's folder), where another name may be
        // chosen; nil for a file named by -o, which is never replaced.
        let namedHere = path.hasSuffix("/" + name) ? String(path.dropLast(name.count + 1)) : nil
        if let folder = namedHere { path = PhotoLibrary.newVideoPath(in: folder, date: started, extension: format.fileExtension) }
        // The microphone is started only now, next to the first frames (found before the camera
        // opened: see `microphone` above).
        var sound: AudioDataOutput?
        if let microphone {
            let output = AudioDataOutput(settings: .init(channels: microphone.nativeChannelCount >= 2 ? .stereo : .mono, microphoneID: microphone.uniqueID))
            do throws(CaptureError) {
                try await output.start()
                sound = output
                movie.recordSound(from: output)
            } catch {
                if let audioSource { throw .audioUnavailable(source: audioSource, error) }
                withoutSound(error)
            }
        }
        var attempts = 0
        while true {
            do {
                try await movie.startRecording(to: path, timeout: 10)
                break
            } catch {
                // Another recording took the name since (started in the same millisecond): the
                // next free one, as every new file gets.
                if case .recordingFailed(_, .file(.exists, _)) = error, let folder = namedHere, attempts < 10 {
                    attempts += 1
                    path = PhotoLibrary.newVideoPath(in: folder, date: started, extension: format.fileExtension)
                    continue
                }
                await sound?.stop()
                if case .recordingFailed(_, .noFrame) = error { throw .capture(.timeout(device: device.localizedName, seconds: 10)) }
                throw .capture(error)
            }
        }
        if let silentBecause { withoutSound(silentBecause) }

        // Ctrl-C and SIGTERM finish the file instead of killing the process (unblocked first: a
        // parent may have started us with them blocked, as test runners do).
        var unblock = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, SIGINT)
        sigaddset(&unblock, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await movie.stopRecording() } }
            source.resume()
            return source
        }
        defer { for source in signals { source.cancel() } }
        let progress = Task { await showProgress(movie) }
        // A camera that stops sending (a privacy shutter, a hung driver) would keep the limits
        // from ever being checked: after 10 s without a frame from the camera, the recording is
        // finished. What the camera sends counts, not what reaches the file: an encoder that is
        // slow to start or falls behind is no silent camera.
        let watchdog = Task {
            var last = -1, still = 0
            while !Task.isCancelled, movie.isRecording {
                try? await Task.sleep(for: .seconds(1))
                let count = movie.receivedFrameCount
                still = count == last ? still + 1 : 0
                last = count
                if still >= 10 {
                    stalled.withLock { $0 = true }
                    await movie.stopRecording()
                }
            }
        }
        let summary = await movie.waitUntilFinished()
        await sound?.stop()
        progress.cancel()
        watchdog.cancel()
        _ = await progress.value
        if stalled.withLock({ $0 }) {
            if summary?.frameCount ?? 0 > 0 { output(path) }
            throw .capture(.timeout(device: device.localizedName, seconds: 10))
        }
        if let error = movie.lastError {
            if case .recordingLimitReached = error {} else {
                if summary?.frameCount ?? 0 > 0 { output(path) }
                throw .capture(error)
            }
        }
        guard let summary, summary.frameCount > 0 else { throw .capture(.timeout(device: device.localizedName, seconds: 10)) }
        if summary.droppedFrameCount > 0 {
            let kept = summary.keptFrameRate ?? Double(summary.frameCount) / max(summary.duration, 0.001)
            FileHandle.standardError.write(Data((droppedLine(dropped: summary.droppedFrameCount, kept: kept, camera: summary.cameraFrameRate, format: format) + "\n").utf8))
        }
        if summary.skippedFrameCount > 0 {
            FileHandle.standardError.write(Data((L("%@ frames were skipped by the camera: it could not keep its frame rate; try a smaller --size or --fps.", String(summary.skippedFrameCount)) + "\n").utf8))
        }
        // The movie is complete and plays, so this is no failure (exit 0), but it must be said:
        // players that seek only in a fragmented MP4's first fragment would show a second of it.
        if let reason = summary.leftFragmented {
            FileHandle.standardError.write(Data((leftFragmentedLine(path: path, reason: reason, inLibrary: library != nil) + "\n").utf8))
        }
        if let library {
            do {
                _ = try await library.performChanges { $0.createAsset(fromVideoFile: path, moving: true) }
            } catch {
                output(path)
                await library.stopBackgroundThumbnails()
                throw .library(error)
            }
            // Thumbnails the opening started for files it found new: none left half-written at exit.
            await library.stopBackgroundThumbnails()
        }
        output(path)
    }

    /// The line for frames dropped because encoding could not keep up: how many, that they were
    /// left out evenly (the movie keeps its length with fewer frames per second: `kept`, against
    /// the camera's `camera`), and what records them all: a smaller --size or a lower --fps (or
    /// MP4's faster encoder, for a WebM).
    static func droppedLine(dropped: Int, kept: Double, camera: Double, format: MovieSettings.Format) -> String {
        let (kept, camera) = RecordingSummary.frameRateWords(kept: kept, camera: camera)
        let count = String(dropped)
        return format == .mp4
            ? L("%@ frames were dropped, evenly, because encoding could not keep up: the movie has %@ frames per second instead of %@; try a smaller --size or a lower --fps.", count, kept, camera)
            : L("%@ frames were dropped, evenly, because encoding could not keep up: the movie has %@ frames per second instead of %@; try a smaller --size, a lower --fps or --format mp4.", count, kept, camera)
    }

    /// The line for a movie left fragmented because its final rewrite into a regular MP4 failed
    /// (no room for the copy it makes): what that means, and what finishes it — the library, the
    /// next time it is opened, for a movie in it; FFmpeg's copy for one written elsewhere with -o.
    static func leftFragmentedLine(path: String, reason: MediaError, inLibrary: Bool) -> String {
        let why = if case let .io(_, failure) = reason { CLIError.words(failure) } else { reason.description }
        let saved = L("%@ is saved and plays, but stays fragmented (%@), so some players cannot seek in it.", readable(path), why)
        let advice = inLibrary
            ? L("Free some space: the library finishes it the next time it is opened.")
            : L("Free some space and rewrite it with `ffmpeg -i FILE -c copy -movflags faststart NEW.mp4`.")
        return saved + " " + advice
    }

    /// Says why the movie will be silent (some sound errors say so themselves).
    static func withoutSound(_ error: CaptureError) {
        let text = CLIError.line(for: error)
        let saysSo = switch error {
        case .noSoundServer, .soundServerNotResponding, .noMicrophone: true
        default: false
        }
        FileHandle.standardError.write(Data((oneLine(saysSo ? text : L("Recording without sound: %@", text)) + "\n").utf8))
    }

    /// The stream format: the size asked (else the largest up to 1080p at ≥ 24 fps: what two cores
    /// encode in real time), at the rate asked (else the fastest); among equal choices a raw
    /// format, which needs no decoding.
    static func chooseFormat(_ device: CaptureDevice, size: CaptureDevice.Dimensions?, fps: Int?) throws(CLIError) -> (CaptureDevice.Format, FrameInterval?) {
        let candidates = device.formats.filter { format in
            (size == nil || format.dimensions == size!) && (fps == nil || format.frameIntervals.contains { abs($0.framesPerSecond - Double(fps!)) < 0.5 })
        }
        let smooth = size == nil && fps == nil
            ? candidates.filter { $0.maxFrameRate >= 24 && $0.dimensions.width * $0.dimensions.height <= 1920 * 1080 } : candidates
        let pool = smooth.isEmpty ? candidates : smooth
        guard let best = pool.max(by: { a, b in
            let areaA = a.dimensions.width * a.dimensions.height, areaB = b.dimensions.width * b.dimensions.height
            if areaA != areaB { return areaA < areaB }
            if a.maxFrameRate != b.maxFrameRate { return a.maxFrameRate < b.maxFrameRate }
            return a.pixelFormat == .mjpeg && b.pixelFormat != .mjpeg
        }) else {
            let offered = Set(device.formats.map { "\($0.dimensions)" }).sorted().joined(separator: ", ")
            let what = switch (size, fps) {
            case let (size?, fps?): L("%@ at %@ fps", size.description, String(fps))
            case let (size?, nil): size.description
            case let (nil, fps?): L("video at %@ fps", String(fps))
            case (nil, nil): L("video")
            }
            throw .capture(.unsupported(L("%@ (%@ offers %@)", what, device.localizedName, offered)))
        }
        let interval = fps.flatMap { wanted in best.frameIntervals.first { abs($0.framesPerSecond - Double(wanted)) < 0.5 } }
        return (best, interval ?? best.frameIntervals.first)
    }

    /// The movie's path: inside the library's videos folder, or -o's file or folder.
    static func target(destination: String?, library: PhotoLibrary?, name: String) throws(CLIError) -> String {
        guard let destination else { return (library?.location.videos ?? UserDirectories.videos + "/Camera") + "/" + name }
        var isFolder: ObjCBool = false
        if destination.hasSuffix("/") || (FileManager.default.fileExists(atPath: destination, isDirectory: &isFolder) && isFolder.boolValue) {
            return (destination.hasSuffix("/") ? String(destination.dropLast()) : destination) + "/" + name
        }
        if FileManager.default.fileExists(atPath: destination) {
            throw .cannotWrite(path: destination, failure: .exists)
        }
        return destination
    }

    /// "Recording 0:05  3.2 MB  0 dropped" on a terminal, twice a second.
    static func showProgress(_ movie: MovieFileOutput) async {
        guard isatty(STDERR_FILENO) != 0 else { return }
        while !Task.isCancelled {
            let seconds = Int(movie.recordedDuration)
            let megabytes = Double(movie.recordedFileSize) / 1_000_000
            let line = L("Recording %@  %@ MB  %@ dropped  (Ctrl-C stops)", String(format: "%d:%02d", seconds / 60, seconds % 60),
                         String(format: "%.1f", megabytes), String(movie.droppedFrameCount + movie.skippedFrameCount))
            FileHandle.standardError.write(Data(("\r" + line + " ").utf8))
            try? await Task.sleep(for: .milliseconds(500))
        }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
