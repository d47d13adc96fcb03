import Synchronization

#if PINHOLE_TSAN
/// ThreadSanitizer's annotation: what the thread does next happens after every release of
/// `address` (its runtime is linked in sanitizer builds only).
@_silgen_name("__tsan_acquire") @usableFromInline func tsanAcquire(_ address: UnsafeRawPointer)
/// ThreadSanitizer's annotation: what the thread did so far happens before the next acquire of `address`.
@_silgen_name("__tsan_release") @usableFromInline func tsanRelease(_ address: UnsafeRawPointer)
#endif

/// A value behind a lock: Synchronization's `Mutex`, which ThreadSanitizer also understands
/// when Pinhole is built for it (`scripts/sanitize thread` defines `PINHOLE_TSAN`).
///
/// `Mutex` takes an uncontended lock in code inlined into Pinhole, which ThreadSanitizer sees,
/// but a contended one in libswiftSynchronization, which is not instrumented: every time two
/// threads met at a lock, the ordering it gave was invisible, and the run reported races that
/// were none (four threads appending to an array under one `Mutex`: 6 reports; with the
/// annotations below: none). In sanitizer builds each lock therefore says it acquires and
/// releases a token of its own; in others it is `Mutex` itself, at no cost.
@frozen
public struct Lock<Value: ~Copyable>: ~Copyable {
    /// The lock and the value.
    @usableFromInline let mutex: Mutex<Value>
    #if PINHOLE_TSAN
    /// The address the annotations name (one byte of its own, so each lock has its own).
    @usableFromInline let token: UnsafeMutableRawPointer
    #endif

    /// A lock holding `value`.
    @inlinable
    public init(_ value: consuming sending Value) {
        mutex = Mutex(value)
        #if PINHOLE_TSAN
        token = .allocate(byteCount: 1, alignment: 1)
        #endif
    }

    #if PINHOLE_TSAN
    /// Frees the token.
    deinit { token.deallocate() }
    #endif

    /// Runs `body` with the value while holding the lock.
    @inlinable
    public borrowing func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        #if PINHOLE_TSAN
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            tsanAcquire(token)
            defer { tsanRelease(token) }
            return try body(&value)
        }
        #else
        try mutex.withLock(body)
        #endif
    }
}

extension Lock: @unchecked Sendable where Value: ~Copyable {}
