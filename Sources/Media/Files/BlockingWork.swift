import Dispatch

/// Work that waits on the disk (writes with fsync, opening an index, remuxing a movie), run on a
/// Dispatch worker thread for an async caller: neither the caller's thread (a UI's main thread)
/// nor Swift's small cooperative pool (two threads on a two-core machine) is held while it waits.
/// For the modules' async entry points (`CapturePhoto.write(to:)`, `PhotoLibrary.init`).
package enum BlockingWork {
    /// Runs `work` on a Dispatch worker (or on `queue`, a serial queue of the caller's) and
    /// returns what it made (handed over whole, so it need not be `Sendable`: an SQLite handle
    /// opened there is used by the caller alone afterwards), or throws what it threw.
    ///
    /// The continuation's resume orders the worker's writes before the caller's reads, inside
    /// libswift_Concurrency, which ThreadSanitizer does not see: a photo's pixels, made on the
    /// photo queue and read by the awaiting task, were reported as a race. In sanitizer builds
    /// the hand-over is therefore also released before the resume and acquired after it.
    package static func run<Value, Failure: Error>(on queue: DispatchQueue = .global(qos: .userInitiated),
                                                   _ work: @escaping @Sendable () throws(Failure) -> sending Value) async throws(Failure) -> sending Value {
        #if PINHOLE_TSAN
        let token = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { token.deallocate() }
        let address = UInt(bitPattern: token)
        #endif
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            queue.async {
                let result: Result<Value, Failure>
                do throws(Failure) { result = .success(try work()) } catch { result = .failure(error) }
                #if PINHOLE_TSAN
                tsanRelease(UnsafeRawPointer(bitPattern: address)!)
                #endif
                continuation.resume(returning: result)
            }
        }
        #if PINHOLE_TSAN
        tsanAcquire(token)
        #endif
        return try result.get()
    }
}
