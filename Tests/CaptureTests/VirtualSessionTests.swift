@_spi(Testing) import Capture
import Dispatch
import Glibc
import Media
import Testing
import TestSupport

/// Waits for the first event matching `predicate`, up to `seconds`.
func waitForEvent(_ events: AsyncStream<CaptureSession.Event>, seconds: Double = patience, _ predicate: @escaping @Sendable (CaptureSession.Event) -> Bool) async -> CaptureSession.Event? {
    await withTaskGroup(of: CaptureSession.Event?.self) { group in
        group.addTask {
            for await event in events where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// What a test keeps of a frame without holding its pooled buffer.
struct FrameInfo: Sendable {
    var sequence: UInt32
    var timestamp: Int64
    var isMirrored: Bool
    var rotationAngle: Int
}

/// Takes `count` frames from an output's async sequence: their timing, and the last frame
/// itself (holding every frame would starve the output's pool, by design).
func frames(from output: VideoDataOutput, count: Int, seconds: Double = patience) async -> (infos: [FrameInfo], last: SampleBuffer?) {
    let stream = output.sampleBuffers()
    return await withTaskGroup(of: ([FrameInfo], SampleBuffer?).self) { group in
        group.addTask {
            var taken: [FrameInfo] = []
            var last: SampleBuffer?
            for await sample in stream {
                taken.append(FrameInfo(sequence: sample.sequenceNumber, timestamp: sample.presentationTimestampNanoseconds,
                                       isMirrored: sample.isMirrored, rotationAngle: sample.rotationAngle))
                last = sample
                if taken.count == count { break }
            }
            return (taken, last)
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return ([], nil)
        }
        let first = await group.next() ?? ([], nil)
        group.cancelAll()
        return first
    }
}

/// A session on a virtual camera with a video data output, started.
func runningSession(_ device: CaptureDevice, preset: CaptureSession.Preset = .vga640x480, format: PixelFormat? = .bgra) async throws -> (CaptureSession, VideoDataOutput) {
    let session = CaptureSession()
    session.sessionPreset = preset
    session.addInput(try CaptureDeviceInput(device: device))
    let output = VideoDataOutput()
    output.videoSettings = .init(pixelFormat: format)
    session.addOutput(output)
    try await session.start()
    return (session, output)
}

/// Every suite that streams from the virtual test camera: they share the camera (a second stream
/// in the process is "busy", as with a real one), so they run one test at a time.
@Suite(.serialized) enum VirtualCameraSuites {}

extension VirtualCameraSuites {
    @Suite("Sessions on the virtual test camera")
    struct VirtualSessionTests {
        let back = try! CaptureDevice.device(withID: "test-back")
        let front = try! CaptureDevice.device(withID: "test-front")

        init() {
            VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
            VirtualCamera.setFaults(.init(), for: VirtualCamera.frontID)
        }

        @Test("discovery lists the test camera pair last, with formats and controls")
        func discovery() throws {
            let devices = CaptureDevice.DiscoverySession().devices
            let virtual = devices.filter { $0.deviceType == .virtual }
            #expect(virtual.map(\.position) == [.front, .back])
            #expect(devices.suffix(2).map(\.uniqueID) == [VirtualCamera.frontID, VirtualCamera.backID])
            #expect(back.formats.contains { $0.pixelFormat == .yuyv && $0.dimensions == .init(width: 3840, height: 2160) })
            #expect(back.maxPhotoDimensions == .init(width: 3840, height: 2160))
            #expect(back.control(.brightness)?.minimum == -64)
            #expect(CaptureDevice.DiscoverySession(deviceTypes: [.virtual], position: .back).devices.map(\.uniqueID) == [VirtualCamera.backID])
            #expect(throws: CaptureError.deviceNotFound("no-such-camera")) { try CaptureDevice.device(withID: "no-such-camera") }
        }

        @Test("frames arrive in BGRA with the test pattern's colour bars, in order", arguments: [PixelFormat.bgra, .i420, .nv12])
        func frames(format: PixelFormat) async throws {
            let (session, output) = try await runningSession(back, format: format)
            defer { session.stopRunning() }
            #expect(session.activeStream?.width == 640)
            let taken = await Capture_Tests_frames(output, 5)
            try #require(taken.infos.count == 5)
            for (a, b) in zip(taken.infos, taken.infos.dropFirst()) {
                #expect(b.sequence > a.sequence)
                #expect(b.timestamp > a.timestamp)
            }
            let image = try #require(taken.last).imageBuffer
            #expect(image.format == format && image.width == 640 && image.height == 480)
            // Bars: white, yellow, cyan, green, magenta, red, blue, black (75%), sampled mid-bar.
            let expected: [(Int, Int, Int)] = [(191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0), (191, 0, 191), (191, 0, 0), (0, 0, 191), (16, 16, 16)]
            for (i, colour) in expected.enumerated() {
                let p = image.bgraPixel(x: i * 80 + 40, y: 200)
                let error = max(abs(Int(p.r) - colour.0), abs(Int(p.g) - colour.1), abs(Int(p.b) - colour.2))
                #expect(error <= 4, "bar \(i): \(p)")
            }
        }

        @Test("the front camera's frames are mirrored by default, and the override turns it off")
        func mirroring() async throws {
            let (session, output) = try await runningSession(front)
            defer { session.stopRunning() }
            let mirrored = await Capture_Tests_frames(output, 2).last
            let left = try #require(mirrored).imageBuffer.bgraPixel(x: 20, y: 200)
            #expect(left.r < 30 && left.g < 30 && left.b < 30, "black bar on the left when mirrored: \(left)")
            output.connection.isVideoMirroredOverride = false
            let plain = await Capture_Tests_frames(output, 3).last
            let first = try #require(plain).imageBuffer.bgraPixel(x: 20, y: 200)
            #expect(first.r > 180 && first.g > 180 && first.b > 180, "white bar on the left: \(first)")
        }

        @Test("a 90° connection rotates frames")
        func rotation() async throws {
            let (session, output) = try await runningSession(back)
            defer { session.stopRunning() }
            output.connection.videoRotationAngle = 90
            let taken = await Capture_Tests_frames(output, 3)
            let image = try #require(taken.last).imageBuffer
            #expect(image.width == 480 && image.height == 640)
            #expect(taken.last?.rotationAngle == 90)
            // After a clockwise turn the first (white) bar runs along the top.
            let top = image.bgraPixel(x: 300, y: 20)
            #expect(top.r > 180 && top.g > 180 && top.b > 180, "\(top)")
        }

        @Test("maximumDimensions scales frames down to fit, aspect kept, after mirroring and rotation; never up")
        func scaledToFit() async throws {
            let (session, output) = try await runningSession(front)
            defer { session.stopRunning() }
            output.videoSettings = .init(pixelFormat: .bgra, maximumDimensions: .init(width: 320, height: 320))
            let small = try #require(await Capture_Tests_frames(output, 2).last)
            #expect(small.imageBuffer.width == 320 && small.imageBuffer.height == 240)
            // Mirrored: the black bar (the last of eight, 40 px wide at this size) is on the left.
            let left = small.imageBuffer.bgraPixel(x: 10, y: 120)
            #expect(left.r < 30 && left.g < 30 && left.b < 30, "\(left)")
            output.connection.videoRotationAngle = 90
            let turned = try #require(await Capture_Tests_frames(output, 3).last)
            #expect(turned.imageBuffer.width == 240 && turned.imageBuffer.height == 320 && turned.rotationAngle == 90 && turned.isMirrored)
            // Mirrored, then turned clockwise: the black bar runs along the top.
            let top = turned.imageBuffer.bgraPixel(x: 120, y: 10)
            #expect(top.r < 30 && top.g < 30 && top.b < 30, "\(top)")
            output.connection.videoRotationAngle = 0
            output.videoSettings.maximumDimensions = .init(width: 4000, height: 4000)
            let full = try #require(await Capture_Tests_frames(output, 3).last)
            #expect(full.imageBuffer.width == 640 && full.imageBuffer.height == 480)
        }

        @Test("24-bit BGR frames (the app's preview) are scaled, mirrored and turned like BGRA ones, with the bars' colours", arguments: [PixelFormat.bgr24, .bgra])
        func previewFormats(format: PixelFormat) async throws {
            let (session, output) = try await runningSession(front, format: format)
            defer { session.stopRunning() }
            output.videoSettings.maximumDimensions = .init(width: 320, height: 320)
            let small = try #require(await Capture_Tests_frames(output, 2).last).imageBuffer
            #expect(small.format == format && small.width == 320 && small.height == 240)
            // Mirrored: black, blue, red, magenta, green, cyan, yellow, white (75%), 40 px each.
            let expected: [(Int, Int, Int)] = [(16, 16, 16), (0, 0, 191), (191, 0, 0), (191, 0, 191), (0, 191, 0), (0, 191, 191), (191, 191, 0), (191, 191, 191)]
            for (i, colour) in expected.enumerated() {
                let p = small.bgraPixel(x: i * 40 + 20, y: 100)
                let error = max(abs(Int(p.r) - colour.0), abs(Int(p.g) - colour.1), abs(Int(p.b) - colour.2))
                #expect(error <= 6, "bar \(i): \(p)")
            }
            output.connection.videoRotationAngle = 90
            let turned = try #require(await Capture_Tests_frames(output, 3).last)
            #expect(turned.imageBuffer.format == format && turned.imageBuffer.width == 240 && turned.imageBuffer.height == 320)
            let top = turned.imageBuffer.bgraPixel(x: 120, y: 10)
            #expect(top.r < 30 && top.g < 30 && top.b < 30, "mirrored, then turned: the black bar along the top: \(top)")
            output.connection.videoRotationAngle = 0
            output.videoSettings.maximumDimensions = nil
            let full = try #require(await Capture_Tests_frames(output, 3).last).imageBuffer
            #expect(full.format == format && full.width == 640 && full.height == 480)
            let left = full.bgraPixel(x: 20, y: 200)
            #expect(left.r < 30 && left.g < 30 && left.b < 30, "unscaled, still mirrored: \(left)")
        }

        @Test("a busy camera, a failing start and an unplugged camera give clear errors and events")
        func startFailures() async throws {
            let session = CaptureSession()
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: back))
            let events = session.events()
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.busy = true }
            await #expect(throws: CaptureError.deviceBusy(device: back.localizedName)) { try await session.start() }
            #expect(await waitForEvent(events) { $0 == .interrupted(.deviceInUseByAnotherClient) } != nil)
            VirtualCamera.setFaults(.init(failStart: true), for: VirtualCamera.backID)
            do {
                try await session.start()
                Issue.record("a failing STREAMON started")
            } catch {
                #expect(error.description.contains("stopped streaming"))
            }
            VirtualCamera.setFaults(.init(unplugged: true), for: VirtualCamera.backID)
            #expect(throws: CaptureError.self) { try CaptureDeviceInput(device: back) }
            VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
            #expect(!session.isRunning)
        }

        @Test("unplugging while streaming interrupts the session; plugging back in resumes it")
        func unplugAndReplug() async throws {
            let (session, output) = try await runningSession(back)
            defer { session.stopRunning() }
            let events = session.events()
            #expect(await Capture_Tests_frames(output, 2).infos.count == 2)
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.unplugged = true }
            #expect(await waitForEvent(events) { $0 == .interrupted(.deviceDisconnected) } != nil)
            #expect(session.isInterrupted && session.isRunning)
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.unplugged = false }
            #expect(await waitForEvent(events) { $0 == .interruptionEnded } != nil)
            #expect(await Capture_Tests_frames(output, 2).infos.count == 2)
            #expect(!session.isInterrupted)
        }

        @Test("discovery reports a camera unplugged and plugged back in while the program runs")
        func connectEvents() async throws {
            // Unplugged at once: the events cover everything after deviceEvents() returns, whether
            // or not its watching thread has run yet.
            let events = CaptureDevice.DiscoverySession(deviceTypes: [.virtual]).deviceEvents()
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.unplugged = true }
            guard case let .disconnected(id, name)? = await collect(events, count: 1, seconds: patience).first else {
                Issue.record("no disconnect event")
                return
            }
            #expect(id == VirtualCamera.backID && name == "Pinhole Test Camera (back)")
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.unplugged = false }
            guard case let .connected(device)? = await collect(events, count: 1, seconds: patience).first else {
                Issue.record("no connect event")
                return
            }
            #expect(device.uniqueID == VirtualCamera.backID)
        }

        @Test("a fatal streaming error stops the session with a runtime error")
        func fatalError() async throws {
            let (session, _) = try await runningSession(back)
            let events = session.events()
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.fatalError = true }
            let event = await waitForEvent(events) { if case .runtimeError = $0 { return true } else { return false } }
            #expect(event != nil)
            #expect(await waitUntil { !session.isRunning })
            session.stopRunning()
        }

        @Test("damaged and dropped frames are skipped and counted while the stream goes on")
        func damagedAndDropped() async throws {
            VirtualCamera.setFaults(.init(corruptEvery: 3, dropEvery: 4), for: VirtualCamera.backID)
            defer { VirtualCamera.setFaults(.init(), for: VirtualCamera.backID) }
            let (session, output) = try await runningSession(back)
            defer { session.stopRunning() }
            let taken = await Capture_Tests_frames(output, 12)
            #expect(taken.infos.count == 12)
            let stats = session.statistics
            #expect(stats.framesCorrupt >= 2)
            #expect(stats.framesDroppedByDriver >= 2)
        }

        @Test("a slow delegate makes frames drop (counted) instead of stalling the camera")
        func slowConsumer() async throws {
            final class Slow: VideoDataOutputSampleBufferDelegate, @unchecked Sendable {
                let count = Lock(0)
                func captureOutput(_ output: VideoDataOutput, didOutput sampleBuffer: SampleBuffer, from connection: CaptureConnection) {
                    count.withLock { $0 += 1 }
                    var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                    nanosleep(&pause, nil)
                }
            }
            let slow = Slow()
            let queue = DispatchQueue(label: "slow")
            let clock = ContinuousClock()
            let began = clock.now
            // The delegate is there from the first frame, so every frame the session delivers counts.
            let session = CaptureSession()
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: back))
            let output = VideoDataOutput()
            output.videoSettings = .init(pixelFormat: .bgra)
            output.setSampleBufferDelegate(slow, queue: queue)
            session.addOutput(output)
            try await session.start()
            // The delegate takes a few frames, each holding it 100 ms.
            #expect(await waitUntil { slow.count.withLock { $0 } >= 5 })
            session.stopRunning()
            queue.sync {}
            let lasted = (clock.now - began) / .seconds(1)
            let stats = session.statistics
            let handled = slow.count.withLock { $0 }
            // Every frame the camera delivered reached the output, which handed it to the delegate
            // or dropped it and counted it; none waited for the delegate.
            #expect(stats.framesDelivered == output.deliveredFrameCount + output.droppedFrameCount, "\(stats), \(output.deliveredFrameCount) delivered, \(output.droppedFrameCount) dropped")
            #expect(output.deliveredFrameCount == handled)
            // The camera went on while the delegate slept: frames came in meanwhile and were dropped.
            // (Had the delegate held the camera's thread, every frame would have found it free.)
            #expect(output.droppedFrameCount >= handled, "\(handled) handled, \(output.droppedFrameCount) dropped")
            // The delegate ran one frame at a time: no more than its 100 ms allow.
            #expect(Double(handled) <= lasted / 0.1 + 1, "\(handled) frames handled in \(lasted) s")
        }

        @Test("switching cameras while running keeps the outputs: the next frames come from the new camera")
        func switchCameras() async throws {
            let (session, output) = try await runningSession(back)
            defer { session.stopRunning() }
            let before = await Capture_Tests_frames(output, 1)
            try #require(before.infos.count == 1 && !before.infos[0].isMirrored)
            session.beginConfiguration()
            session.removeInput(session.inputs[0])
            session.addInput(try CaptureDeviceInput(device: front))
            await session.commitConfiguration()
            #expect(session.inputs.map(\.device.uniqueID) == [VirtualCamera.frontID])
            // The same output goes on with the front camera's frames: mirrored, the black bar on
            // the left. (How long a switch takes is the benchmark's business.)
            let next = await Capture_Tests_frames(output, 2)
            #expect(next.infos.count == 2 && next.infos.allSatisfy(\.isMirrored), "\(next.infos)")
            let left = try #require(next.last).imageBuffer.bgraPixel(x: 20, y: 200)
            #expect(left.r < 30 && left.g < 30 && left.b < 30, "the front camera's picture, mirrored: \(left)")
            #expect(session.isRunning)
        }

        @Test("typed controls: exposure, white balance, focus, zoom and torch map to the camera's controls")
        func typedControls() throws {
            try back.lockForConfiguration()
            defer { back.unlockForConfiguration() }
            #expect(back.isExposureModeSupported(.continuousAutoExposure) && back.isExposureModeSupported(.custom(duration: 0.01)))
            try back.setExposureMode(.custom(duration: 0.01))
            #expect(try back.value(of: .exposureMode) == 1 && back.value(of: .exposureTime) == 100)
            try back.setExposureMode(.custom(duration: 10))  // clamped to the camera's longest
            #expect(try back.value(of: .exposureTime) == 2047)
            try back.setExposureMode(.continuousAutoExposure)
            #expect(try back.value(of: .exposureMode) == 3)
            try back.setWhiteBalanceMode(.temperature(kelvin: 3200))
            #expect(try back.value(of: .autoWhiteBalance) == 0 && back.value(of: .whiteBalanceTemperature) == 3200)
            #expect(!back.isWhiteBalanceModeSupported(.temperature(kelvin: 10_000)))
            try back.setWhiteBalanceMode(.continuousAutoWhiteBalance)
            #expect(try back.value(of: .autoWhiteBalance) == 1)
            try back.setFocusPosition(50)
            #expect(try back.value(of: .continuousAutoFocus) == 0 && back.value(of: .focusPosition) == 50)
            try back.setZoom(200)
            #expect(try back.value(of: .zoom) == 200)
            try back.setTorchMode(.on)
            #expect(back.isTorchActive)
            try back.setTorchMode(.off)
            #expect(!back.isTorchActive)
            #expect(throws: CaptureError.self) { try front.setTorchMode(.on) }
            #expect(throws: CaptureError.self) { try back.setExposureTargetBias(1) }
        }

        @Test("controls need the configuration lock and reach the running camera")
        func controls() async throws {
            #expect(throws: CaptureError.notLockedForConfiguration(device: back.localizedName)) { try back.setValue(10, of: .brightness) }
            try back.lockForConfiguration()
            defer { back.unlockForConfiguration() }
            try back.setValue(10, of: .brightness)
            #expect(try back.value(of: .brightness) == 10)
            #expect(throws: CaptureError.self) { try back.setValue(1000, of: .brightness) }
            #expect(throws: CaptureError.self) { try back.setValue(1, of: .zoom) }
            let (session, _) = try await runningSession(back)
            defer { session.stopRunning() }
            #expect(try back.value(of: .brightness) == 10)
            try back.setValue(-5, of: .brightness)
            #expect(try back.value(of: .brightness) == -5)
            #expect(back.isFocusModeSupported(.continuousAutoFocus))
            try back.setFocusMode(.continuousAutoFocus)
        }
    }

}

/// Module-qualified alias for the helper (the test method `frames(format:)` shadows it).
func Capture_Tests_frames(_ output: VideoDataOutput, _ count: Int) async -> (infos: [FrameInfo], last: SampleBuffer?) {
    await frames(from: output, count: count)
}
