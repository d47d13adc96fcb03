@testable import Capture
import Foundation
import Glibc
import Media
import PinholeTestSupport
import Testing
import TestSupport

/// The unplug cycles `scripts/vm/unplug-soak` asks for (`PINHOLE_VIVID_SOAK_CYCLES`); without
/// it the soak is left out (it is a script's run with figures, not one of CI's tests).
let vividSoakCycles = Int(ProcessInfo.processInfo.environment["PINHOLE_VIVID_SOAK_CYCLES"] ?? "") ?? 0

extension VirtualCameraSuites {
    @Suite("vivid unplugged and plugged back in, again and again (scripts/vm/unplug-soak)",
           .enabled(if: vividAvailable && vividSoakCycles > 0))
    struct VividUnplugSoak {
        init() throws { try reloadVivid(["1"]) }

        /// Each cycle unbinds vivid's device and binds it again while one session streams; every
        /// other cycle a recording runs when it goes, which is stopped as the app stops it (on the
        /// interruption) and must play. The session must resume with frames each time.
        @Test("N unplug/replug cycles while streaming and while recording: the session resumes each time, every recording plays, no descriptor or thread left behind")
        func cycles() async throws {
            let folder = try TemporaryDirectory()
            let device = try CaptureDevice.device(withID: "/dev/video0")
            let (session, output) = try await vividSession(device)
            defer { session.stopRunning() }
            let movie = MovieFileOutput()
            session.addOutput(movie)
            let events = session.events()
            #expect(await frames(from: output, count: 2, seconds: patience).infos.count == 2)
            let clock = ContinuousClock()
            let began = clock.now
            let (fdsBefore, threadsBefore) = (ProcessFacts.openFileCount(getpid()), ProcessFacts.threadCount(getpid()))
            var resumed = 0, recordings = 0, playable = 0, recordedFrames = 0
            var replug: [Double] = []
            for cycle in 0..<vividSoakCycles {
                let recording = cycle % 2 == 1
                let path = folder.path("cycle-\(cycle).mp4")
                if recording {
                    try await movie.startRecording(to: path, timeout: patience)
                    #expect(await waitUntil { movie.recordedFrameCount >= 3 }, "cycle \(cycle): the recording took no frames")
                }
                try VividScenario.unplug()
                guard await waitForEvent(events, seconds: patience, { $0 == .interrupted(.deviceDisconnected) }) != nil else {
                    Issue.record("cycle \(cycle): no interruption after the unbind")
                    break
                }
                if recording {
                    recordings += 1
                    let summary = await movie.stopRecording()
                    recordedFrames += summary?.frameCount ?? 0
                    if try decodesCleanly(path) { playable += 1 } else { Issue.record("cycle \(cycle): \(path) does not play") }
                }
                try VividScenario.bindAgain()
                let back = clock.now
                guard await waitForEvent(events, seconds: patience, { $0 == .interruptionEnded }) != nil else {
                    Issue.record("cycle \(cycle): the session did not resume after the bind")
                    break
                }
                guard await frames(from: output, count: 1, seconds: patience).infos.count == 1 else {
                    Issue.record("cycle \(cycle): no frame after resuming")
                    break
                }
                replug.append((clock.now - back) / .seconds(1))
                resumed += 1
            }
            let (fdsAfter, threadsAfter) = (ProcessFacts.openFileCount(getpid()), ProcessFacts.threadCount(getpid()))
            let sorted = replug.sorted()
            let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
            print("unplug soak: \(resumed) of \(vividSoakCycles) cycles resumed in \(((clock.now - began) / .seconds(1)).rounded()) s; "
                  + "\(playable) of \(recordings) recordings play (\(recordedFrames) frames); plugged back in to the first frame: median \(median) s, "
                  + "longest \(sorted.last ?? 0) s; descriptors \(fdsBefore) → \(fdsAfter), threads \(threadsBefore) → \(threadsAfter); "
                  + "session: \(session.statistics)")
            #expect(resumed == vividSoakCycles && playable == recordings)
            #expect(fdsAfter <= fdsBefore, "descriptors \(fdsBefore) → \(fdsAfter)")
        }
    }
}
