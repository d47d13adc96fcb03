import Dispatch

/// Work that waits on the disk (writes with fsync, opening an index, remuxing a movie), run on a
/// Dispatch worker thread for an async caller: neither the caller's thread (a UI's main thread)
/// nor Swift's small cooperative pool (two threads on a two-core machine) is held while it waits.
/// For the modules' async entry points (`CapturePhoto.write(to:)`, `PhotoLibrary.init`).
package enum BlockingWork {
    /// Runs `work` on a Dispatch worker and returns what it made (handed over whole, so it need
    /// not be `Sendable`: an SQLite handle opened there is used by the caller alone afterwards),
    /// or throws what it threw.
    package static func run<Value, Failure: Error>(_ work: @escaping @Sendable () throws(Failure) -> sending Value) async throws(Failure) -> sending Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(Failure) {
                    let value = try work()
                    continuation.resume(returning: .success(value))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
