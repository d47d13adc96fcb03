import Capture
import Foundation
import Media
import PhotoLibrary

/// `pinhole snap`: takes one or more photos and prints where each was saved.
enum SnapCommand {
    static var help: String {
        Help.page(L("Usage: pinhole snap [options]"),
                  L("Takes a photo with the default camera (Pinhole's test camera when there is none) and prints\nthe saved file's path. Photos go into the photo library: $XDG_PICTURES_DIR/Camera (\"Photo\nfrom YYYY-MM-DD HH-MM-SS.mmm.jpg\"), indexed for `pinhole library` and the app; with -o, to a\nplain file instead. An existing file is never overwritten."),
                  [.init("--device ID|PATH", L("camera ID (see `pinhole devices`), device node, or test-front/test-back")),
                   .init("--position front|back", L("the default camera facing that way")),
                   .init("--size max|WxH", L("photo size (default: max, the camera's largest)")),
                   .init("--format jpeg|png|heif"),
                   .init("--quality N", L("1–100 (JPEG and HEIF; default 92)")),
                   .init("--flash off|on|auto", L("the camera's flash LED where it has one (default off)")),
                   .init("--timer SECONDS", L("wait before taking the photo")),
                   .init("--count N", L("take N photos …")),
                   .init("--interval SECONDS", L("… this far apart (default 1)")),
                   .init("--warmup FRAMES", L("frames to let exposure settle first (default 3 for real cameras, 0 for the test camera)")),
                   .init("-o, --output PATH", L("file to write, or an existing folder to write into")),
                   .init("-h, --help")], width: 22)
    }

    static func run(_ arguments: [String]) async throws(CLIError) {
        var arguments = Arguments(arguments)
        if arguments.flag("-h", "--help") { print(help); return }
        let deviceID = try arguments.option("--device")
        let positionText = try arguments.option("--position")
        let sizeText = try arguments.option("--size") ?? "max"
        let formatText = try arguments.option("--format") ?? "jpeg"
        let quality = try arguments.integer("--quality", range: 1...100) ?? 92
        let flashText = try arguments.option("--flash") ?? "off"
        let timer = try arguments.number("--timer", range: 0...3600) ?? 0
        let count = try arguments.integer("--count", range: 1...10_000) ?? 1
        let interval = try arguments.number("--interval", range: 0...86_400) ?? 1
        let warmupOption = try arguments.integer("--warmup", range: 0...300)
        let output = try arguments.option("-o", "--output")
        _ = try arguments.finish()
        // An existing file is never replaced: a photo goes beside it as "NAME (2)". A device or a
        // pipe named by -o (/dev/null, /dev/stdout, a FIFO) is no such file: a photo beside it
        // would be a surprise in /dev, so it is refused before the camera starts.
        if let output {
            var info = stat()
            if stat(output, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR {
                throw .cannotWrite(path: output, failure: .notRegularFile)
            }
        }

        guard let format = PhotoSettings.Format(rawValue: formatText.lowercased()) else { throw .usage(L("--format must be jpeg, png or heif, not '%@'", formatText)) }
        guard let flash = PhotoSettings.FlashMode(rawValue: flashText.lowercased()) else { throw .usage(L("--flash must be off, on or auto, not '%@'", flashText)) }
        var position = CaptureDevice.Position.unspecified
        if let positionText {
            guard let value = CaptureDevice.Position(rawValue: positionText.lowercased()), value == .front || value == .back else {
                throw .usage(L("--position must be front or back, not '%@'", positionText))
            }
            position = value
        }
        var requested: CaptureDevice.Dimensions?
        if sizeText.lowercased() != "max" {
            let parts = sizeText.lowercased().split(separator: "x")
            guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
                throw .usage(L("--size must be max or WIDTHxHEIGHT such as 1920x1080, not '%@'", sizeText))
            }
            requested = .init(width: w, height: h)
        }

        let device = try pickDevice(id: deviceID, position: position)
        if device.deviceType == .virtual && deviceID == nil {
            FileHandle.standardError.write(Data((L("No camera found: using Pinhole's test camera.") + "\n").utf8))
        }
        let size = requested ?? device.maxPhotoDimensions
        guard let streamFormat = chooseFormat(device, size: size, photoFormat: format) else {
            let sizes = Set(device.formats.map(\.dimensions)).sorted().map(\.description).joined(separator: ", ")
            throw .capture(.unsupported(L("%@ (%@ offers %@)", size.description, device.localizedName, sizes)))
        }
        let warmup = warmupOption ?? (device.deviceType == .virtual ? 0 : 3)

        do {
            try device.lockForConfiguration()
            try device.setActiveFormat(streamFormat, frameInterval: streamFormat.frameIntervals.first)
            device.unlockForConfiguration()
        } catch {
            throw .capture(error)
        }
        let session = CaptureSession()
        session.sessionPreset = .inputPriority
        let photoOutput = PhotoOutput()
        do {
            session.addInput(try CaptureDeviceInput(device: device))
            session.addOutput(photoOutput)
            try await session.start()
        } catch {
            throw .capture(error)
        }
        defer { session.stopRunning() }
        await waitForFrames(session, count: warmup + 1, timeout: 10)
        if session.statistics.framesDelivered == 0 {
            throw .capture(.timeout(device: device.localizedName, seconds: 10))
        }
        if timer > 0 { await countdown(timer) }
        let settings = PhotoSettings(format: format, quality: quality, maxPhotoDimensions: size, flashMode: flash, photoQualityPrioritization: .speed)
        let library = output == nil ? try await LibraryCommand.open() : nil
        for index in 0..<count {
            if index > 0 { try? await Task.sleep(for: .seconds(interval)) }
            let photo: CapturePhoto
            do { photo = try await photoOutput.capturePhoto(with: settings) } catch { throw .capture(error) }
            if photo.resolvedSettings.screenFlashRequested {
                FileHandle.standardError.write(Data((L("%@ has no flash LED: the photo was taken without flash.", device.localizedName) + "\n").utf8))
            }
            if let output {
                do {
                    pinhole.output(try await photo.write(to: destination(output, photo: photo)))
                } catch {
                    if case let .io(failedPath, failure) = error { throw .cannotWrite(path: failedPath, failure: failure) }
                    throw .media(error)
                }
            } else if let library {
                do {
                    pinhole.output(try await library.addPhoto(data: photo.fileDataRepresentation(), name: "the photo").path)
                } catch {
                    await library.stopBackgroundThumbnails()
                    throw .library(error)
                }
            }
        }
        // Opening the library may have started thumbnails of files found new: none is left
        // half-written when the process exits.
        await library?.stopBackgroundThumbnails()
    }

    /// The camera asked for, the default one, or the test camera. When no real camera can be
    /// reached because the camera portal refused (or is missing), that is the error.
    static func pickDevice(id: String?, position: CaptureDevice.Position) throws(CLIError) -> CaptureDevice {
        if let id {
            do throws(CaptureError) {
                let device = try CaptureDevice.device(withID: id)
                if let problem = device.accessProblem { throw problem }
                return device
            } catch {
                if case .deviceNotFound = error, let problem = CaptureDevice.accessProblem(for: .video) { throw .capture(problem) }
                throw .capture(error)
            }
        }
        let device = CaptureDevice.default(for: .video, position: position)
        if device?.deviceType ?? .virtual == .virtual, let problem = CaptureDevice.accessProblem(for: .video) { throw .capture(problem) }
        guard let device else { throw .capture(.noCamera) }
        if device.deviceType == .virtual, let denied = CaptureDevice.DiscoverySession(deviceTypes: [.builtIn, .external]).devices.first(where: { $0.accessProblem != nil }) {
            // A camera exists but cannot be opened: say so instead of silently using the test camera.
            throw .capture(denied.accessProblem!)
        }
        return device
    }

    /// The stream format for a photo of `size`: MJPEG when saving JPEG (the camera's own JPEG is
    /// kept), else a raw format; the fastest frame rate among equals.
    static func chooseFormat(_ device: CaptureDevice, size: CaptureDevice.Dimensions, photoFormat: PhotoSettings.Format) -> CaptureDevice.Format? {
        let matching = device.formats.filter { $0.dimensions == size }
        let preferMJPEG = photoFormat == .jpeg
        return matching.min { a, b in
            let aJPEG = a.pixelFormat == .mjpeg, bJPEG = b.pixelFormat == .mjpeg
            if aJPEG != bJPEG { return aJPEG == preferMJPEG }
            return a.maxFrameRate > b.maxFrameRate
        }
    }

    /// Waits until the session has delivered `count` frames (or `timeout` seconds pass).
    static func waitForFrames(_ session: CaptureSession, count: Int, timeout: Double) async {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(timeout)
        while session.statistics.framesDelivered < count, clock.now < deadline, session.isRunning {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    static func countdown(_ seconds: Double) async {
        let interactive = isatty(STDERR_FILENO) != 0
        var left = seconds
        while left > 0 {
            if interactive { FileHandle.standardError.write(Data(("\r" + L("Taking the photo in %@…", String(Int(left.rounded(.up)))) + " ").utf8)) }
            let step = min(1, left)
            try? await Task.sleep(for: .seconds(step))
            left -= step
        }
        if interactive { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    /// Where a photo goes with -o: the file given, or inside the folder given under the library's
    /// dated name ("Photo from 2026-11-29 14-03-22.123.jpg", local time of the capture).
    static func destination(_ output: String, photo: CapturePhoto) -> String {
        var isFolder: ObjCBool = false
        guard output.hasSuffix("/") || (FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue) else {
            return output
        }
        let taken = photo.metadata.dateTimeOriginal?.date?.timeIntervalSince1970 ?? Date().timeIntervalSince1970
        let name = PhotoLibrary.fileName(date: taken, extension: photo.fileExtension)
        return (output.hasSuffix("/") ? String(output.dropLast()) : output) + "/" + name
    }
}
