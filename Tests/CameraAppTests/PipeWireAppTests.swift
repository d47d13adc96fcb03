import Foundation
import Testing
import TestSupport

extension AppSuites {
    /// The app with the session's PipeWire offering cameras (no portal), as on a desktop where
    /// WirePlumber publishes each webcam udev reports.
    @Suite("the app with PipeWire's cameras")
    struct PipeWireAppTests {
        @Test("no camera at start: \"No Camera Found\"; a camera node that appears in PipeWire later shows its preview at once")
        func cameraAddedLater() throws {
            let session = try AppSession(testCameras: false)
            let server = try PrivatePipeWire(bus: session.busAddress)
            defer { server.stop() }
            session.environment.merge(["PIPEWIRE_REMOTE": server.socket]) { $1 }
            try session.launch()
            #expect(try waitFor(seconds: patience) { try AppStateTests.shows(session, "No Camera Found") }, "\(session.app?.errors ?? "")")
            // A webcam is plugged in and WirePlumber publishes its node (here GStreamer's).
            let camera = try server.provideCamera(name: "app-pipewire-later-cam", width: 1280, height: 720)
            defer { camera.stop() }
            #expect(try PortalAppTests.waitForPortalPreview(session), "\(session.describePreview())\n\(session.app?.errors ?? "")")
        }
    }
}
