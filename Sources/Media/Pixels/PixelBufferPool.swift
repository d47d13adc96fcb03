
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
    public init(format: PixelFormat, width: Int, height: Int, rowAlignment: Int = 1, compressedCapacity: Int? = nil,
                maximumCount: Int = 8, preallocate: Int = 0) throws(MediaError) {
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
        buffers = Lock(made)
    }

    /// Makes all `maximumCount` buffers and writes each once (zeroes it), so the pool's memory is
    /// the process's from now on rather than from each buffer's first use: for a pool whose
    /// footprint must not grow later (a recording's, which uses more buffers only when its encoder
    /// falls behind). Call it off the thread that fills the buffers: the writing takes a moment
    /// (24 MiB for eight 1080p I420 frames). A buffer in use is skipped (its user writes it
    /// anyway); a free one is held while it is written, so it is not handed out meanwhile.
    public func makeResident() {
        for index in 0..<maximumCount {
            let free = buffers.withLock { buffers -> PixelBuffer? in
                if index == buffers.count {
                    guard let made = try? PixelBuffer(format: format, width: width, height: height, rowAlignment: rowAlignment,
                                                      compressedCapacity: compressedCapacity) else { return nil }
                    buffers.append(made)
                }
                guard index < buffers.count, isKnownUniquelyReferenced(&buffers[index]) else { return nil }
                return buffers[index]
            }
            guard let free else { continue }
            withExtendedLifetime(free) {
                free.baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: free.capacity)
                // Taken once more before letting go: whoever gets this buffer next takes the lock
                // after this, which orders the writing before theirs (ThreadSanitizer sees it).
                buffers.withLock { _ in }
            }
        }
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
