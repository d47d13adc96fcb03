@_spi(Testing) import Capture
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

extension VirtualCameraSuites {
    @Suite("A stalled delegate queue")
    struct DelegateQueueTests {
        /// Counts what the output tells it; its first frame blocks the queue until released.
        final class Stalling: VideoDataOutputSampleBufferDelegate {
            let release = DispatchSemaphore(value: 0)
            let frames = Atomic<Int>(0)
            let drops = Atomic<Int>(0)
            func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
                if frames.add(1, ordering: .relaxed).newValue == 1 { release.wait() }
            }
            func captureOutput(_ output: VideoDataOutput, didDropFrameFrom connection: CaptureConnection) {
                drops.add(1, ordering: .relaxed)
            }
        }

        @Test("frames dropped while the delegate's queue is stalled are all told to it once it runs again")
        func dropsToldAfterStall() async throws {
            let device = try CaptureDevice.device(withID: "test-back")
            VirtualCamera.setFaults(.init(), for: device.uniqueID)
            let session = CaptureSession()
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: device))
            let output = VideoDataOutput()
            let delegate = Stalling()
            output.setSampleBufferDelegate(delegate, queue: DispatchQueue(label: "stalled"))
            session.addOutput(output)
            try await session.start()
            // Wait for a good number of drops while the queue is stuck in the first frame.
            let deadline = Date().addingTimeInterval(30)
            while output.droppedFrameCount < 20, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            await session.stop()
            let dropped = output.droppedFrameCount
            #expect(dropped >= 20)
            #expect(delegate.drops.load(ordering: .relaxed) == 0, "told while its queue was stalled")
            delegate.release.signal()
            let told = Date().addingTimeInterval(30)
            while delegate.drops.load(ordering: .relaxed) < dropped, Date() < told { try await Task.sleep(for: .milliseconds(20)) }
            #expect(delegate.drops.load(ordering: .relaxed) == dropped)
        }
    }
}
