import CPulse

/// libpulse, opened the first time Capture talks to a sound server (a microphone list, a
/// recording with sound).
///
/// Linked at build time, libpulse and its dependency tree (20 shared objects: libsndfile
/// and its codecs, X11's client libraries, D-Bus, …) would be mapped and relocated by every
/// process before `main`, a photo or `--version` included. Instead `CPulse` opens it with dlopen
/// on first use and Capture calls it through `pulse`, a table of function pointers typed by
/// libpulse's own headers.
enum PulseLibrary {
    /// The table, or why libpulse could not be opened (tried once, on first use).
    static let loaded: Result<pinhole_pulse, CaptureError> = {
        var reason = [CChar](repeating: 0, count: 512)
        guard let table = pinhole_pulse_load(&reason, reason.count)?.pointee else {
            let text = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(.audioFailed(microphone: "the sound server", reason: "libpulse could not be loaded (\(text))"))
        }
        return .success(table)
    }()

    /// Opens libpulse if it is not open yet; throws when it cannot be. Every entry point of the
    /// sound code calls this before anything reads `pulse`.
    static func require() throws(CaptureError) {
        if case let .failure(error) = loaded { throw error }
    }
}

/// libpulse's functions, for code that runs after `PulseLibrary.require()` succeeded (reading it
/// earlier, when libpulse failed to load, is a programming error and stops the process).
let pulse: pinhole_pulse = {
    switch PulseLibrary.loaded {
    case let .success(table): return table
    case let .failure(error): fatalError("libpulse used without PulseLibrary.require(): \(error)")
    }
}()
