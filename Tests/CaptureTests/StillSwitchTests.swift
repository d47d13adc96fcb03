@_spi(Testing) @testable import Capture
import Media
import Testing
import TestSupport

extension VirtualCameraSuites {
    @Suite("A failed switch to the still format")
    struct StillSwitchTests {
        @Test("a photo whose switch to the still format fails throws, and the preview goes on in its own format")
        func failedSwitchKeepsPreview() async throws {
            let device = try CaptureDevice.device(withID: "test-back")
            VirtualCamera.setFaults(.init(), for: device.uniqueID)
            defer { VirtualCamera.setFaults(.init(), for: device.uniqueID) }
            let session = CaptureSession()
            session.sessionPreset = .high
            session.addInput(try CaptureDeviceInput(device: device))
            let video = VideoDataOutput()
            let photos = PhotoOutput()
            session.addOutput(video)
            session.addOutput(photos)
            try await session.start()
            defer { session.stopRunning() }
            let before = try #require(session.activeStream)
            #expect(await frames(from: video, count: 2, seconds: 30).infos.count == 2)
            // The next start (the switch to 3840×2160) fails once.
            VirtualCamera.updateFaults(for: device.uniqueID) { $0.failingStarts = 1 }
            await #expect(throws: CaptureError.self) { _ = try await photos.capturePhoto() }
            #expect(session.isRunning)
            #expect(session.activeStream?.width == before.width && session.activeStream?.height == before.height, "\(String(describing: session.activeStream))")
            #expect(await frames(from: video, count: 3, seconds: 30).infos.count == 3, "the preview stopped")
            // A later start opens the preview's format, not the still format.
            await session.stop()
            try await session.start()
            #expect(session.activeStream?.width == before.width, "\(String(describing: session.activeStream))")
            // And photos work again at the largest size.
            let photo = try await photos.capturePhoto()
            #expect(photo.resolvedSettings.photoDimensions == device.maxPhotoDimensions)
        }
    }
}
