import CPulse

/// One recording stream through PulseAudio's simple (blocking) API: 48 kHz signed 16-bit
/// interleaved from one source, with a small fragment so reads return every few milliseconds.
///
/// Ownership: used by one recording thread only; `pa_simple_read` blocks until a whole buffer
/// has arrived, which is why it never runs on a caller's thread. Freed on deinit.
final class PulseRecorder {
    private let stream: OpaquePointer
    /// The source recorded from.
    let microphone: String
    /// Bytes per frame (2 × channels).
    let bytesPerFrame: Int

    /// Connects to the server and starts recording `microphone` with `channelCount` channels at
    /// `sampleRate`, asking the server to hand data over every `fragmentFrames` frames.
    init(microphone: String, channelCount: Int, sampleRate: Int, fragmentFrames: Int) throws(CaptureError) {
        try PulseLibrary.require()
        self.microphone = microphone
        bytesPerFrame = channelCount * MemoryLayout<Int16>.size
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: UInt32(sampleRate), channels: UInt8(channelCount))
        // Record streams use only maxlength (what the server keeps for a slow reader before it
        // overruns: two seconds) and fragsize (how much it sends at once); -1 leaves the rest.
        var attributes = pa_buffer_attr(maxlength: UInt32(2 * sampleRate * bytesPerFrame), tlength: UInt32.max, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32(fragmentFrames * bytesPerFrame))
        var error: Int32 = 0
        guard let stream = pulse.pa_simple_new(nil, "Pinhole", PA_STREAM_RECORD, microphone, "Recording", &spec, nil, &attributes, &error) else {
            throw PulseErrno.error(error, microphone: microphone)
        }
        self.stream = stream
    }

    deinit { pulse.pa_simple_free(stream) }

    /// Fills `frames` frames at `destination`, waiting until they have been recorded.
    func read(into destination: UnsafeMutablePointer<Int16>, frames: Int) throws(CaptureError) {
        var error: Int32 = 0
        guard pulse.pa_simple_read(stream, destination, frames * bytesPerFrame, &error) >= 0 else {
            throw PulseErrno.error(error, microphone: microphone)
        }
    }

    /// How long ago (nanoseconds) the next unread frame was recorded: the source's latency plus
    /// what waits in the stream. Nil when the server has not said yet.
    func latency() -> Int64? {
        var error: Int32 = 0
        let microseconds = pulse.pa_simple_get_latency(stream, &error)
        guard microseconds != UInt64.max, microseconds < 10_000_000 else { return nil }
        return Int64(microseconds) * 1000
    }
}
