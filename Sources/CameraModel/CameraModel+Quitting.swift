import Capture

/// Quitting, or the window going while the app lives on (a picker open): the camera is let go
/// only after every capture, save and recording in flight has finished (see `WorkInFlight`).
extension CameraModel {

    /// Stops everything (the app is quitting, or its window went), as one piece of work in
    /// flight that ends once the camera is let go: no new shutter, recording or import starts; a
    /// self-timer still counting is cancelled (no photo was taken yet, as with Escape); a
    /// recording is finished and indexed; an import stops after the file it is adding; every
    /// capture and save in flight finishes. Photos waiting for confirmation are the caller's to
    /// keep or discard first (`keepPendingPhotos`, `discardPendingPhotos`). `resume()` undoes it.
    public func shutDown() {
        guard !isQuitting else { return }
        isQuitting = true
        // A shutter a script asked for while the camera was let go (its page left again before
        // the camera ran) can no longer be pressed: nothing starts the camera once quitting has
        // begun, and the quit would wait for it for good. One asked for while the camera starts
        // is pressed once it runs, as `shutterWhenReady` says.
        if !wantsCamera { forgetWaitingShutter() }
        work.start(.shutDown) { [weak self] _ in
            guard let self else { return }
            self.countdownTask?.cancel()
            self.countdownTask = nil
            if self.countdownRemaining != nil {
                self.countdownRemaining = nil
            }
            self.retryTask?.cancel()
            // A recording still starting completes first, then stops (and is saved).
            await self.stopRecording()
            await self.importer.stop()
            // Everything else in flight (this ticket aside) ends: captures, saves, the recording's indexing.
            await self.work.drained(besides: 1)
            guard self.isQuitting else { return }
            self.wantsCamera = false
            self.generation += 1
            self.rotationTask?.cancel()
            self.rotationTask = nil
            await self.capture.stop()
            if self.isQuitting { self.screen = .released }
        }
    }

    /// A window shows the camera again after `shutDown()` (the app was activated again while a
    /// picker kept it running): the camera starts as it did at first.
    public func resume() {
        guard isQuitting else { return }
        isQuitting = false
        wantsCamera = true
        Task { await startCamera() }
    }
}
