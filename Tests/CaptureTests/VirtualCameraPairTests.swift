@_spi(Testing) import Capture
import Testing
import TestSupport

/// A test's own pair of test cameras (`VirtualCamera.Pair`): its faults reach no other camera, so
/// these tests run beside the serialized suites that use the discovered pair.
@Suite("A test's own pair of test cameras")
struct VirtualCameraPairTests {
    @Test("a pair's cameras have IDs of their own, the front and back cameras' names, positions and controls")
    func ownCameras() {
        let pair = VirtualCamera.Pair(), other = VirtualCamera.Pair()
        let ids = pair.devices.map(\.uniqueID)
        #expect(Set(ids).count == 2 && Set(ids).isDisjoint(with: other.devices.map(\.uniqueID)))
        #expect(Set(ids).isDisjoint(with: [VirtualCamera.frontID, VirtualCamera.backID]))
        #expect(pair.devices.map(\.localizedName) == ["Pinhole Test Camera (front)", "Pinhole Test Camera (back)"])
        #expect(pair.devices.map(\.position) == [.front, .back])
        #expect(pair.back.control(.flashLEDMode) != nil && pair.front.control(.flashLEDMode) == nil)
        #expect(!CaptureDevice.DiscoverySession().devices.contains { ids.contains($0.uniqueID) }, "a test's pair is not discovered")
    }

    @Test("faults set on one pair's camera stop that camera only: the other pair's camera streams")
    func ownFaults() async throws {
        let pair = VirtualCamera.Pair(), other = VirtualCamera.Pair()
        pair.updateFaults(of: pair.back) { $0.busy = true }
        let busy = CaptureSession()
        busy.sessionPreset = .vga640x480
        busy.addInput(try CaptureDeviceInput(device: pair.back))
        await #expect(throws: CaptureError.deviceBusy(device: pair.back.localizedName)) { try await busy.start() }
        let (session, output) = try await runningSession(other.back)
        defer { session.stopRunning() }
        #expect(await Capture_Tests_frames(output, 2).infos.count == 2)
    }

    @Test("the pair's device events report its camera unplugged and plugged back in")
    func events() async throws {
        let pair = VirtualCamera.Pair()
        let events = pair.deviceEvents()
        pair.updateFaults(of: pair.back) { $0.unplugged = true }
        guard case let .disconnected(id, name)? = await collect(events, count: 1, seconds: patience).first else {
            Issue.record("no disconnect event")
            return
        }
        #expect(id == pair.back.uniqueID && name == "Pinhole Test Camera (back)")
        pair.updateFaults(of: pair.back) { $0.unplugged = false }
        guard case let .connected(device)? = await collect(events, count: 1, seconds: patience).first else {
            Issue.record("no connect event")
            return
        }
        #expect(device.uniqueID == pair.back.uniqueID)
    }
}
