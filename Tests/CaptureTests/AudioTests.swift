@testable import Capture
import Dispatch
import Foundation
import Media
import Testing
import TestSupport

/// What a test keeps of a buffer without holding it (holding every buffer would starve the pool).
struct RecordedBuffer: Sendable {
    var timestamp: Int64
    var position: Int64
    var sampleCount: Int
    var channelCount: Int
    var isDiscontinuity: Bool
}

/// Everything one recording gave.
struct Recording: Sendable {
    var buffers: [RecordedBuffer] = []
    var samples: [Int16] = []
    var started: Int64 = 0
    var stopped: Int64 = 0
}

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNow() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// Records for `seconds` with `settings`, copying every buffer's samples as it arrives.
/// Keeps what a delegate hears, on a queue of its own: the buffers arrive on a Dispatch thread,
/// not on Swift's cooperative pool, which other suites' long synchronous tests can hold for
/// seconds (a reader there fell behind under CI's load and buffers were dropped).
final class BufferCollector: AudioDataOutputSampleBufferDelegate, @unchecked Sendable {
    let recording = Lock(Recording())
    let queue = DispatchQueue(label: "pinhole.test-audio-reader")

    func captureOutput(_ output: AudioDataOutput, didOutput buffer: AudioBuffer) {
        let kept = RecordedBuffer(timestamp: buffer.presentationTimestampNanoseconds, position: buffer.samplePosition,
                                  sampleCount: buffer.sampleCount, channelCount: buffer.channelCount, isDiscontinuity: buffer.isDiscontinuity)
        let samples = Array(buffer.samples)
        recording.withLock {
            $0.buffers.append(kept)
            $0.samples.append(contentsOf: samples)
        }
    }
}

/// Records from `settings`' microphone until at least `frames` frames have arrived (waiting up to
/// `patience` seconds: a busy machine may take longer to start the stream or to hand buffers
/// over); `started`/`stopped` say when it really ran.
func record(frames wanted: Int, settings: AudioDataOutput.Settings = .init()) async throws -> (Recording, AudioDataOutput) {
    let output = AudioDataOutput(settings: settings)
    let collector = BufferCollector()
    output.setSampleBufferDelegate(collector, queue: collector.queue)
    let started = monotonicNow()
    do {
        try await output.start()
    } catch {
        await output.stop()
        throw error
    }
    let arrived = await waitUntil { collector.recording.withLock { $0.buffers.reduce(0) { $0 + $1.sampleCount } } >= wanted }
    await output.stop()
    let stopped = monotonicNow()
    collector.queue.sync {}
    #expect(arrived, "fewer than \(wanted) frames in \(patience) s: \(output.statistics)")
    var recording = collector.recording.withLock { $0 }
    recording.started = started
    recording.stopped = stopped
    return (recording, output)
}

/// PULSE_SERVER is one per process: the suites that publish a private server run inside the
/// serialized parent, one at a time (they also share the test camera).
extension VirtualCameraSuites {
    @Suite("Microphones and recording sound (a private PulseAudio server)", .serialized, .privateSoundServer)
    struct AudioTests {
        var server: PrivateSoundServer { PrivateSoundServer.current! }

        @Test("discovery lists the sine source as the default microphone, and not the null sink's monitor")
        func discovery() throws {
            let discovery = Microphone.DiscoverySession()
            #expect(discovery.unavailableReason == nil)
            let sine = try #require(discovery.devices.first { $0.uniqueID == "sine" }, "found: \(discovery.devices)")
            #expect(sine.isDefault && sine.nativeSampleRate == 48000 && sine.nativeChannelCount == 2)
            #expect(sine.localizedName == "Sine")
            #expect(discovery.devices.count == 1, "found: \(discovery.devices)")
            #expect(discovery.defaultDevice == sine && Microphone.default() == sine)
            #expect(try Microphone.microphone(withID: nil) == sine)
        }

        @Test("two seconds of stereo: 96000 frames per channel, 440 Hz, timestamps continuous wherever no discontinuity is reported")
        func recordsTheSine() async throws {
            // The null sink renders up to ~15 ms ahead, which its monitor cannot report (libpulse
            // clamps the negative latency to 0): measured times wobble that much here, where a sound
            // card's do not. A wide tolerance keeps that from re-anchoring; AudioClockTests test re-anchoring.
            let (recording, output) = try await record(frames: 96_000, settings: .init(clockTolerance: .milliseconds(30)))
            #expect(output.microphone?.uniqueID == "sine" && !output.isRunning && output.runtimeError == nil)
            let frames = recording.buffers.reduce(0) { $0 + $1.sampleCount }
            // Never more sound than time passed (a busy machine may stop it late: then there is more of both).
            let lasted = Double(recording.stopped - recording.started) / 1e9
            #expect(Double(frames) <= (lasted + 0.03) * 48000, "\(frames) frames in \(lasted) s")
            #expect(frames >= 96_000)
            #expect(recording.buffers.allSatisfy { $0.channelCount == 2 && $0.sampleCount == 480 })
            #expect(recording.samples.count == frames * 2)
            // Every buffer read was delivered, or dropped and counted (the delegate fell a second behind).
            let statistics = output.statistics
            #expect(statistics.buffersDelivered == recording.buffers.count)
            #expect(statistics.samplesRecorded == Int64(frames + statistics.buffersDropped * 480), "\(statistics)")

            // Both channels carry the tone; 440 Hz dominates every other candidate by far.
            for channel in 0..<2 {
                let tone = goertzel(recording.samples, frequency: 440, rate: 48000, stride: 2, offset: channel)
                for other in [300.0, 400, 480, 600, 880, 1000] {
                    let power = goertzel(recording.samples, frequency: other, rate: 48000, stride: 2, offset: channel)
                    #expect(tone > 100 * power, "channel \(channel): 440 Hz \(tone) vs \(other) Hz \(power)")
                }
                #expect(tone > 1000, "the sine is too quiet: \(tone)")
            }

            // Timestamps: each buffer starts where the previous ended (to the nanosecond's rounding),
            // except at a buffer marked as a discontinuity: the clock re-anchored there (a busy
            // machine made even the least late of the first reads late) or buffers before it were
            // dropped; the statistics count both.
            var discontinuities = 0
            for (previous, next) in zip(recording.buffers, recording.buffers.dropFirst()) {
                #expect(next.timestamp > previous.timestamp, "time went back at frame \(next.position)")
                if next.isDiscontinuity {
                    discontinuities += 1
                    #expect(next.position >= previous.position + Int64(previous.sampleCount))
                    continue
                }
                #expect(next.position == previous.position + Int64(previous.sampleCount))
                let gap = Double(next.timestamp - previous.timestamp) / 1e9
                #expect(abs(gap - Double(previous.sampleCount) / 48000) < 0.001, "gap \(gap) s at frame \(next.position), not marked as a discontinuity")
            }
            #expect(discontinuities <= statistics.clockCorrections + statistics.buffersDropped && statistics.clockCorrections <= discontinuities + statistics.buffersDropped,
                    "\(discontinuities) marked; \(statistics)")
            // And they are on CLOCK_MONOTONIC: the sound was recorded between start and stop.
            let first = try #require(recording.buffers.first), last = try #require(recording.buffers.last)
            let end = last.timestamp + Int64(last.sampleCount) * 1_000_000_000 / 48000
            #expect(first.timestamp > recording.started - 100_000_000 && end < recording.stopped + 100_000_000,
                    "sound from \(Double(first.timestamp - recording.started) / 1e9) s to \(Double(end - recording.started) / 1e9) s of a recording of \(lasted) s")
        }

        @Test("mono records one channel; 20 ms buffers when asked")
        func mono() async throws {
            let (recording, _) = try await record(frames: 12 * 960, settings: .init(channels: .mono, bufferDuration: .milliseconds(20)))
            #expect(recording.buffers.count >= 12)
            #expect(recording.buffers.allSatisfy { $0.channelCount == 1 && $0.sampleCount == 960 })
            let frames = recording.buffers.reduce(0) { $0 + $1.sampleCount }
            #expect(recording.samples.count == frames)
            #expect(goertzel(recording.samples, frequency: 440, rate: 48000) > 100 * goertzel(recording.samples, frequency: 1000, rate: 48000))
        }

        @Test("a microphone that does not exist: a typed error naming the ones there are")
        func unknownMicrophone() async throws {
            let output = AudioDataOutput(settings: .init(microphoneID: "no-such-microphone"))
            await #expect(throws: CaptureError.microphoneNotFound(name: "no-such-microphone", available: ["sine"])) { try await output.start() }
            #expect(!output.isRunning)
            let message = CaptureError.microphoneNotFound(name: "no-such-microphone", available: ["sine"]).description
            #expect(message.contains("no-such-microphone") && message.contains("sine"))
        }

        @Test("no server: discovery is empty with the reason, start throws at once")
        func noServer() async throws {
            setenv("PULSE_SERVER", "unix:\(server.folder.path("nobody-listens"))", 1)
            defer { server.publish() }
            // "At once": long before the 120 s each is given, which a refused connection never
            // waits for (the bound leaves a loaded machine room).
            let begin = monotonicNow()
            let discovery = Microphone.DiscoverySession(timeout: .seconds(120))
            #expect(discovery.devices.isEmpty && discovery.unavailableReason == .noSoundServer)
            #expect(CaptureError.noSoundServer.description == "No sound server is running (PulseAudio or PipeWire); recording without sound.")
            let output = AudioDataOutput(settings: .init(timeout: .seconds(120)))
            await #expect(throws: CaptureError.noSoundServer) { try await output.start() }
            #expect(monotonicNow() - begin < 60_000_000_000)
            #expect(!output.isRunning)
        }

        @Test("a server that refuses this client: access denied, for discovery and for recording")
        func accessDenied() async throws {
            let strict = try PrivateSoundServer(anonymous: false)
            strict.publish()
            defer { server.publish() }
            // This process does not hold the server's cookie (PULSE_COOKIE is unset here, and HOME is not the server's).
            let discovery = Microphone.DiscoverySession()
            #expect(discovery.devices.isEmpty && discovery.unavailableReason == .microphoneAccessDenied(microphone: "its microphones"))
            await #expect(throws: CaptureError.microphoneAccessDenied(microphone: "its microphones")) { try await AudioDataOutput().start() }
            #expect(discovery.unavailableReason?.description.hasPrefix("The sound server refused access to its microphones.") == true)
        }

        @Test("a hung server costs the timeout, not a hang; stop() returns even while a read blocks")
        func hungServer() async throws {
            server.freeze(true)
            var thawed = false
            defer { if !thawed { server.freeze(false) } }
            // Each costs its timeout of 0.3 s: at least that, and the error names the 0.3 s it was
            // given (not the 2-s default). No upper bound: a busy machine adds to the wait, and a
            // hang would not return at all.
            var begin = monotonicNow()
            let discovery = Microphone.DiscoverySession(timeout: .milliseconds(300))
            #expect(discovery.devices.isEmpty && discovery.unavailableReason == .soundServerNotResponding(seconds: 0.3))
            var took = monotonicNow() - begin
            #expect(took >= 300_000_000, "discovery took \(Double(took) / 1e9) s")
            begin = monotonicNow()
            let output = AudioDataOutput(settings: .init(timeout: .milliseconds(300)))
            await #expect(throws: CaptureError.soundServerNotResponding(seconds: 0.3)) { try await output.start() }
            took = monotonicNow() - begin
            #expect(took >= 300_000_000, "start took \(Double(took) / 1e9) s")
            server.freeze(false)
            thawed = true

            // Recording, then the server freezes: stop() still returns (after its one-second grace;
            // a wait without one never returns while the server is frozen). The bound is a hang
            // guard, not a speed: on a loaded 2-core CI machine the awaiting task's resumption alone
            // once took 13 s.
            let recording = AudioDataOutput()
            let stream = recording.audioBuffers()
            try await recording.start()
            #expect(await collect(stream, count: 5, seconds: patience).count == 5)
            server.freeze(true)
            thawed = false
            try await Task.sleep(for: .milliseconds(100))
            let stopping = monotonicNow()
            await recording.stop()
            #expect(monotonicNow() - stopping < 60_000_000_000)
            #expect(!recording.isRunning)
            server.freeze(false)
            thawed = true
            // The server answers again: recording works.
            let (again, _) = try await record(frames: 10 * 480)
            #expect(again.buffers.count >= 10)
        }

        @Test("stop() ends the recording and its stream, and start/stop may repeat")
        func promptStop() async throws {
            let output = AudioDataOutput()
            for _ in 0..<3 {
                let stream = output.audioBuffers()
                try await output.start()
                try await output.start()  // already running: nothing happens
                #expect(output.isRunning)
                let first = await collect(stream, count: 5, seconds: patience)
                #expect(first.count == 5)
                // What a caller relies on: stop() returns, the output is stopped, and a reader's
                // loop over the stream ends (how long it takes is the machine's, not a contract:
                // a busy CI machine took 2.8 s where an idle one takes a buffer's 10 ms).
                await output.stop()
                #expect(!output.isRunning)
                let ended = StreamEnded()
                let reader = Task {
                    for await _ in stream {}
                    ended.value.withLock { $0 = true }
                }
                #expect(await waitUntil { ended.value.withLock { $0 } }, "the stream did not end after stop()")
                reader.cancel()
            }
            await output.stop()  // stopped already: nothing happens
        }

        @Test("a reader that falls behind: the oldest buffers drop (counted), memory stays bounded")
        func slowReader() async throws {
            let output = AudioDataOutput(settings: .init(maximumQueuedDuration: .milliseconds(50)))
            let stream = output.audioBuffers()
            try await output.start()
            // Nobody reads while half a second of sound is recorded.
            #expect(await waitUntil { output.statistics.samplesRecorded >= 50 * 480 })
            await output.stop()
            let statistics = output.statistics
            var kept: [Int64] = []
            for await buffer in stream { kept.append(buffer.samplePosition) }
            // The five newest wait; every older one was dropped and counted.
            #expect(kept.count == 5, "\(kept)")
            #expect(statistics.buffersDropped == Int(statistics.samplesRecorded / 480) - kept.count, "\(statistics)")
            #expect(kept == kept.sorted() && (kept.last ?? 0) + 480 == statistics.samplesRecorded)
        }

        @Test("a delegate that holds buffers: the pool runs out, buffers drop and are reported; later ones say so")
        func slowDelegate() async throws {
            final class Hoarder: AudioDataOutputSampleBufferDelegate, @unchecked Sendable {
                let held = Lock<[AudioBuffer]>([])
                let drops = Lock<[Int64]>([])
                func captureOutput(_ output: AudioDataOutput, didOutput audioBuffer: AudioBuffer) {
                    held.withLock { $0.append(audioBuffer) }
                }
                func captureOutput(_ output: AudioDataOutput, didDropBufferAt samplePosition: Int64) {
                    drops.withLock { $0.append(samplePosition) }
                    held.withLock { $0.removeAll() }  // let go: recording resumes
                }
            }
            let hoarder = Hoarder()
            let output = AudioDataOutput(settings: .init(maximumQueuedDuration: .milliseconds(50)))
            let queue = DispatchQueue(label: "audio-test-delegate")
            output.setSampleBufferDelegate(hoarder, queue: queue)
            try await output.start()
            // The pool (9 buffers) runs out, a buffer drops, the delegate lets go, more come.
            #expect(await waitUntil { output.statistics.buffersDropped > 0 && output.statistics.buffersDelivered > 9 })
            await output.stop()
            queue.sync {}
            let statistics = output.statistics
            let drops = hoarder.drops.withLock { $0 }
            #expect(statistics.buffersDropped > 0 && drops.count == statistics.buffersDropped, "\(statistics), \(drops.count) reported")
            #expect(statistics.buffersDelivered > 9 && statistics.buffersDelivered + statistics.buffersDropped == Int(statistics.samplesRecorded / 480))
        }

        @Test("the server going away ends recording with a runtime error and ends the sequence")
        func serverDies() async throws {
            let other = try PrivateSoundServer()
            other.publish()
            defer { server.publish() }
            final class Watcher: AudioDataOutputSampleBufferDelegate, @unchecked Sendable {
                let error = Lock<CaptureError?>(nil)
                func captureOutput(_ output: AudioDataOutput, didOutput audioBuffer: AudioBuffer) {}
                func captureOutput(_ output: AudioDataOutput, didStopWithError error: CaptureError) { self.error.withLock { $0 = error } }
            }
            let watcher = Watcher()
            let output = AudioDataOutput()
            output.setSampleBufferDelegate(watcher, queue: nil)
            let stream = output.audioBuffers()
            try await output.start()
            let count = Lock(0)
            let ended = Task { () -> Bool in
                for await _ in stream { count.withLock { $0 += 1 } }
                return !Task.isCancelled  // the sequence ended by itself
            }
            #expect(await waitUntil { count.withLock { $0 } > 5 })
            other.stop()
            let timer = Task {
                try await Task.sleep(for: .seconds(patience))
                ended.cancel()
            }
            #expect(await ended.value, "the sequence did not end within \(patience) s")
            #expect(count.withLock { $0 } > 5)
            timer.cancel()
            #expect(!output.isRunning)
            let error = try #require(output.runtimeError)
            guard case .audioFailed(microphone: "sine", _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(await waitUntil { watcher.error.withLock { $0 } != nil })
            #expect(watcher.error.withLock { $0 } == error)
            await output.stop()
        }
    }
}

@Suite("Audio timestamps (the sample clock against CLOCK_MONOTONIC)")
struct AudioClockTests {
    /// Stamps `count` buffers of 480 frames (10 ms) whose true start times run `ppm` fast
    /// relative to the sample count, measured late as on a busy machine: by up to `late`
    /// nanoseconds, and every 37th by 20 ms more. The first measurement is `firstLate` late.
    func run(count: Int, ppm: Double, late: Int64, firstLate: Int64 = 0) -> (stamps: [AudioClock.Stamp], truth: [Int64]) {
        var clock = AudioClock(sampleRate: 48000, tolerance: .milliseconds(5), window: 100)
        var stamps: [AudioClock.Stamp] = [], truth: [Int64] = []
        var random: UInt64 = 42
        for index in 0..<count {
            let start = 5_000_000_000 + Int64(Double(index * 480) / 48000 * 1e9 * (1 + ppm / 1e6))
            random = random &* 6364136223846793005 &+ 1442695040888963407
            var delay = late == 0 ? 0 : Int64(random >> 33) % (late + 1)
            if index % 37 == 36 { delay += 20_000_000 }
            if index == 0 { delay = firstLate }
            truth.append(start)
            stamps.append(clock.stamp(frames: 480, measuredStart: start + delay))
        }
        return (stamps, truth)
    }

    /// The largest distance between stamps and true times.
    func worstError(_ stamps: [AudioClock.Stamp], _ truth: [Int64]) -> Int64 {
        zip(stamps, truth).map { abs($0.presentationTime - $1) }.max() ?? 0
    }

    @Test("late measurements alone never move the clock: buffers are exactly 10 ms apart")
    func lateReads() {
        let (stamps, truth) = run(count: 6000, ppm: 0, late: 4_000_000)
        #expect(stamps.allSatisfy { $0.correction == nil })
        for (previous, next) in zip(stamps, stamps.dropFirst()) {
            #expect(next.presentationTime - previous.presentationTime == 10_000_000)
            #expect(next.position == previous.position + 480)
        }
        #expect(worstError(stamps, truth) <= 1)  // the true times are rounded from doubles
    }

    @Test("sound cards 100 ppm fast or slow, over ten minutes: re-anchored, within a few ms, never backwards")
    func drift() {
        for ppm in [100.0, -100.0] {
            let (stamps, truth) = run(count: 60_000, ppm: ppm, late: 2_000_000)
            let corrections = stamps.compactMap(\.correction)
            #expect((8...20).contains(corrections.count), "\(ppm) ppm: \(corrections.count) corrections")
            #expect(corrections.allSatisfy { ppm > 0 ? $0 > 0 : $0 < 0 })
            #expect(worstError(stamps, truth) < 7_000_000, "\(ppm) ppm: off by \(Double(worstError(stamps, truth)) / 1e6) ms")
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0.presentationTime < $1.presentationTime })
        }
    }

    @Test("a late first measurement is corrected once, after a second of better ones")
    func lateAnchor() {
        let (stamps, truth) = run(count: 300, ppm: 0, late: 1_000_000, firstLate: 8_000_000)
        let corrections = stamps.compactMap(\.correction)
        #expect(corrections.count == 1 && (-8_000_000 ... -7_000_000).contains(corrections[0]), "\(corrections)")
        #expect(stamps[150...].allSatisfy { abs($0.presentationTime - truth[Int($0.position / 480)]) <= 1_000_000 })
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0.presentationTime < $1.presentationTime })
    }

    @Test("anchored on the least late of the first buffers, nothing needs correcting later")
    func settledAnchor() {
        var clock = AudioClock(sampleRate: 48000, tolerance: .milliseconds(5), window: 16)
        // The first five reads: 6, 0.5, 9, nil (latency unknown) and 3 ms late.
        let delays: [Int64?] = [6_000_000, 500_000, 9_000_000, nil, 3_000_000]
        clock.anchor(onFirst: delays.enumerated().map { index, delay in delay.map { Int64(index) * 10_000_000 + $0 } }, frames: 480)
        var stamps: [AudioClock.Stamp] = []
        for index in 0..<200 {
            stamps.append(clock.stamp(frames: 480, measuredStart: index < 5 ? nil : Int64(index) * 10_000_000 + Int64(index % 3) * 1_000_000))
        }
        #expect(stamps.allSatisfy { $0.correction == nil && $0.presentationTime == $0.position * 1_000_000_000 / 48000 + 500_000 })
    }

    @Test("lost samples (a server overrun) are caught up with one correction")
    func overrun() {
        var clock = AudioClock(sampleRate: 48000, tolerance: .milliseconds(5), window: 16)
        var corrections: [Int64] = []
        for index in 0..<200 {
            // After buffer 100, 50 ms of sound never arrived: measurements jump ahead.
            let start = Int64(index) * 10_000_000 + (index >= 100 ? 50_000_000 : 0)
            if let correction = clock.stamp(frames: 480, measuredStart: start).correction { corrections.append(correction) }
        }
        #expect(corrections == [50_000_000])
    }

    @Test("durations are exact for any sample count")
    func durations() {
        let clock = AudioClock(sampleRate: 48000, tolerance: .milliseconds(5), window: 16)
        #expect(clock.duration(of: 480) == 10_000_000)
        #expect(clock.duration(of: 48000 * 86400 * 365) == 86400 * 365 * 1_000_000_000)
        #expect(clock.duration(of: 1) == 20833)
    }
}

/// Set by a reader task when its stream ends.
final class StreamEnded: Sendable {
    let value = Lock(false)
}
