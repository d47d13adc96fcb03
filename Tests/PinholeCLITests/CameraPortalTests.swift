import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// `pinhole` through the desktop's camera portal (PINHOLE_PORTAL=1, as in a Flatpak sandbox):
/// Debian's xdg-desktop-portal and xdg-permission-store on a private PipeWire's bus
/// (`PrivateCameraPortal`), a stand-in access dialog, and a camera node from GStreamer's
/// pipewiresink. Pinhole asks the portal (IsCameraPresent, AccessCamera), streams over the
/// remote OpenPipeWireRemote gives, and words a refusal as the desktop's privacy settings.
@Suite("pinhole through the camera portal", .serialized)
struct CameraPortalTests {
    /// A private PipeWire with camera `name`, and the portal started after it.
    func portal(camera name: String, dialogAnswer: Int = 0) throws -> (PrivatePipeWire, BackgroundProcess, PrivateCameraPortal) {
        let server = try PrivatePipeWire()
        let camera = try server.provideCamera(name: name)
        return (server, camera, try PrivateCameraPortal(on: server, dialogAnswer: dialogAnswer))
    }

    /// The environment for `pinhole`: isolated (private HOME, empty /dev), the portal's bus and PipeWire.
    func environment(_ folder: TemporaryDirectory, _ portal: PrivateCameraPortal) throws -> [String: String] {
        var environment = try isolatedEnvironment(folder).merging(portal.environment) { _, new in new }
        environment["PINHOLE_PIPEWIRE"] = nil
        return environment
    }

    @Test("access stored as yes: devices lists the camera through the portal, snap takes its colour bars, no dialog is shown")
    func granted() throws {
        let (server, camera, portal) = try portal(camera: "portal-granted-cam")
        defer { portal.stop(); camera.stop(); server.stop() }
        try portal.setPermission("yes")
        let folder = try TemporaryDirectory()
        let env = try environment(folder, portal)
        let listed = try pinhole(["devices", "--json"], environment: env)
        #expect(listed.status == 0, "\(listed.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let found = list.filter { ($0["pipewireNode"] as? String) == "portal-granted-cam" }
        try #require(found.count == 1, "\(listed.stdout)")
        #expect(found[0]["route"] as? String == "portal" && found[0]["access"] as? String == "authorized", "\(found[0])")
        let text = try pinhole(["devices"], environment: env)
        #expect(text.stdout.contains("PipeWire node, through the camera portal: portal-granted-cam"), "\(text.stdout)")
        let output = folder.path("photo.jpg")
        let snap = try pinhole(["snap", "--warmup", "1", "-o", output], environment: env)
        try #require(snap.status == 0, "\(snap.stderr)")
        try expectColourBars(in: output, label: "through the portal")
        #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
    }

    @Test("access stored as no: snap exits 4 saying to allow Camera access in Settings → Privacy, the test camera is not used, devices says the same")
    func denied() throws {
        let (server, camera, portal) = try portal(camera: "portal-denied-cam")
        defer { portal.stop(); camera.stop(); server.stop() }
        try portal.setPermission("no")
        let folder = try TemporaryDirectory()
        let env = try environment(folder, portal)
        let output = folder.path("photo.jpg")
        let snap = try pinhole(["snap", "-o", output], environment: env)
        #expect(snap.status == 4, "\(snap.stderr)")
        #expect(snap.stderr.contains("Camera access was refused through the desktop's camera portal."), "\(snap.stderr)")
        #expect(snap.stderr.contains("Allow Camera access in Settings → Privacy"), "\(snap.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let named = try pinhole(["snap", "--device", "pipewire:portal-denied-cam", "-o", output], environment: env)
        #expect(named.status == 4 && named.stderr.contains("Settings → Privacy"), "\(named.stderr)")
        let listed = try pinhole(["devices"], environment: env)
        #expect(listed.status == 0 && listed.stdout.contains("Allow Camera access in Settings → Privacy"), "\(listed.stdout)")
        #expect(!listed.stdout.contains("portal-denied-cam"), "\(listed.stdout)")
        #expect(portal.dialogs.isEmpty, "a stored refusal showed a dialog: \(portal.dialogs)")
    }

    @Test("nothing stored: the portal's dialog asks once, its yes is stored and the photo taken; a dialog saying no is the refusal")
    func dialog() throws {
        let (server, camera, portal) = try portal(camera: "portal-dialog-cam", dialogAnswer: 0)
        defer { portal.stop(); camera.stop(); server.stop() }
        let folder = try TemporaryDirectory()
        let env = try environment(folder, portal)
        let output = folder.path("photo.jpg")
        let snap = try pinhole(["snap", "--warmup", "1", "-o", output], environment: env)
        try #require(snap.status == 0, "\(snap.stderr)")
        try expectColourBars(in: output, label: "after the dialog")
        #expect(portal.dialogs.count == 1 && portal.dialogs[0].contains("response=0"), "\(portal.dialogs)")
        let stored = try portal.storedPermissions()
        #expect(stored.contains("'': ['yes']"), "\(stored)")

        // Another desktop user's choice: the dialog says no.
        let (otherServer, otherCamera, refusing) = try self.portal(camera: "portal-refused-cam", dialogAnswer: 2)
        defer { refusing.stop(); otherCamera.stop(); otherServer.stop() }
        let refused = try pinhole(["snap", "-o", folder.path("refused.jpg")], environment: environment(folder, refusing))
        #expect(refused.status == 4 && refused.stderr.contains("Settings → Privacy"), "\(refused.stderr)")
        #expect(refusing.dialogs.count == 1, "the dialog was shown \(refusing.dialogs.count) times: \(refusing.dialogs)")
    }
}
