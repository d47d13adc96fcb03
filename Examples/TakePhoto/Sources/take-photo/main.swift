import Capture
import Glibc
import Media

/// Takes one photo with Pinhole's virtual test camera (or the camera whose ID is given) at the
/// camera's largest size and writes it as a JPEG to PATH; prints the path written (a suffix is
/// added rather than overwrite a file).
/// Usage: take-photo PATH [CAMERA-ID]
func takePhoto(to path: String, cameraID: String) async throws(CaptureError) -> String {
    let camera = try CaptureDevice.device(withID: cameraID)
    let session = CaptureSession()
    session.sessionPreset = .photo
    session.addInput(try CaptureDeviceInput(device: camera))
    let photos = PhotoOutput()
    session.addOutput(photos)
    try await session.start()
    defer { session.stopRunning() }
    let photo = try await photos.capturePhoto(with: PhotoSettings(format: .jpeg, quality: 90))
    do {
        return try await photo.write(to: path)
    } catch {
        throw .media(error)
    }
}

/// Writes "take-photo: `message`" and a newline to standard error.
func complain(_ message: String) {
    var line = "take-photo: \(message)\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments.dropFirst()
guard (1...2).contains(arguments.count), let path = arguments.first, !path.hasPrefix("-") else {
    complain("usage: take-photo PATH [CAMERA-ID]   (CAMERA-ID: see `pinhole devices`; default: test, the virtual camera)")
    exit(2)
}
do {
    print(try await takePhoto(to: path, cameraID: arguments.dropFirst().first ?? "test"))
} catch {
    complain("\(error)")
    exit(1)
}
