import Capture
import Glibc
import Media
import PhotoLibrary

/// The shutter: a photo after the self-timer (with the screen flash where there is no LED),
/// a burst, "Ask before saving", or record/stop in video mode.
extension CameraModel {

    /// The shutter button, Space or Enter: a photo (after the self-timer) or record/stop.
    public func shutter() {
        // With a photo waiting for Save or Cancel, the shutter (Space, Enter) is Save.
        if pendingPhoto != nil { return savePendingPhoto() }
        guard !isQuitting else { return }
        switch mode {
        case .photo: takePhotoAfterCountdown(count: 1)
        case .video:
            // A press while the recording starts stops it once started.
            if isRecording || recordingPhase == .starting { Task { await stopRecording() } } else { startRecordingWork() }
        }
    }

    /// The shutter pressed from outside the camera page (the app's `take-photo` and `record`
    /// actions, over D-Bus from a script): now if the preview runs, else as soon as it does —
    /// the camera is let go behind the gallery and takes a moment to start again. A page that
    /// says why the camera cannot work (busy, no camera…) is the answer: nothing waits for later.
    /// The wait is work in flight: a quit that follows lets the photo be taken and saved first.
    public func shutterWhenReady() {
        guard !isQuitting else { return }
        switch screen {
        case .preview: shutter()
        case .starting, .released:
            guard waitingShutter == nil else { return }
            waitingShutter = work.begin(.waitingShutter)
        default: break
        }
    }

    /// The shutter asked for by `shutterWhenReady` once the screen settled: pressed when the
    /// preview runs (even while quitting: it was asked for before), forgotten otherwise.
    func settleWaitingShutter() {
        guard let ticket = waitingShutter, screen != .starting, screen != .released else { return }
        waitingShutter = nil
        if screen == .preview {
            if pendingPhoto != nil {
                savePendingPhoto()
            } else {
                switch mode {
                case .photo: takePhotoAfterCountdown(count: 1, evenWhileQuitting: true)
                // A recording is not started by a quitting app: nothing would stop it.
                case .video: if !isRecording && recordingPhase == .idle && !isQuitting { startRecordingWork() }
                }
            }
        }
        ticket.end()
    }

    /// Forgets the shutter asked for by `shutterWhenReady` (its work in flight ends unpressed).
    func forgetWaitingShutter() {
        guard let ticket = waitingShutter else { return }
        waitingShutter = nil
        ticket.end()
    }

    /// A burst of the preference's number of photos (not while a photo waits for Save or
    /// Cancel: B then would take photos over the one shown).
    public func burst() {
        guard mode == .photo, !isQuitting, pendingPhoto == nil else { return }
        takePhotoAfterCountdown(count: max(1, preferences.int(PreferenceKey.burstCount)))
    }

    /// Escape: discards the photo waiting for Save or Cancel (with Undo), or cancels a running self-timer.
    public func cancelCountdown() {
        if pendingPhoto != nil { return discardPendingPhoto() }
        countdownTask?.cancel()
        countdownTask = nil
        if countdownRemaining != nil {
            countdownRemaining = nil
        }
    }

    /// Runs the self-timer, then takes `count` photos as one piece of work in flight. Nothing
    /// starts while another capture or a self-timer runs, while a photo waits for confirmation,
    /// or once the app quits (unless `evenWhileQuitting`: a shutter asked for before the quit).
    private func takePhotoAfterCountdown(count: Int, evenWhileQuitting: Bool = false) {
        guard evenWhileQuitting || !isQuitting, screen == .preview, !isDisconnected, countdownTask == nil, !isCapturing, pendingPhoto == nil else { return }
        let seconds = countdown
        guard seconds > 0 else { return capture(count: count, ticket: work.begin(.photo)) }
        countdownTask = Task { [weak self] in
            guard let self else { return }
            for left in stride(from: seconds, to: 0, by: -1) {
                self.countdownRemaining = left
                try? await Task.sleep(for: .seconds(1))
                if Task.isCancelled { return }
            }
            self.countdownRemaining = nil
            self.countdownTask = nil
            // A self-timer cancelled by Escape or by quitting took no photo.
            guard !self.isQuitting else { return }
            self.capture(count: count, ticket: self.work.begin(.photo))
        }
    }

    /// Takes `count` photos one after the other under `ticket`, which ends when the last one is
    /// saved (or held for confirmation).
    private func capture(count: Int, ticket: WorkInFlight.Ticket) {
        isCapturing = true
        captureTask = Task {
            for index in 0..<count {
                // The rest of a burst is not taken once the camera page is left (its camera is let
                // go after the photo being taken).
                guard screen == .preview, index == 0 || wantsCamera else { break }
                await takePhoto(ticket)
            }
            isCapturing = false
            ticket.end()
        }
    }

    /// Takes one photo at the chosen size (the camera's largest by default) and saves it into
    /// the library, or holds it for Save / Cancel, under `ticket` (the shutter press's).
    func takePhoto(_ ticket: WorkInFlight.Ticket) async {
        assert(!ticket.isEnded, "a photo is taken outside its work in flight")
        events.send(.shutter)
        let settings = PhotoSettings(maxPhotoDimensions: Self.dimensions(preferences.string(PreferenceKey.photoSize)), flashMode: flash.mode)
        switch await capture.takePhoto(settings, filter: filter, under: ticket) {
        case let .success(data):
            if preferences.bool(PreferenceKey.askBeforeSaving) && !isQuitting {
                holdForConfirmation(data)
            } else {
                // Quitting, no one is left to ask: the photo is kept.
                await save(photo: data, ticket)
            }
        case let .failure(error):
            toast(CameraWords.translate("The photo could not be taken: %@", CameraWords.reason(error)))
        }
    }

    /// The photo's file, with the live filter applied to its pixels (EXIF kept).
    nonisolated static func filtered(_ photo: CapturePhoto, _ filter: LiveFilter) throws(CaptureError) -> [UInt8] {
        guard let imageFilter = filter.imageFilter, photo.resolvedSettings.format == .jpeg else { return photo.fileDataRepresentation() }
        do {
            let pixels = try photo.decodedPixels()
            try imageFilter.apply(to: pixels)
            let jpeg = try JPEGEncoder().encode(pixels, quality: photo.settings.quality)
            return try JPEGExif.inserting(photo.metadata, into: jpeg)
        } catch {
            throw .media(error)
        }
    }

    /// Shows a photo's file with Save and Cancel instead of saving it; photos taken while one
    /// waits (a burst) wait behind it, each shown in turn.
    func holdForConfirmation(_ data: [UInt8]) {
        pendingPhotos.append(data)
    }

    /// "Save" on the photo shown for confirmation: the next one waiting is shown.
    public func savePendingPhoto() {
        guard !pendingPhotos.isEmpty else { return }
        let data = pendingPhotos.removeFirst()
        let ticket = work.begin(.save)
        Task {
            await save(photo: data, ticket)
            ticket.end()
        }
    }

    /// Saves every photo waiting for confirmation: the app quits where no one can answer (D-Bus,
    /// SIGTERM, logout), or the person chose Save when asked at quit.
    public func keepPendingPhotos() {
        while !pendingPhotos.isEmpty { savePendingPhoto() }
    }

    /// "Cancel" on the photo shown for confirmation: nothing is written anywhere, and the photo
    /// is kept in memory for Undo (`undoDiscard`), which the `photoDiscarded` event offers: the action
    /// can come from another program over D-Bus, and a photo must not go without the person
    /// seeing it.
    public func discardPendingPhoto() {
        guard !pendingPhotos.isEmpty else { return }
        discardedPhotos.append(pendingPhotos.removeFirst())
        if discardedPhotos.count > Self.undoablePhotos { discardedPhotos.removeFirst() }
        events.send(.photoDiscarded)
    }

    /// Discards every photo waiting for confirmation (the person chose Discard when asked at quit).
    public func discardPendingPhotos() {
        while !pendingPhotos.isEmpty { discardPendingPhoto() }
    }

    /// Undo on the "Photo discarded" toast: the last photo discarded waits for confirmation
    /// again, in front.
    public func undoDiscard() {
        guard let data = discardedPhotos.popLast() else { return }
        pendingPhotos.insert(data, at: 0)
    }

    /// How many discarded photos Undo can bring back (the newest ones).
    static let undoablePhotos = 10

    /// Writes `data` into the library under `ticket` (the work it is part of): fsynced and indexed
    /// before this returns, or a toast says why not.
    private func save(photo data: [UInt8], _ ticket: WorkInFlight.Ticket) async {
        assert(!ticket.isEnded, "a photo is saved outside its work in flight")
        guard let library = await openLibrary() else {
            if let error = libraryError { toast(CameraWords.translate("The photo was not saved: %@", CameraWords.reason(error))) }
            return
        }
        do {
            let asset = try await library.addPhoto(data: data)
            Marks.mark(.photoSaved)
            events.send(.photoSaved(asset.path))
            newestItem = asset.path
            newestThumbnail = try? await library.thumbnail(for: asset.id, size: .normal)
        } catch {
            toast(CameraWords.translate("The photo was not saved: %@", CameraWords.reason(error)))
        }
    }
}
