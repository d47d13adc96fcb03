/// A camera as an input to a session.
public final class CaptureDeviceInput: Sendable {
    /// The camera.
    public let device: CaptureDevice

    /// An input for `device`; fails when the camera is gone or access is denied.
    public init(device: CaptureDevice) throws(CaptureError) {
        guard device.isConnected else { throw .deviceDisconnected(device: device.localizedName) }
        if device.authorizationStatus == .denied, let path = device.path {
            throw .accessDenied(device: path, group: V4L2Errno.owningGroup(path: path))
        }
        self.device = device
    }
}
