import Glibc
import Media

/// The session's queue work: opening the camera and starting its streaming thread, stopping
/// and releasing it, switching to a still capture's stream and back, and joining a thread that
/// ended by itself. Everything here runs on `queue`, one job at a time.
extension CaptureSession {
    /// Switches a running stream to `configuration` (a photo's larger still format), or back to
    /// the preset's choice with nil. Outputs keep their state; frames pause for the switch.
    func switchStream(to configuration: StreamConfiguration?) async throws(CaptureError) {
        let result: Result<Void, CaptureError> = await withCheckedContinuation { continuation in
            queue.async {
                guard self.run.withLock({ $0.state.running }) else {
                    continuation.resume(returning: .failure(.notRunning))
                    return
                }
                let previous = self.streamOverride.withLock { override in
                    defer { override = configuration }
                    return override
                }
                self.stopLocked(emitStopped: false)
                do throws(CaptureError) {
                    try self.startLocked()
                    continuation.resume(returning: .success(()))
                } catch {
                    // The stream that ran before comes back, so the preview goes on (and the next
                    // start is not left in the still format); only when that fails too does the
                    // session stay stopped, with the runtime error startLocked reported.
                    self.streamOverride.withLock { $0 = previous }
                    _ = Result { () throws(CaptureError) in try self.startLocked() }
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    /// Opens the camera for the live configuration (a still capture's stream while one holds
    /// it) and starts streaming, unless it runs already; a failure is also emitted as an event.
    func startLocked() throws(CaptureError) {
        guard !run.withLock({ $0.state.running }) else { return }
        reapFailedStream()
        let config = liveConfiguration
        guard let device = config.inputs.first?.device else { throw .invalidConfiguration("the session has no camera input") }
        let wanted: StreamConfiguration
        if let override = streamOverride.withLock({ $0 }) {
            wanted = override
        } else {
            wanted = try CaptureSession.streamConfiguration(for: device, preset: config.preset)
        }
        do {
            try open(device: device, wanted: wanted, outputs: config.outputs)
        } catch {
            switch error {
            case .deviceBusy: emit(.interrupted(.deviceInUseByAnotherClient))
            case .deviceDisconnected: emit(.interrupted(.deviceDisconnected))
            default: emit(.runtimeError(error))
            }
            throw error
        }
    }

    /// Opens, configures and starts the camera, then the streaming thread.
    private func open(device: CaptureDevice, wanted: StreamConfiguration, outputs: [any CaptureOutput]) throws(CaptureError) {
        let backend = try CaptureSession.makeBackend(for: device)
        let set = try backend.configure(wanted)
        CaptureSession.applySettings(of: device, to: backend)
        for case let consumer as FrameConsumer in outputs { try consumer.streamWillStart(set, device: device) }
        try backend.start()
        device.attach(BackendReference(backend))
        run.withLock { box in
            box.state.running = true
            box.state.interrupted = false
            box.state.stopRequested = false
            box.state.backend = backend
            box.state.stream = set
            box.state.statistics = Statistics()
        }
        let consumers = outputs.compactMap { $0 as? FrameConsumer }
        let handoff = BackendHandoff(backend)
        let thread = StreamingThread.start { [self] in
            streamThread(handoff, device: device, configuration: set, consumers: consumers)
        }
        run.withLock { box in
            box.state.thread = thread
            box.state.threadsStarted += 1
        }
        emit(.started(set))
    }

    /// The control values the program set on `device`, applied to a newly opened camera (at
    /// start, and when it comes back after an unplug). A value the camera no longer takes is
    /// left at the camera's own.
    static func applySettings(of device: CaptureDevice, to backend: CameraBackend) {
        for (control, value) in device.pendingControlValues { try? backend.setValue(value, of: control) }
    }

    /// After the streaming thread ended by itself (a fatal error, or silence): joins it and tells
    /// the outputs the stream stopped, so no thread handle or waiting capture is left behind. The
    /// thread asks for this on the queue when it ends; a start or stop that comes first does it.
    func reapFailedStream() {
        let ended = run.withLock { box -> pthread_t? in
            guard !box.state.running, let thread = box.state.thread else { return nil }
            box.state.thread = nil
            return thread
        }
        guard let ended else { return }
        StreamingThread.join(ended)
        run.withLock { $0.state.threadsJoined += 1 }
        for case let consumer as FrameConsumer in liveConfiguration.outputs { consumer.streamDidStop() }
    }

    /// Streaming threads started but not yet joined (tests check none is left behind).
    var unjoinedStreamingThreads: Int {
        run.withLock { $0.state.threadsStarted - $0.state.threadsJoined }
    }

    /// Stops streaming: joins the thread, releases the camera, tells the outputs, and emits
    /// `.stopped` when asked and it was running.
    func stopLocked(emitStopped: Bool) {
        let (thread, wasRunning) = run.withLock { box -> (pthread_t?, Bool) in
            box.state.stopRequested = true
            box.state.backend?.interrupt()
            let thread = box.state.thread
            box.state.thread = nil
            return (thread, box.state.running)
        }
        if let thread {
            StreamingThread.join(thread)
            run.withLock { $0.state.threadsJoined += 1 }
        }
        let backend = run.withLock { box -> CameraBackend? in
            let backend = box.state.backend
            box.state.backend = nil
            box.state.running = false
            box.state.interrupted = false
            box.state.stream = nil
            return backend
        }
        backend?.stop()
        let config = liveConfiguration
        for input in config.inputs { input.device.attach(nil) }
        for case let consumer as FrameConsumer in config.outputs { consumer.streamDidStop() }
        if wasRunning && emitStopped { emit(.stopped) }
    }

    /// Stops and starts a running stream again, so a configuration change applies.
    func restartLocked() {
        guard run.withLock({ $0.state.running }) else { return }
        stopLocked(emitStopped: false)
        do { try startLocked() } catch { run.withLock { $0.state.running = false } }
    }
}
