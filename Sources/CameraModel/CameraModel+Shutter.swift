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
        switch mode {
        case .photo: takePhotoAfterCountdown(count: 1)
        case .video:
            if isRecording { Task { await stopRecording() } } else { Task { await startRecording() } }
        }
    }

    /// The shutter pressed from outside the camera page (the app's `take-photo` and `record`
    /// actions, over D-Bus from a script): now if the preview runs, else as soon as it does —
    /// the camera is let go behind the gallery and takes a moment to start again. A page that
    /// says why the camera cannot work (busy, no camera…) is the answer: nothing waits for later.
    public func shutterWhenReady() {
        switch screen {
        case .preview: shutter()
        case .starting, .released: shutterWaiting = true
        default: break
        }
    }

    /// A burst of the preference's number of photos.
    public func burst() {
        guard mode == .photo else { return }
        takePhotoAfterCountdown(count: max(1, preferences.int(PreferenceKey.burstCount)))
    }

    /// Escape: discards a photo waiting for Save or Cancel, or cancels a running self-timer.
    public func cancelCountdown() {
        if pendingPhoto != nil { return discardPendingPhoto() }
        countdownTask?.cancel()
        countdownTask = nil
        if countdownRemaining != nil {
            countdownRemaining = nil
            changed()
        }
    }

    private func takePhotoAfterCountdown(count: Int) {
        guard screen == .preview, !isDisconnected, countdownTask == nil, !isCapturing else { return }
        let seconds = countdown
        countdownTask = Task { [weak self] in
            guard let self else { return }
            if seconds > 0 {
                for left in stride(from: seconds, to: 0, by: -1) {
                    self.countdownRemaining = left
                    self.changed()
                    try? await Task.sleep(for: .seconds(1))
                    if Task.isCancelled { return }
                }
                self.countdownRemaining = nil
                self.changed()
            }
            self.countdownTask = nil
            for _ in 0..<count {
                guard self.screen == .preview else { break }
                await self.takePhoto()
            }
        }
    }

    /// Takes one photo at the chosen size (the camera's largest by default) and saves it into
    /// the library, or holds it for Save / Cancel.
    func takePhoto() async {
        isCapturing = true
        changed()
        defer {
            isCapturing = false
            changed()
        }
        onShutter()
        let settings = PhotoSettings(maxPhotoDimensions: Self.dimensions(preferences.string(PreferenceKey.photoSize)), flashMode: flash.mode)
        let photos = self.photos
        let filter = self.filter
        let taken = await Task.detached { () -> Result<[UInt8], CaptureError> in
            do throws(CaptureError) {
                let photo = try await photos.capturePhoto(with: settings)
                return .success(try CameraModel.filtered(photo, filter))
            } catch {
                return .failure(error)
            }
        }.value
        switch taken {
        case let .success(data):
            if preferences.bool(PreferenceKey.askBeforeSaving) {
                holdForConfirmation(data)
            } else {
                await save(photo: data)
            }
        case let .failure(error):
            onToast(CameraWords.translate("The photo could not be taken: %@", CameraWords.reason(error)))
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

    /// Shows a photo's file with Save and Cancel instead of saving it.
    func holdForConfirmation(_ data: [UInt8]) {
        pendingPhoto = data
        changed()
    }

    /// "Save" on the photo shown for confirmation.
    public func savePendingPhoto() {
        guard let data = pendingPhoto else { return }
        pendingPhoto = nil
        changed()
        Task { await save(photo: data) }
    }

    /// "Cancel" on the photo shown for confirmation: nothing is written anywhere.
    public func discardPendingPhoto() {
        pendingPhoto = nil
        changed()
    }

    private func save(photo data: [UInt8]) async {
        guard let library = await openLibrary() else {
            if let error = libraryError { onToast(CameraWords.translate("The photo was not saved: %@", CameraWords.reason(error))) }
            return
        }
        do {
            let asset = try await library.addPhoto(data: data)
            onPhotoSaved(asset.path)
            newestItem = asset.path
            newestThumbnail = try? await library.thumbnail(for: asset.id, size: .normal)
            changed()
        } catch {
            onToast(CameraWords.translate("The photo was not saved: %@", CameraWords.reason(error)))
        }
    }
}
