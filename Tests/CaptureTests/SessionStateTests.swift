@_spi(Testing) @testable import Capture
import Dispatch
import Foundation
import Glibc
import Media
import Synchronization
import Testing
import TestSupport

/// Runs `body` on a new detached thread.
enum DetachedThread {
    static func start(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
        pthread_detach(thread)
    }

    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}

/// The threads of this process now (/proc/self/task).
func liveThreadCount() -> Int {
    guard let folder = opendir("/proc/self/task") else { return -1 }
    defer { closedir(folder) }
    var count = 0
    while let entry = readdir(folder) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { count += 1 }
    }
    return count
}

extension VirtualCameraSuites {
    @Suite("The session's state machine: failures, silence, settings and configuration races")
    struct SessionStateTests {
        let back = try! CaptureDevice.device(withID: "test-back")

        init() {
            VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
            VirtualCamera.setFaults(.init(), for: VirtualCamera.frontID)
        }

        /// Starts `session`, sees frames, makes the camera fail fatally and waits for the session to stop.
        func failOnce(_ session: CaptureSession, _ output: VideoDataOutput) async throws {
            #expect(await frames(from: output, count: 1).infos.count == 1)
            let events = session.events()
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.fatalError = true }
            #expect(await waitForEvent(events) { if case .runtimeError = $0 { true } else { false } } != nil)
            #expect(await waitUntil { !session.isRunning })
        }

        @Test("runtime errors and restarts leave one streaming thread: each failed one is joined")
        func failedThreadsAreJoined() async throws {
            let (session, output) = try await runningSession(back)
            try await failOnce(session, output)
            // The queue joins the failed thread by itself, without a restart or a stop.
            #expect(await waitUntil { session.unjoinedStreamingThreads == 0 }, "\(session.unjoinedStreamingThreads) unjoined")
            try await session.start()
            try await failOnce(session, output)
            let before = liveThreadCount()
            for _ in 0..<8 {
                try await session.start()
                try await failOnce(session, output)
            }
            try await session.start()
            #expect(await frames(from: output, count: 2).infos.count == 2)
            #expect(session.unjoinedStreamingThreads == 1, "only the running one")
            await session.stop()
            #expect(session.unjoinedStreamingThreads == 0)
            // Eight more failures and restarts left no thread running either (a little slack for
            // threads other suites and the runtime start meanwhile).
            let after = liveThreadCount()
            #expect(after <= before + 3, "threads: \(before) before, \(after) after")
        }

        @Test("a camera that sends nothing stops the session with a timeout, measured on the clock, not in wake-ups")
        func silenceStopsTheSession() async throws {
            let session = CaptureSession()
            session.silenceLimit.store(1, ordering: .relaxed)
            session.sessionPreset = .vga640x480
            session.addInput(try CaptureDeviceInput(device: back))
            session.addOutput(VideoDataOutput())
            let events = session.events()
            // Every wait wakes after 1 ms without a frame: counted as 0.2 s each, a second of
            // "silence" would pass in 5 ms.
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.silent = true }
            let clock = ContinuousClock()
            let began = clock.now
            try await session.start()
            let event = await waitForEvent(events) { if case .runtimeError = $0 { true } else { false } }
            let waited = (clock.now - began) / .seconds(1)
            guard case let .runtimeError(.timeout(_, seconds))? = event else {
                Issue.record("no timeout: \(String(describing: event))")
                return
            }
            #expect(seconds >= 1 && waited >= 0.95, "reported \(seconds) s after \(waited) s")
            // A runtime error stops the session, as the event's documentation says; no error follows every 10 s.
            #expect(await waitUntil { !session.isRunning })
            #expect(await waitUntil { session.unjoinedStreamingThreads == 0 })
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.silent = false }
            try await session.start()
            #expect(session.isRunning)
            await session.stop()
        }

        @Test("controls the program set come back when an unplugged camera returns")
        func controlsSurviveUnplug() async throws {
            try back.lockForConfiguration()
            try back.setValue(10, of: .brightness)
            back.unlockForConfiguration()
            defer {
                try? back.lockForConfiguration()
                try? back.setValue(0, of: .brightness)
                back.unlockForConfiguration()
            }
            let (session, output) = try await runningSession(back)
            defer { session.stopRunning() }
            #expect(try back.value(of: .brightness) == 10)
            let events = session.events()
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.unplugged = true }
            #expect(await waitForEvent(events) { $0 == .interrupted(.deviceDisconnected) } != nil)
            VirtualCamera.updateFaults(for: VirtualCamera.backID) { $0.unplugged = false }
            #expect(await waitForEvent(events) { $0 == .interruptionEnded } != nil)
            #expect(await frames(from: output, count: 1).infos.count == 1)
            // Read from the reopened camera, not from the device's memory.
            #expect(try back.value(of: .brightness) == 10)
        }

        @Test("a button is pressed at once, never kept, so never pressed again at a start")
        func buttonsAreNotKept() throws {
            let button = DeviceControl(id: .autoFocusStart, name: "Auto Focus, Start", kind: .button, minimum: 0, maximum: 1, step: 1, defaultValue: 0,
                                       menu: [], isReadOnly: false)
            let brightness = DeviceControl(id: .brightness, name: "Brightness", kind: .integer, minimum: -64, maximum: 64, step: 1, defaultValue: 0,
                                           menu: [], isReadOnly: false)
            let device = CaptureDevice(uniqueID: "pinhole-button-test", localizedName: "Button test", position: .front, deviceType: .virtual,
                                       formats: [], controls: [button, brightness], source: .virtual)
            try device.lockForConfiguration()
            defer { device.unlockForConfiguration() }
            // Pressed now, on the camera opened for the moment (the test camera it opens has no
            // such button, so the press reaches it and is refused): not kept for later.
            #expect(throws: CaptureError.self) { try device.setValue(1, of: .autoFocusStart) }
            try device.setValue(5, of: .brightness)
            #expect(device.pendingControlValues == [.brightness: 5])
        }

        @Test("the configuration lock is its holder's: others can neither use nor release it, and wait for it")
        func lockHasAnOwner() async throws {
            try back.lockForConfiguration()
            try back.lockForConfiguration()  // recursive
            back.unlockForConfiguration()
            let device = back
            let other = await Task.detached { () -> CaptureError? in
                device.unlockForConfiguration()  // not the holder: nothing happens
                do throws(CaptureError) { try device.setValue(3, of: .brightness) } catch { return error }
                return nil
            }.value
            #expect(other == .notLockedForConfiguration(device: back.localizedName))
            try back.setValue(4, of: .brightness)  // still ours
            // Another thread's lock waits until the holder lets go. The waiter is a plain thread
            // and this side does not suspend in between: a busy machine's task pool (two threads
            // here, shared with other suites) could otherwise keep this side from letting go
            // within the lock's 2-s patience.
            let waited = Lock<Bool?>(nil)
            let waiter = Thread {
                var result = false
                do throws(CaptureError) {
                    try device.lockForConfiguration()
                    try device.setValue(0, of: .brightness)
                    device.unlockForConfiguration()
                    result = true
                } catch {}
                waited.withLock { $0 = result }
            }
            waiter.start()
            usleep(100_000)
            #expect(try back.value(of: .brightness) == 4)
            back.unlockForConfiguration()
            #expect(await waitUntil { waited.withLock { $0 } != nil })
            #expect(waited.withLock { $0 } == true)
            #expect(try back.value(of: .brightness) == 0)
        }

        @Test("a flash photo uses the LED without releasing the lock the program holds")
        func flashKeepsTheProgramsLock() async throws {
            let (session, photos, video) = try await photoSession(back)
            defer { session.stopRunning() }
            #expect(await frames(from: video, count: 1).infos.count == 1)
            try back.lockForConfiguration()
            defer { back.unlockForConfiguration() }
            let photo = try await photos.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), flashMode: .on))
            #expect(photo.resolvedSettings.flashFired)
            #expect(!back.isTorchActive, "the LED is back as it was")
            try back.setValue(1, of: .brightness)  // the lock is still held
            try back.setValue(0, of: .brightness)
        }

        @Test("configuration changes from one thread racing commits from another are all kept")
        func racingConfiguration() async throws {
            final class Race: Sendable {
                let go = Atomic<Bool>(false)
                let done = Atomic<Bool>(false)
                let added = Atomic<Int>(0)
            }
            let session = CaptureSession()
            session.addInput(try CaptureDeviceInput(device: back))
            let output = VideoDataOutput()
            let race = Race()
            // One thread adds (the same output, again and again: only the count matters) while
            // this task opens and commits groups as fast as it can, both at once.
            DetachedThread.start {
                while !race.go.load(ordering: .acquiring) {}
                for _ in 0..<20_000 {
                    session.addOutput(output)
                    race.added.add(1, ordering: .relaxed)
                }
                race.done.store(true, ordering: .releasing)
            }
            race.go.store(true, ordering: .releasing)
            var round = 0
            while !race.done.load(ordering: .acquiring) {
                session.beginConfiguration()
                session.sessionPreset = round % 2 == 0 ? .low : .medium
                await session.commitConfiguration()
                round += 1
            }
            let added = race.added.load(ordering: .acquiring)
            #expect(session.outputs.count == added, "\(added - session.outputs.count) of \(added) outputs lost over \(round) commits")
            #expect(session.sessionPreset == (round % 2 == 0 ? .medium : .low))
            #expect(session.inputs.count == 1)
        }
    }
}
