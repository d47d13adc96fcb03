import Media

/// A bounded set of same-shaped `AudioBuffer`s, recycled as `PixelBufferPool` recycles frames:
/// a buffer is free again when the pool holds the only reference to it. When all are out it
/// returns nil, and the recorder drops that buffer (counted) instead of growing without bound.
final class AudioBufferPool: Sendable {
    /// Channels of every buffer.
    let channelCount: Int
    /// Rate of every buffer.
    let sampleRate: Int
    /// Frames every buffer holds.
    let capacity: Int
    /// The most buffers the pool will hold.
    let maximumCount: Int
    private let buffers: Lock<[AudioBuffer]>

    /// A pool of up to `maximumCount` buffers, `preallocate` of them made now.
    init(channelCount: Int, sampleRate: Int, capacity: Int, maximumCount: Int, preallocate: Int) {
        self.channelCount = channelCount
        self.sampleRate = sampleRate
        self.capacity = capacity
        self.maximumCount = max(1, maximumCount)
        var made: [AudioBuffer] = []
        made.reserveCapacity(self.maximumCount)
        for _ in 0..<min(max(preallocate, 1), self.maximumCount) {
            made.append(AudioBuffer(channelCount: channelCount, sampleRate: sampleRate, capacity: capacity))
        }
        buffers = Lock(made)
    }

    /// A buffer nobody else holds, or nil when all `maximumCount` are out.
    func makeBuffer() -> AudioBuffer? {
        buffers.withLock { buffers -> AudioBuffer? in
            for index in buffers.indices where isKnownUniquelyReferenced(&buffers[index]) {
                return buffers[index]
            }
            guard buffers.count < maximumCount else { return nil }
            let buffer = AudioBuffer(channelCount: channelCount, sampleRate: sampleRate, capacity: capacity)
            buffers.append(buffer)
            return buffer
        }
    }

    /// How many buffers the pool has made so far.
    var allocatedCount: Int { buffers.withLock { $0.count } }
}
