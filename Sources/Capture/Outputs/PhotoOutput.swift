import Dispatch
import Glibc
import Media

/// Receives the stages of a photo capture (the delegate form of `capturePhoto`).
public protocol PhotoCaptureDelegate: AnyObject, Sendable {
    /// The capture is about to take its frame (show a shutter animation; light the screen if
    /// `resolvedSettings.screenFlashRequested`).
    func photoOutput(_ output: PhotoOutput, willCapturePhotoFor resolvedSettings: ResolvedPhotoSettings)
    /// The photo is ready, or failed.
    func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto photo: CapturePhoto?, error: CaptureError?)
}

extension PhotoCaptureDelegate {
    /// Optional.
    public func photoOutput(_ output: PhotoOutput, willCapturePhotoFor resolvedSettings: ResolvedPhotoSettings) {}
}

/// Takes photos from a running session.
///
/// With `.speed` (and `.balanced`) the photo is the streamed frame nearest the moment of the
/// request: the output keeps a copy of the newest frame, so latency is the encode plus the
/// write (zero shutter lag). A photo larger than the stream switches the camera to its largest
/// format for the still and back. An MJPEG camera at the photo size gives its own JPEG, with
/// Pinhole's EXIF added: no decode, no re-encode. Encoding runs on its own queue, never on the
/// streaming thread.
public final class PhotoOutput: FrameConsumer {
    /// A kept frame.
    struct Kept: @unchecked Sendable {
        let buffer: PixelBuffer
        /// Its place in the stream (`State.frameCount` when it came): tells frames apart.
        let sequence: Int
        let timestampNanoseconds: Int64
        let configuration: StreamConfiguration
        let device: CaptureDevice
    }

    private struct State {
        var pool: PixelBufferPool?
        var latest: Kept?
        var waiters: [Int: (skip: Int, continuation: CheckedContinuation<Kept?, Never>)] = [:]
        var nextWaiter = 0
        var configuration: StreamConfiguration?
        var device: CaptureDevice?
        var meanLuma: Double?
        var frameCount = 0
        /// The sequence of the last frame a capture took: no frame makes two photos. Two presses
        /// while the camera is slow (a busy machine) both waited for the next frame, or both found
        /// the same latest one, and made the same photo twice, which the library then refused as
        /// a duplicate ("The photo was not saved: the photo is already in the library").
        var lastTaken = 0
    }
    private let state = Lock(State())
    private let sessionReference = Lock<WeakSession?>(nil)
    private let encoding = DispatchQueue(label: "pinhole.photo-encoding", qos: .userInitiated)
    /// The connection (photos are not mirrored by default, even from front cameras).
    public let connection = CaptureConnection(mirrorsFrontCameraByDefault: false)
    /// Called with true before a flash photo from a camera without a flash LED (light the
    /// screen), and with false after it. The capture waits for the handler to return.
    public let screenFlash = Lock<(@Sendable (Bool) async -> Void)?>(nil)

    /// Luma (0–255) below which `.auto` flash fires.
    public static let autoFlashThreshold = 60.0
    /// Frames to let exposure settle after a format switch with `.quality` (and `.balanced`).
    static let settleFrames: [PhotoSettings.QualityPrioritization: Int] = [.speed: 1, .balanced: 3, .quality: 8]

    /// Makes a photo output.
    public init() {}

    /// Mean luma (0–255) of recent frames, as `.auto` flash judges the scene (nil before any frame).
    public var sceneBrightness: Double? { state.withLock { $0.meanLuma } }

    /// Whether flash `mode` would light the scene for a photo now.
    public func isFlashScene(_ mode: PhotoSettings.FlashMode) -> Bool {
        switch mode {
        case .off: false
        case .on: true
        case .auto: (sceneBrightness ?? 255) < PhotoOutput.autoFlashThreshold
        }
    }

    // MARK: - FrameConsumer

    func attach(to session: CaptureSession?) {
        sessionReference.withLock { $0 = session.map(WeakSession.init) }
    }

    func streamWillStart(_ configuration: StreamConfiguration, device: CaptureDevice) throws(CaptureError) {
        state.withLock { state in
            if state.configuration != configuration { state.pool = nil; state.latest = nil }
            state.configuration = configuration
            state.device = device
        }
    }

    func streamDidStop() {
        let waiting = state.withLock { state -> [CheckedContinuation<Kept?, Never>] in
            state.latest = nil
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    func consume(_ frame: RawFrame, context: FrameContext) {
        let (pool, count) = state.withLock { state -> (PixelBufferPool?, Int) in
            state.frameCount += 1
            if state.pool == nil {
                state.pool = try? PixelBufferPool(format: frame.buffer.format, width: frame.buffer.width, height: frame.buffer.height,
                                                  rowAlignment: 64, compressedCapacity: frame.buffer.format == .mjpeg ? frame.buffer.capacity : nil,
                                                  maximumCount: 3, preallocate: 2)
            }
            return (state.pool, state.frameCount)
        }
        if count % 8 == 1 {
            let luma = PhotoOutput.meanLuma(of: frame.buffer)
            state.withLock { $0.meanLuma = luma ?? $0.meanLuma }
        }
        guard let copy = pool?.makeBuffer() else { return }
        if frame.buffer.format == .mjpeg {
            guard frame.buffer.payloadSize <= copy.capacity else { return }
            copy.baseAddress.copyMemory(from: frame.buffer.baseAddress, byteCount: frame.buffer.payloadSize)
            copy.payloadSize = frame.buffer.payloadSize
        } else {
            do { try PixelConverter().convert(frame.buffer, into: copy) } catch { return }
            copy.yuvRange = frame.buffer.yuvRange
        }
        let kept = Kept(buffer: copy, sequence: count, timestampNanoseconds: frame.timestampNanoseconds, configuration: context.configuration, device: context.device)
        // The frame goes to one capture, the first of those done skipping; the others take the
        // frames after it (a frame makes one photo). Those still skipping count this one.
        let taker = state.withLock { state -> CheckedContinuation<Kept?, Never>? in
            state.latest = kept
            var first: Int?
            for (key, waiter) in state.waiters {
                if waiter.skip <= 0 {
                    if first.map({ key < $0 }) ?? true { first = key }
                } else {
                    state.waiters[key] = (waiter.skip - 1, waiter.continuation)
                }
            }
            guard let first, let waiter = state.waiters.removeValue(forKey: first) else { return nil }
            state.lastTaken = kept.sequence
            return waiter.continuation
        }
        taker?.resume(returning: kept)
    }

    /// Mean luma of a frame from a sparse grid of samples (cheap: ~1000 reads); nil for MJPEG.
    static func meanLuma(of buffer: PixelBuffer) -> Double? {
        guard !buffer.format.isCompressed else { return nil }
        var total = 0.0, count = 0.0
        let stepX = max(1, buffer.width / 32), stepY = max(1, buffer.height / 32)
        for y in stride(from: stepY / 2, to: buffer.height, by: stepY) {
            for x in stride(from: stepX / 2, to: buffer.width, by: stepX) {
                let p = buffer.bgraPixel(x: x, y: y)
                total += 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
                count += 1
            }
        }
        return count > 0 ? total / count : nil
    }

    // MARK: - Capturing

    /// Takes a photo.
    public func capturePhoto(with settings: PhotoSettings = PhotoSettings()) async throws(CaptureError) -> CapturePhoto {
        try await capture(settings, delegate: nil)
    }

    /// Takes a photo and reports to `delegate`, from a task on the global concurrent executor (not
    /// the caller's thread or actor: hop to your own to touch a UI). Returns at once.
    public func capturePhoto(with settings: PhotoSettings, delegate: any PhotoCaptureDelegate) {
        Task {
            do throws(CaptureError) {
                let photo = try await capture(settings, delegate: delegate)
                delegate.photoOutput(self, didFinishProcessingPhoto: photo, error: nil)
            } catch {
                delegate.photoOutput(self, didFinishProcessingPhoto: nil, error: error)
            }
        }
    }

    private func capture(_ settings: PhotoSettings, delegate: (any PhotoCaptureDelegate)?) async throws(CaptureError) -> CapturePhoto {
        guard (1...100).contains(settings.quality) else { throw .invalidConfiguration("photo quality \(settings.quality) is outside 1–100") }
        guard let session = sessionReference.withLock({ $0?.session }), session.isRunning,
              let (configuration, device) = state.withLock({ state in state.configuration.flatMap { c in state.device.map { (c, $0) } } }) else {
            throw .notRunning
        }
        if session.isInterrupted { throw .deviceDisconnected(device: device.localizedName) }
        let wanted = settings.maxPhotoDimensions ?? device.maxPhotoDimensions
        let streamSize = CaptureDevice.Dimensions(width: configuration.width, height: configuration.height)
        // A larger photo than the stream needs the largest format that fits the request, except
        // while a movie records: switching would cut the movie, so the photo is the stream's size.
        let still: StreamConfiguration? = wanted.area > streamSize.area && !session.isRecordingMovie
            ? PhotoOutput.stillConfiguration(for: device, atMost: wanted, preferring: configuration.pixelFormat) : nil
        let flashWanted = isFlashScene(settings.flashMode)
        let ledFlash = flashWanted && device.hasTorch
        let screenFlashRequested = flashWanted && !ledFlash
        let angle = Int(connection.videoRotationAngle)
        let mirrored = connection.isVideoMirrored(for: device)
        let orientation: ExifOrientation
        do { orientation = try ExifOrientation(clockwiseRotation: angle, mirrored: mirrored) } catch { throw .media(error) }

        let preview = ResolvedPhotoSettings(photoDimensions: still.map { .init(width: $0.width, height: $0.height) } ?? streamSize, format: settings.format,
                                            flashFired: ledFlash, screenFlashRequested: screenFlashRequested,
                                            usedCameraJPEG: false, switchedFormat: still != nil, orientation: orientation)
        delegate?.photoOutput(self, willCapturePhotoFor: preview)
        let handler = screenFlash.withLock { $0 }
        if screenFlashRequested, let handler { await handler(true) }

        let frame: Kept
        var settle = PhotoOutput.settleFrames[settings.photoQualityPrioritization] ?? 1
        if let still {
            try await session.switchStream(to: still)
            var ledBefore: Int64?
            if ledFlash { ledBefore = try? lightTorch(device); settle = max(settle, 3) }
            let taken: Result<Kept, CaptureError>
            do throws(CaptureError) { taken = .success(try await nextFrame(skipping: settle, device: device)) } catch { taken = .failure(error) }
            if let ledBefore { try? device.setTransientValue(ledBefore, of: .flashLEDMode) }
            try? await session.switchStream(to: nil)
            frame = try taken.get()
        } else if ledFlash || screenFlashRequested {
            var ledBefore: Int64?
            if ledFlash { ledBefore = try? lightTorch(device) }
            let taken: Result<Kept, CaptureError>
            do throws(CaptureError) { taken = .success(try await nextFrame(skipping: 3, device: device)) } catch { taken = .failure(error) }
            if let ledBefore { try? device.setTransientValue(ledBefore, of: .flashLEDMode) }
            frame = try taken.get()
        } else if let latest = state.withLock({ state -> Kept? in
            // Zero shutter lag: the frame already captured, unless another photo was made of it.
            guard let latest = state.latest, latest.sequence > state.lastTaken,
                  PhotoOutput.age(of: latest) < max(0.2, 2 * configuration.frameInterval.seconds) else { return nil }
            state.lastTaken = latest.sequence
            return latest
        }) {
            frame = latest
        } else {
            frame = try await nextFrame(skipping: 0, device: device)
        }
        if screenFlashRequested, let handler { await handler(false) }
        let kept = frame
        let switched = still != nil
        return try await BlockingWork.run(on: encoding) { () throws(CaptureError) in
            try PhotoOutput.makePhoto(from: kept, settings: settings, orientation: orientation, flashFired: ledFlash,
                                      screenFlashRequested: screenFlashRequested, switchedFormat: switched)
        }
    }

    /// How long a capture waits for a frame before giving up.
    static let frameTimeout = 5.0

    /// Waits for a new frame after skipping `skip` frames; throws when none comes in time
    /// (the stream stopped, or the camera went silent).
    private func nextFrame(skipping skip: Int, device: CaptureDevice) async throws(CaptureError) -> Kept {
        let kept: Kept? = await withCheckedContinuation { continuation in
            let key = state.withLock { state -> Int in
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = (skip, continuation)
                return state.nextWaiter
            }
            encoding.asyncAfter(deadline: .now() + PhotoOutput.frameTimeout) { [self] in
                let expired = state.withLock { $0.waiters.removeValue(forKey: key) }
                expired?.continuation.resume(returning: nil)
            }
        }
        guard let kept else { throw .timeout(device: device.localizedName, seconds: PhotoOutput.frameTimeout) }
        // The frame was handed over under `state`'s lock, then resumed: taking the lock once
        // more orders its pixels before this task's reads where ThreadSanitizer sees it too
        // (the resume's own ordering is inside libswift_Concurrency; an uncontended lock, once a photo).
        state.withLock { _ in }
        return kept
    }

    /// Turns the LED on as a torch for a flash photo and returns the mode it had, which the caller
    /// puts back afterwards. The photo path's own brief use of the LED: it neither takes nor
    /// releases the configuration lock (the app may hold it) and changes no stored setting.
    private func lightTorch(_ device: CaptureDevice) throws(CaptureError) -> Int64? {
        guard let value = device.control(.flashLEDMode)?.menu.first(where: { $0.label.lowercased().contains("torch") })?.value else { return nil }
        let before = try device.value(of: .flashLEDMode)
        try device.setTransientValue(value, of: .flashLEDMode)
        return before
    }

    /// Seconds since a frame was captured.
    static func age(of frame: Kept) -> Double {
        Double(SystemClock.monotonicNanoseconds() - frame.timestampNanoseconds) / 1e9
    }

    /// The format for a still of at most `wanted`: the largest such size, preferring the stream's pixel format, then MJPEG.
    static func stillConfiguration(for device: CaptureDevice, atMost wanted: CaptureDevice.Dimensions, preferring format: PixelFormat) -> StreamConfiguration? {
        let fitting = device.formats.filter { $0.dimensions.width <= wanted.width && $0.dimensions.height <= wanted.height }
        guard let size = fitting.map(\.dimensions).max() else { return nil }
        let candidates = fitting.filter { $0.dimensions == size }
        let chosen = candidates.first { $0.pixelFormat == format } ?? candidates.first { $0.pixelFormat == .mjpeg } ?? candidates[0]
        return StreamConfiguration(pixelFormat: chosen.pixelFormat, width: size.width, height: size.height,
                                   frameInterval: chosen.frameIntervals.last ?? FrameInterval(framesPerSecond: 15))
    }

    /// Encodes a kept frame with EXIF (on the encoding queue).
    static func makePhoto(from frame: Kept, settings: PhotoSettings, orientation: ExifOrientation, flashFired: Bool,
                          screenFlashRequested: Bool, switchedFormat: Bool) throws(CaptureError) -> CapturePhoto {
        let buffer = frame.buffer
        let metadata = ExifMetadata(make: frame.device.manufacturer, model: frame.device.localizedName, software: "Pinhole \(PinholeVersion.string)",
                                    dateTimeOriginal: PhotoOutput.wallClock(ofMonotonic: frame.timestampNanoseconds),
                                    pixelWidth: buffer.width, pixelHeight: buffer.height, orientation: orientation, location: settings.location)
        var usedCameraJPEG = false
        let data: [UInt8]
        // The photo keeps pixels of its own, never the pooled frame: a program holding photos
        // must not starve the pool that zero-shutter-lag capture draws from.
        let pixels: PixelBuffer
        do {
            switch settings.format {
            case .jpeg where buffer.format == .mjpeg:
                let payload = Array(buffer.payload.bindMemory(to: UInt8.self))
                pixels = try PixelBuffer(format: .mjpeg, width: buffer.width, height: buffer.height, bytes: payload)
                data = try JPEGExif.inserting(metadata, into: MotionJPEG.standalone(payload))
                usedCameraJPEG = true
            case .jpeg:
                pixels = try buffer.converted(to: .i420)
                data = try JPEGExif.inserting(metadata, into: JPEGEncoder().encode(pixels, quality: settings.quality))
            case .png:
                pixels = buffer.format == .mjpeg ? try JPEGDecoder().decode(buffer.payload, to: .rgb24) : try buffer.converted(to: .rgb24)
                data = try PNGCodec.encode(pixels, compression: .fast, exif: metadata.encoded(byteOrder: .littleEndian))
            case .heif:
                pixels = buffer.format == .mjpeg ? try JPEGDecoder().decode(buffer.payload, to: .i420) : try buffer.converted(to: .i420)
                data = try HEIFCodec.encode(pixels, quality: settings.quality, exif: metadata.encoded())
            }
        } catch {
            throw .media(error)
        }
        let resolved = ResolvedPhotoSettings(photoDimensions: .init(width: buffer.width, height: buffer.height), format: settings.format,
                                             flashFired: flashFired, screenFlashRequested: screenFlashRequested, usedCameraJPEG: usedCameraJPEG,
                                             switchedFormat: switchedFormat, orientation: orientation)
        return CapturePhoto(settings: settings, resolvedSettings: resolved, metadata: metadata, timestampNanoseconds: frame.timestampNanoseconds,
                            pixelBuffer: pixels, data: data)
    }

    /// The local wall-clock time (with milliseconds and UTC offset) of a CLOCK_MONOTONIC timestamp.
    static func wallClock(ofMonotonic timestamp: Int64) -> ExifDateTime? {
        var monotonic = timespec(), realtime = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        clock_gettime(CLOCK_REALTIME, &realtime)
        let age = Int64(monotonic.tv_sec) * 1_000_000_000 + Int64(monotonic.tv_nsec) - timestamp
        let wall = Int64(realtime.tv_sec) * 1_000_000_000 + Int64(realtime.tv_nsec) - max(0, age)
        var seconds = time_t(wall / 1_000_000_000)
        var local = tm()
        localtime_r(&seconds, &local)
        return try? ExifDateTime(year: Int(local.tm_year) + 1900, month: Int(local.tm_mon) + 1, day: Int(local.tm_mday), hour: Int(local.tm_hour),
                                 minute: Int(local.tm_min), second: Int(local.tm_sec), millisecond: Int(wall % 1_000_000_000 / 1_000_000),
                                 utcOffsetSeconds: Int(local.tm_gmtoff))
    }
}

/// A weak reference to a session (outputs must not keep their session alive).
struct WeakSession: Sendable {
    weak var session: CaptureSession?
    init(_ session: CaptureSession) { self.session = session }
}

/// Pinhole's version, written into EXIF Software.
public enum PinholeVersion {
    /// "0.1.0".
    public static let string = "0.1.0"
}
