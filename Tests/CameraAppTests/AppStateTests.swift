import Foundation
import Glibc
import Testing
import TestSupport

/// Every camera state has a page in words a person can act on, and the app recovers by itself.
extension AppSuites {
@Suite("The camera app's states, headless")
struct AppStateTests {
    /// Whether the accessibility tree shows a label with `text` (a status page's title).
    static func shows(_ session: AppSession, _ text: String) throws -> Bool {
        let result = try session.accessibility("print(find(\(pythonString(text))).name)")
        return result.status == 0
    }

    static func pythonString(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "\\'") + "'" }

    @Test("no camera: \"No Camera Found\", and its button switches to the test camera")
    func noCamera() throws {
        let session = try AppSession(testCameras: false)
        try session.launch()
        #expect(try Self.shows(session, "No Camera Found"))
        let pressed = try session.accessibility("find('Use Test Camera', pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: false) || AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
    }

    @Test("busy: the page says the camera is in use, and the preview comes back by itself when it is free")
    func busy() throws {
        let session = try AppSession(extra: ["PINHOLE_TEST_FAULTS": "front busy on; back busy on"])
        try session.launch()
        #expect(try Self.shows(session, "The Camera Is in Use by Another App"))
        session.send("reset")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
    }

    @Test("unplugged while running: the preview dims with a message, then resumes when the camera returns")
    func unplugged() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        session.send("front unplugged on")
        #expect(try Self.shows(session, "Camera disconnected — plug it back in"))
        let dimmed = try waitFor(seconds: 20) { !AppSuites.AppWindowTests.matches(AppSuites.AppWindowTests.previewBars(try session.screenshot()), mirrored: true) }
        #expect(dimmed, "the preview did not dim")
        session.send("front unplugged off")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true), "the preview did not resume")
    }

    @Test("a fatal camera error: \"The Camera Stopped Working\" with Retry, which brings the preview back")
    func fatal() throws {
        let session = try AppSession()
        try session.launch()
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
        session.send("front fatal on")
        #expect(try Self.shows(session, "The Camera Stopped Working"))
        let pressed = try session.accessibility("find('Retry', pyatspi.ROLE_PUSH_BUTTON).queryAction().doAction(0); print('ok')")
        #expect(pressed.status == 0, "\(pressed.stderr)")
        #expect(try AppSuites.AppWindowTests.waitForPreview(session, mirrored: true))
    }
}
}
