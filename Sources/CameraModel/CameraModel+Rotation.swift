import Capture

/// Keeping the picture level as the device turns (Linux phones and convertibles): the
/// accelerometer's angles, through `RotationCoordinator`, go on the preview's connection and on
/// the photo's and movie's (saved as EXIF orientation and the movie's display matrix).
///
/// The preview angle is the coordinator's, which assumes what phone compositors do by default:
/// the screen turns with the device, so the window stays upright for the user. With the
/// screen's rotation locked, the window turns with the device and the preview would need only
/// the sensor's mounting; GTK 4.8 does not tell the app which case it is in.
extension CameraModel {
    /// Follows the accelerometer for `device` from now on (the coordinator's first reading is
    /// awaited, not waited for on the main thread). Without a sensor the angles stay 0.
    func followRotation(of device: CaptureDevice) {
        rotationTask?.cancel()
        rotationTask = Task { [weak self] in
            let coordinator = await RotationCoordinator.make(device: device)
            defer { coordinator.stop() }
            for await angles in coordinator.angles() {
                guard let self, !Task.isCancelled else { return }
                self.deviceAngles = angles
                self.applyRotation()
            }
        }
    }

    /// The preview's angle now, in degrees clockwise (tests read it).
    public var previewRotation: Int { Int(capture.video.connection.videoRotationAngle) }

    /// The angle saved with photos now, in degrees clockwise (tests read it).
    public var captureRotation: Int { Int(capture.photos.connection.videoRotationAngle) }

    /// Sets the connections' angles from the accelerometer's and the mirroring preference. A
    /// recording keeps the angle it started with.
    func applyRotation() {
        // The coordinator's preview angle is for a mirrored front preview; unmirrored, the
        // preview turns as captures do.
        let mirrored = camera.map { capture.video.connection.isVideoMirrored(for: $0) } ?? false
        capture.video.connection.videoRotationAngle = mirrored ? deviceAngles.preview : deviceAngles.capture
        capture.photos.connection.videoRotationAngle = deviceAngles.capture
        if !isRecording { capture.movies.connection.videoRotationAngle = deviceAngles.capture }
    }
}
