@testable import Capture
import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// True inside `scripts/vm/capture-tests-job`'s portal step: vivid (one webcam) is loaded, and each
/// test starts PipeWire, WirePlumber and the camera portal of its own (`PrivatePipeWire`,
/// `PrivateCameraPortal`) on a private bus.
let portalVividAvailable = ProcessInfo.processInfo.environment["PINHOLE_PORTAL_VIVID"] == "1"

/// vivid through the desktop's camera portal, as a sandboxed Pinhole reaches it: Debian 12's
/// xdg-desktop-portal 1.16 with its permission store, WirePlumber's real V4L2 node, and the
/// PipeWire remote OpenPipeWireRemote gives. `pinhole` runs with PINHOLE_PORTAL=1 (so /dev is not
/// looked at) and asks the portal itself.
@Suite("vivid through the camera portal (inside scripts/vm)", .serialized, .enabled(if: portalVividAvailable))
struct PortalVividTests {
    /// PipeWire with WirePlumber (which publishes vivid's node, about 10 s under TCG), then the portal.
    func stack(dialogAnswer: Int = 0) throws -> (PrivatePipeWire, PrivateCameraPortal) {
        let server = try PrivatePipeWire()
        let published = blockUntil(seconds: 3 * patience, everyMilliseconds: 250) {
            (try? runTool("pw-cli", ["ls", "Node"], environment: server.environment))?.stdout.contains("media.role = \"Camera\"") ?? false
        }
        try #require(published, "WirePlumber published no camera node for vivid")
        return (server, try PrivateCameraPortal(on: server, dialogAnswer: dialogAnswer))
    }

    /// Runs `pinhole` with `arguments` through `portal` (or, with `portal` off, as outside a sandbox).
    func pinhole(_ arguments: [String], _ portal: PrivateCameraPortal, _ folder: TemporaryDirectory, portalOn: Bool = true) throws -> ToolResult {
        var environment = portal.environment
        environment["HOME"] = folder.url.path
        environment["PINHOLE_PORTAL"] = portalOn ? "1" : "0"
        return try runTool(pinholeBinary, arguments, environment: environment)
    }

    @Test("granted in the permission store: devices lists vivid through the portal, and snap gives its colour bars through the portal, PipeWire and V4L2 directly")
    func granted() throws {
        let (server, portal) = try stack()
        defer { portal.stop(); server.stop() }
        try portal.setPermission("yes")
        let folder = try TemporaryDirectory()
        let listed = try pinhole(["devices", "--json"], portal, folder)
        #expect(listed.status == 0, "\(listed.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        let real = list.filter { ($0["type"] as? String) != "virtual" }
        try #require(real.count == 1, "\(listed.stdout)")
        #expect(real[0]["route"] as? String == "portal" && real[0]["path"] == nil, "\(real[0])")
        // A photo by each route, in turn. V4L2 waits until WirePlumber lets the node go (it
        // suspends an idle node after 5 s): a busy run (exit 5) is tried again. (How long each
        // route takes is scripts/vm/path-bench's to measure, not a test's.)
        let routes: [(String, [String], Bool)] = [("portal", [], true), ("PipeWire", [], false), ("V4L2", ["--device", "/dev/video0"], false)]
        for (route, device, portalOn) in routes {
            let output = folder.path("\(route).jpg")
            var snap = try pinhole(["snap", "--size", "320x180", "--warmup", "0", "-o", output] + device, portal, folder, portalOn: portalOn)
            let deadline = SystemClock.monotonicNanoseconds() + 30_000_000_000
            while snap.status == 5, SystemClock.monotonicNanoseconds() < deadline {
                usleep(500_000)
                snap = try pinhole(["snap", "--size", "320x180", "--warmup", "0", "-o", output] + device, portal, folder, portalOn: portalOn)
            }
            try #require(snap.status == 0, "\(route): \(snap.stderr)")
            let image = try JPEGDecoder().decode(Array(try Data(contentsOf: URL(fileURLWithPath: output))))
            #expect(image.width == 320 && image.height == 180, "\(route)")
            expectVividBars(vividBars(image))
        }
        #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
    }

    @Test("refused in the permission store: snap exits 4 with the portal's words, and vivid is not opened through /dev instead")
    func denied() throws {
        let (server, portal) = try stack()
        defer { portal.stop(); server.stop() }
        try portal.setPermission("no")
        let folder = try TemporaryDirectory()
        let output = folder.path("photo.jpg")
        let snap = try pinhole(["snap", "--size", "320x180", "-o", output], portal, folder)
        #expect(snap.status == 4, "\(snap.stderr)")
        #expect(snap.stderr.contains("camera portal") && snap.stderr.contains("Allow Camera access in Settings → Privacy"), "\(snap.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let listed = try pinhole(["devices"], portal, folder)
        #expect(listed.stdout.contains("Allow Camera access in Settings → Privacy") && !listed.stdout.contains("vivid"), "\(listed.stdout)")
        #expect(portal.dialogs.isEmpty, "\(portal.dialogs)")
    }

    @Test("nothing stored: the dialog asks once, says yes, and snap gives vivid's colour bars")
    func dialog() throws {
        let (server, portal) = try stack(dialogAnswer: 0)
        defer { portal.stop(); server.stop() }
        let folder = try TemporaryDirectory()
        let output = folder.path("photo.jpg")
        let snap = try pinhole(["snap", "--size", "320x180", "-o", output], portal, folder)
        try #require(snap.status == 0, "\(snap.stderr)")
        expectVividBars(vividBars(try JPEGDecoder().decode(Array(try Data(contentsOf: URL(fileURLWithPath: output))))))
        #expect(portal.dialogs.count == 1 && portal.dialogs[0].contains("response=0"), "\(portal.dialogs)")
    }
}
