import Capture
import Glibc

// The model's work that needs no actor: finding, choosing and opening cameras (run on worker
// threads), and small helpers.
extension CameraModel {
    /// The cameras the app offers: infrared cameras (`isInfrared`: greyscale formats only, as
    /// face-login cameras are) are left out; the test cameras only when asked for.
    nonisolated static func usableCameras(includeTest: Bool) -> [CaptureDevice] {
        let types: [CaptureDevice.DeviceType] = includeTest ? CaptureDevice.DeviceType.allCases : CaptureDevice.DeviceType.allCases.filter { $0 != .virtual }
        return CaptureDevice.DiscoverySession(deviceTypes: types).devices.filter { device in
            device.authorizationStatus != .authorized || (!device.formats.isEmpty && !device.isInfrared)
        }
    }

    /// The camera to open among `cameras`: the one whose ID is `last` when present, else a back
    /// camera, else the first real one, else the first.
    nonisolated static func preferredCamera(in cameras: [CaptureDevice], last: String) -> CaptureDevice? {
        cameras.first { $0.uniqueID == last } ?? cameras.first { $0.position == .back && $0.deviceType != .virtual }
            ?? cameras.first { $0.deviceType != .virtual } ?? cameras.first
    }

    /// Makes `device` the session's input with the stream `wanted` asks for, and starts it (on
    /// the caller's thread: the model calls it from a worker).
    nonisolated static func open(_ device: CaptureDevice, wanted: VideoMode?, in session: CaptureSession) async -> Result<Void, CaptureError> {
        do throws(CaptureError) {
            let input = try CaptureDeviceInput(device: device)
            session.beginConfiguration()
            for old in session.inputs { session.removeInput(old) }
            session.addInput(input)
            try CameraModel.chooseStream(wanted, on: device, in: session)
            await session.commitConfiguration()
            try await session.start()
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// "WxH" as dimensions (nil for "" or anything else).
    nonisolated static func dimensions(_ text: String) -> CaptureDevice.Dimensions? {
        let parts = text.split(separator: "x").compactMap { Int($0) }
        return parts.count == 2 ? .init(width: parts[0], height: parts[1]) : nil
    }
}

/// mkdir -p.
func mkdirs(_ path: String) {
    var built = ""
    for part in path.split(separator: "/") {
        built += "/" + part
        mkdir(built, 0o755)
    }
}

extension CaptureError {
    /// A limit ended the recording (not a failure).
    var isLimit: Bool { if case .recordingLimitReached = self { true } else { false } }
}
