import Glibc
import Media

/// The streaming thread: the frame loop, and waiting for an unplugged camera to come back.
extension CaptureSession {
    /// How a frame loop ended.
    enum LoopEnd {
        /// `stopRunning()` asked.
        case stopped
        /// The camera went away: wait for it to come back.
        case disconnected
        /// A fatal error, already reported.
        case failed
    }

    /// The streaming thread: runs the frame loop; after an unplug it lets go of the camera
    /// entirely (some drivers, vivid among them, reconnect only once every handle is closed),
    /// waits for it to come back and resumes by itself.
    func streamThread(_ handoff: BackendHandoff, device: CaptureDevice, configuration set: StreamConfiguration, consumers: [FrameConsumer]) {
        // `current` holds the only reference the thread keeps: no `let` binding may outlive a loop
        // pass, or the old camera would stay open while we wait for it to come back.
        var current = handoff.take()
        while current != nil {
            let end = streamLoop(backend: current!, device: device, configuration: set, consumers: consumers)
            guard end == .disconnected else { return }
            current!.stop()
            device.attach(nil)
            run.withLock { $0.state.backend = nil }
            current = nil
            current = reconnect(device: device, wanted: set)
        }
    }

    /// The frame loop: waits for frames, feeds outputs, counts damage and gaps, and turns driver
    /// failures into events. Silence is measured on the clock (a wait that ends early, for a
    /// driver event, counts only the time it took); `silenceLimit` of it stops the session with
    /// `.timeout`, as a fatal error does.
    func streamLoop(backend: CameraBackend, device: CaptureDevice, configuration set: StreamConfiguration, consumers: [FrameConsumer]) -> LoopEnd {
        var lastSequence: UInt32?
        var lastFrame = SystemClock.monotonicNanoseconds()
        /// Stops the stream after a fatal error: the camera is released, the error reported, and
        /// the queue asked to join this thread.
        func fail(_ error: CaptureError) -> LoopEnd {
            backend.stop()
            device.attach(nil)
            run.withLock { box in
                box.state.running = false
                box.state.interrupted = false
                box.state.backend = nil
                box.state.stream = nil
            }
            emit(.runtimeError(error))
            queue.async { self.reapFailedStream() }
            return .failed
        }
        while !run.withLock({ $0.state.stopRequested }) {
            do throws(CaptureError) {
                let wait = try backend.nextFrame(timeout: 0.2) { (frame: RawFrame) throws(CaptureError) in
                    let gap = lastSequence.map { frame.sequence > $0 ? Int(frame.sequence - $0 - 1) : 0 } ?? 0
                    lastSequence = frame.sequence
                    let context = FrameContext(configuration: set, device: device, gap: gap)
                    for consumer in consumers { consumer.consume(frame, context: context) }
                    run.withLock {
                        $0.state.statistics.framesDelivered += 1
                        $0.state.statistics.framesDroppedByDriver += gap
                    }
                }
                let (delivered, corrupt): (Int, Int) = switch wait {
                case .delivered: (1, 0)
                case .corrupt: (0, 1)
                case .timeout: (0, 0)
                case .handled(let delivered, let corrupt): (delivered, corrupt)
                }
                if corrupt > 0 { run.withLock { $0.state.statistics.framesCorrupt += corrupt } }
                if delivered > 0 {
                    lastFrame = SystemClock.monotonicNanoseconds()
                } else if corrupt == 0 {
                    let silent = Double(SystemClock.monotonicNanoseconds() - lastFrame) / 1e9
                    if silent >= silenceLimit.load(ordering: .relaxed) {
                        return fail(.timeout(device: device.localizedName, seconds: silent))
                    }
                }
            } catch {
                if case .deviceDisconnected = error {
                    run.withLock { $0.state.interrupted = true }
                    emit(.interrupted(.deviceDisconnected))
                    return .disconnected
                }
                return fail(error)
            }
        }
        return .stopped
    }

    /// After an unplug: polls for the camera (same node or ID) and reopens it with the same
    /// stream; nil when the session is stopped first.
    func reconnect(device: CaptureDevice, wanted: StreamConfiguration) -> CameraBackend? {
        var attempt = 0
        while !run.withLock({ $0.state.stopRequested }) {
            var pause = timespec(tv_sec: 0, tv_nsec: 250_000_000)
            nanosleep(&pause, nil)
            attempt += 1
            // The node is back: try at once. Gone: look for the camera under another node every
            // 2 s only (that scan opens every camera).
            guard device.isConnected || (device.path != nil && attempt % 8 == 0) else { continue }
            do throws(CaptureError) {
                let backend = try CaptureSession.makeBackend(for: device)
                _ = try backend.configure(wanted)
                CaptureSession.applySettings(of: device, to: backend)
                try backend.start()
                device.attach(BackendReference(backend))
                run.withLock { box in
                    box.state.backend = backend
                    box.state.interrupted = false
                }
                emit(.interruptionEnded)
                return backend
            } catch {
                continue
            }
        }
        return nil
    }
}

/// Hands a backend to the streaming thread, which takes it out (so no closure keeps the camera
/// open after the thread has let it go).
final class BackendHandoff: @unchecked Sendable {
    private var backend: CameraBackend?
    /// A handoff of `backend`.
    init(_ backend: CameraBackend) { self.backend = backend }

    /// The backend, once.
    func take() -> CameraBackend? {
        defer { backend = nil }
        return backend
    }
}
