import Foundation
import Testing
import TestSupport

extension AppSuites {
    /// The app through the desktop's camera portal (PINHOLE_PORTAL=1, as in a Flatpak sandbox):
    /// xdg-desktop-portal and its permission store, and a private PipeWire with a GStreamer camera
    /// node, all on the app session's bus as on a desktop.
    @Suite("the app through the camera portal")
    struct PortalAppTests {
        @Test("refused in the permission store: \"Camera Access Denied\" with the Settings → Privacy words and Retry, no dialog shown")
        func refused() throws {
            let (session, server, camera, portal) = try Self.launch(camera: "app-portal-cam", permission: "no", showing: "Camera Access Denied")
            defer { portal.stop(); camera?.stop(); server.stop() }
            #expect(try AppStateTests.shows(session, "Retry"))
            let advice = "Camera Access Denied: You may not use the camera. Allow Camera access in Settings → Privacy, then press Retry."
            #expect(waitFor(seconds: patience) { session.app?.errors.contains(advice) ?? false }, "\(session.app?.errors ?? "")")
            #expect(!(session.app?.errors.contains("No Camera Found") ?? true), "\(session.app?.errors ?? "")")
            #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
        }

        @Test("refused, then allowed in the permission store: Retry brings the portal camera's preview (its colour bars), no dialog shown")
        func allowedThenRetry() throws {
            let (session, server, camera, portal) = try Self.launch(camera: "app-portal-retry-cam", width: 1280, height: 720, permission: "no",
                                                                    showing: "Camera Access Denied")
            defer { portal.stop(); camera?.stop(); server.stop() }
            // The user allows the camera in the desktop's privacy settings, then presses Retry.
            try portal.setPermission("yes")
            try AppStateTests.press(session, "Retry")
            #expect(try Self.waitForPortalPreview(session), "\(session.describePreview())\n\(session.app?.errors ?? "")")
            #expect(!(session.app?.errors.contains("No Camera Found") ?? true), "\(session.app?.errors ?? "")")
            #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
        }

        @Test("no camera yet, access stored as yes: \"No Camera Found\"; a camera node added later shows its preview, no dialog shown")
        func cameraAddedLater() throws {
            // The portal starts with no camera in the graph, and so says none is present.
            let (session, server, _, portal) = try Self.launch(camera: nil, permission: "yes", showing: "No Camera Found")
            defer { portal.stop(); server.stop() }
            // A webcam is plugged in: the portal still says none (xdg-desktop-portal 1.16), but its
            // remote's registry shows the node once WirePlumber grants it, and the app uses it.
            let camera = try server.provideCamera(name: "app-portal-later-cam", width: 1280, height: 720)
            defer { camera.stop() }
            #expect(try Self.waitForPortalPreview(session), "\(session.describePreview())\n\(session.app?.errors ?? "")")
            #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
        }

        /// Launches the app through the portal (PINHOLE_PORTAL=1) with a GStreamer camera node
        /// `camera` of `width`×`height` (none when nil), PipeWire and the portal on the app
        /// session's bus, and `permission` ("yes" or "no") stored; returns once the page titled
        /// `page` shows (checked).
        static func launch(camera name: String?, width: Int = 640, height: Int = 480, permission: String, showing page: String) throws
            -> (AppSession, PrivatePipeWire, BackgroundProcess?, PrivateCameraPortal) {
            let session = try AppSession(testCameras: false)
            let server = try PrivatePipeWire(bus: session.busAddress)
            let camera = try name.map { try server.provideCamera(name: $0, width: width, height: height) }
            let portal = try PrivateCameraPortal(on: server, camera: camera != nil)
            try portal.setPermission(permission)
            session.environment.merge(["PINHOLE_PORTAL": "1", "PIPEWIRE_REMOTE": server.socket]) { $1 }
            try session.launch()
            #expect(try waitFor(seconds: patience) { try AppStateTests.shows(session, page) }, "\(session.app?.errors ?? "")")
            return (session, server, camera, portal)
        }

        /// Waits for the preview to show GStreamer's colour bars (videotestsrc: seven 75 % bars
        /// across the top two thirds of the picture — white, yellow, cyan, green, magenta, red,
        /// blue) from a 16:9 camera filling the 960×720 window's width.
        static func waitForPortalPreview(_ session: AppSession) throws -> Bool {
            let lit: [(Bool, Bool, Bool)] = [(true, true, true), (true, true, false), (false, true, true), (false, true, false),
                                             (true, false, true), (true, false, false), (false, false, true)]
            return try waitFor(seconds: 30) {
                let shot = try session.screenshot()
                return lit.enumerated().allSatisfy { index, expected in
                    let pixel = shot.mean(x: 5 + 950 * (2 * index + 1) / 14, y: 300)
                    return (pixel.r > 120, pixel.g > 120, pixel.b > 120) == expected
                }
            }
        }
    }
}
