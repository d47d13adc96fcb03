/// Recorded sound: signed 16-bit samples, channels interleaved (left, right, left, …), with the
/// time of its first sample.
///
/// Buffers come from a pool and are handed on by reference, as `PixelBuffer`s are: holding one
/// keeps it out of the pool, so let go promptly (copy what you keep).
///
/// Concurrency: a buffer is `Sendable` because its shape is immutable. Its samples and times are
/// written only by the recording thread, while it is the buffer's only holder (the pool hands a
/// buffer out only when nobody else holds it); after delivery, readers on any thread may share it.
public final class AudioBuffer: @unchecked Sendable {
    /// Channels per frame (1 or 2).
    public let channelCount: Int
    /// Frames per second, in Hz.
    public let sampleRate: Int
    /// The most frames the buffer holds.
    public let capacity: Int
    /// Frames in the buffer: samples per channel (AVFoundation's "number of samples").
    public internal(set) var sampleCount: Int = 0
    /// The first frame's time on CLOCK_MONOTONIC (the clock of camera frames), in nanoseconds.
    /// Consecutive buffers are exactly `sampleCount / sampleRate` apart, except after a clock
    /// correction (`isDiscontinuity`).
    public internal(set) var presentationTimestampNanoseconds: Int64 = 0
    /// Frames recorded before this buffer since recording started (dropped buffers included).
    public internal(set) var samplePosition: Int64 = 0
    /// Whether this buffer does not follow the previous one seamlessly: the clock was re-anchored
    /// here, or the buffers right before it found no free pooled buffer and were dropped. (A
    /// gap in `samplePosition` shows every drop, including a slow async reader's.)
    public internal(set) var isDiscontinuity = false
    /// The first sample.
    public let data: UnsafeMutablePointer<Int16>

    /// An empty buffer for up to `capacity` frames of `channelCount` channels at `sampleRate`.
    public init(channelCount: Int, sampleRate: Int, capacity: Int) {
        precondition(channelCount > 0 && sampleRate > 0 && capacity > 0, "an audio buffer needs channels, a rate and room")
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.capacity = capacity
        data = .allocate(capacity: capacity * channelCount)
        data.initialize(repeating: 0, count: capacity * channelCount)
    }

    deinit { data.deallocate() }

    /// The first frame's time on CLOCK_MONOTONIC, in seconds.
    public var presentationTimestamp: Double { Double(presentationTimestampNanoseconds) / 1e9 }

    /// How long the buffer plays, in seconds.
    public var duration: Double { Double(sampleCount) / Double(sampleRate) }

    /// The samples, interleaved: `sampleCount × channelCount` of them.
    public var samples: UnsafeBufferPointer<Int16> { UnsafeBufferPointer(start: data, count: sampleCount * channelCount) }

    /// Bytes of samples (`sampleCount × channelCount × 2`).
    public var byteCount: Int { sampleCount * channelCount * MemoryLayout<Int16>.size }
}
