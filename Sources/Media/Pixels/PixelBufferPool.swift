
/// A fixed set of same-shaped buffers, recycled so steady-state frame paths allocate nothing.
///
/// The pool keeps a reference to every buffer it made; a buffer is free again as soon as every
/// other holder has let go of it (the pool's reference is then the only one). `makeBuffer()`
/// never blocks: when all buffers are in use it grows up to `maximumCount` and then returns
/// `nil` (`poolExhausted` from the throwing form), so a slow consumer costs dropped frames,
/// not memory or a stalled camera.
public final class PixelBufferPool: Sendable {
    /// The pixel layout of every buffer.
    public let format: PixelFormat
    /// Width of every buffer.
    public let width: Int
    /// Height of every buffer.
    public let height: Int
    /// Row alignment of every buffer.
    public let rowAlignment: Int
    /// Payload room of compressed buffers.
    public let compressedCapacity: Int?
    /// The most buffers the pool will ever hold.
    public let maximumCount: Int
    private let buffers: Lock<[PixelBuffer]>

    /// Makes a pool; `preallocate` buffers are made now so the first frames allocate nothing either.
    /// With `resident`, each of those is written once (zeroed), so its memory is the process's
    /// from now on rather than from its first use: a pool whose footprint must not grow later
    /// (a recording's, which uses more of its buffers only when the encoder falls behind).
    public init(format: PixelFormat, width: Int, height: Int, rowAlignment: Int = 1, compressedCapacity: Int? = nil,
                maximumCount: Int = 8, preallocate: Int = 0, resident: Bool = false) throws(MediaError) {
        guard maximumCount > 0 else { throw .invalidDimensions(width: width, height: height, reason: "a pool needs room for at least one buffer") }
        self.format = format
        self.width = width
        self.height = height
        self.rowAlignment = rowAlignment
        self.compressedCapacity = compressedCapacity
        self.maximumCount = maximumCount
        var made: [PixelBuffer] = []
        made.reserveCapacity(maximumCount)
        // Validates the geometry even when nothing is preallocated.
        let first = try PixelBuffer(format: format, width: width, height: height, rowAlignment: rowAlignment, compressedCapacity: compressedCapacity)
        made.append(first)
        for _ in 1..<max(1, min(preallocate, maximumCount)) {
            made.append(try PixelBuffer(format: format, width: width, height: height, rowAlignment: rowAlignment, compressedCapacity: compressedCapacity))
        }
        if resident {
            for buffer in made { buffer.baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: buffer.capacity) }
        }
        buffers = Lock(made)
    }

    /// A buffer nobody else holds, or `nil` when all `maximumCount` are in use.
    public func makeBuffer() -> PixelBuffer? {
        buffers.withLock { buffers -> PixelBuffer? in
            for index in buffers.indices where isKnownUniquelyReferenced(&buffers[index]) {
                if buffers[index].format.isCompressed { buffers[index].payloadSize = 0 }
                return buffers[index]
            }
            guard buffers.count < maximumCount,
                  let buffer = try? PixelBuffer(format: format, width: width, height: height, rowAlignment: rowAlignment, compressedCapacity: compressedCapacity)
            else { return nil }
            buffers.append(buffer)
            return buffer
        }
    }

    /// A free buffer, or `MediaError.poolExhausted`.
    public func dequeueBuffer() throws(MediaError) -> PixelBuffer {
        guard let buffer = makeBuffer() else { throw .poolExhausted(capacity: maximumCount) }
        return buffer
    }

    /// How many buffers the pool has made so far.
    public var allocatedCount: Int { buffers.withLock { $0.count } }

    /// How many buffers are held outside the pool right now.
    public var inUseCount: Int {
        buffers.withLock { buffers in
            var count = 0
            for index in buffers.indices where !isKnownUniquelyReferenced(&buffers[index]) { count += 1 }
            return count
        }
    }
}
