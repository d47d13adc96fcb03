import Capture
import Glibc
import Media
import PhotoLibrary

/// Recording a video into the library: sound from the chosen microphone, pause, the suspend
/// inhibition, and the finished movie indexed.
extension CameraModel {

    /// Starts a recording as work in flight, registered now: its ticket is held until the movie
    /// is finished and indexed (or the start did not happen). The recording is `starting` from
    /// the press on, so a second press before it started stops it once started (or keeps it
    /// from starting), and a quit waits for it.
    func startRecordingWork() {
        guard screen == .preview, !isDisconnected, recordingPhase == .idle else { return }
        let ticket = work.begin(.recording)
        recordingPhase = .starting
        stopWhenStarted = false
        Task {
            // A start that did not happen ends the ticket here; one that did hands it to the
            // recording (`finishRecording` ends it).
            if await !startRecording(ticket) {
                recordingPhase = .idle
                ticket.end()
            }
        }
    }

    /// Starts the recording `startRecordingWork` registered (into the library's videos folder,
    /// with sound from the chosen or default microphone when there is one); true when it
    /// started, and `ticket` is then the recording's until `finishRecording` ends it.
    private func startRecording(_ ticket: WorkInFlight.Ticket) async -> Bool {
        // Quitting began after the shutter, before this ran (the quit's stop found nothing to
        // stop), or a second press stopped it: nothing starts (a recording started now would
        // run on and hold the quit).
        guard screen == .preview, !isDisconnected, !isQuitting, !stopWhenStarted else { return false }
        assert(!ticket.isEnded, "a recording starts outside its work in flight")
        // The library is opened first: the movie is indexed when it ends.
        guard await openLibrary() != nil else {
            if let error = libraryError { toast(CameraWords.translate("The video could not be started: %@", CameraWords.reason(error))) }
            return false
        }
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME, &clock)
        let now = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9
        isRecording = true
        let started = await capture.startRecording(in: libraryLocation.videos, date: now, microphoneID: preferences.string(PreferenceKey.microphone), under: ticket)
        if let failure = started.failure {
            isRecording = false
            toast(CameraWords.translate("The video could not be started: %@", CameraWords.reason(failure)))
            return false
        }
        if started.soundProblem != nil, !saidNoMicrophone {
            saidNoMicrophone = true
            toast(L("No microphone: the video is recorded without sound."))
        }
        recordingPhase = .recording
        recordingTicket = ticket
        isRecordingPaused = false
        isRecordingRolling = true
        inhibitsSuspend = true
        // Stopped while it started, or quitting began meanwhile: it ends now (and is saved).
        if stopWhenStarted || isQuitting { await stopRecording() }
        return true
    }

    /// Stops the recording, finishes the file and adds it to the library (a recording still
    /// starting stops once it has started; its ticket keeps it in flight until then).
    public func stopRecording() async {
        if recordingPhase == .starting { stopWhenStarted = true }
        guard recordingPhase == .recording, let ticket = recordingTicket else { return }
        recordingTicket = nil
        await finishRecording(ticket)
    }

    /// Finishes the recording under its ticket (ended when the movie is indexed, or said not to be).
    private func finishRecording(_ ticket: WorkInFlight.Ticket) async {
        assert(!ticket.isEnded, "a recording finishes outside its work in flight")
        recordingPhase = .stopping
        defer {
            recordingPhase = .idle
            ticket.end()
        }
        let ended = await capture.stopRecording(under: ticket)
        isRecording = false
        isRecordingRolling = false
        isRecordingPaused = false
        inhibitsSuspend = false
        if let error = ended.error, !error.isLimit {
            toast(CameraWords.translate("The video stopped early: %@", CameraWords.reason(error)))
        }
        guard let summary = ended.summary, summary.frameCount > 0 else { return }
        if let kept = summary.keptFrameRate { toast(Self.droppedFramesWords(kept: kept, camera: summary.cameraFrameRate)) }
        guard let library = await openLibrary() else {
            if let error = libraryError { toast(CameraWords.translate("The video was not added to the library: %@", CameraWords.reason(error))) }
            return
        }
        do {
            let ids = try await Self.addVideo(summary.path, to: library)
            if !ids.isEmpty { Marks.mark(.videoSaved) }
            if let id = ids.first, let asset = try await library.asset(id: id) {
                newestItem = asset.path
                newestThumbnail = try? await library.thumbnail(for: id, size: .normal)
            } else {
                newestItem = summary.path
            }
        } catch {
            toast(CameraWords.translate("The video was not added to the library: %@", CameraWords.reason(error)))
        }
    }

    /// Said once after a recording whose frames were dropped because encoding could not keep up
    /// (left out evenly: the movie keeps its length): its frames per second against the camera's.
    nonisolated static func droppedFramesWords(kept: Double, camera: Double) -> String {
        let rates = RecordingSummary.frameRateWords(kept: kept, camera: camera)
        return CameraWords.translate("The video has %@ frames per second instead of the camera's %@: encoding could not keep up, so frames were left out evenly.",
                                     rates.kept, rates.camera)
    }

    /// Indexes a finished recording that already lies in the videos folder.
    nonisolated static func addVideo(_ path: String, to library: PhotoLibrary) async throws(LibraryError) -> [String] {
        try await library.performChanges { $0.createAsset(fromVideoFile: path, moving: true) }
    }

    /// Pauses or resumes the recording (the pause leaves no gap in the movie).
    public func togglePause() {
        guard recordingPhase == .recording else { return }
        if isRecordingPaused { capture.movies.resumeRecording() } else { capture.movies.pauseRecording() }
        isRecordingPaused.toggle()
    }

    /// Seconds recorded so far (paused time excluded).
    public var recordedSeconds: Double { capture.movies.recordedDuration }
}
