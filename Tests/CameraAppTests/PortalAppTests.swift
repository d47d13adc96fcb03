import Foundation
import Testing
import TestSupport

extension AppSuites {
    /// The app through the desktop's camera portal (PINHOLE_PORTAL=1, as in a Flatpak sandbox):
    /// xdg-desktop-portal and its permission store on the app session's bus, over a private
    /// PipeWire with a GStreamer camera node.
    @Suite("the app through the camera portal")
    struct PortalAppTests {
        @Test("refused in the permission store: \"Camera Access Denied\" with the Settings → Privacy words and Retry, no dialog shown")
        func refused() throws {
            let server = try PrivatePipeWire()
            let camera = try server.provideCamera(name: "app-portal-cam")
            defer { camera.stop(); server.stop() }
            let session = try AppSession(testCameras: false)
            let portal = try PrivateCameraPortal(on: server, bus: session.busAddress)
            defer { portal.stop() }
            try portal.setPermission("no")
            session.environment.merge(["PINHOLE_PORTAL": "1", "PIPEWIRE_REMOTE": server.socket]) { $1 }
            try session.launch()
            #expect(try waitFor(seconds: patience) { try AppStateTests.shows(session, "Camera Access Denied") }, "\(session.app?.errors ?? "")")
            #expect(try AppStateTests.shows(session, "Retry"))
            let advice = "Camera Access Denied: You may not use the camera. Allow Camera access in Settings → Privacy, then press Retry."
            #expect(waitFor(seconds: patience) { session.app?.errors.contains(advice) ?? false }, "\(session.app?.errors ?? "")")
            #expect(!(session.app?.errors.contains("No Camera Found") ?? true), "\(session.app?.errors ?? "")")
            #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
        }
    }
}
