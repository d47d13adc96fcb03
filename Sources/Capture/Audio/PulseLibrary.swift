import CPulse
import Media

/// libpulse, opened the first time Capture talks to a sound server (a microphone list, a
/// recording with sound): mapped at start, it and its dependency tree (20 shared objects:
/// libsndfile and its codecs, X11's client libraries, D-Bus, …) would be relocated by every
/// process, a photo or `--version` included.
enum PulseLibrary {
    /// The table, or why libpulse could not be opened (tried once, on first use).
    static let library = LoadedLibrary<pinhole_pulse, CaptureError>("libpulse", load: pinhole_pulse_load) {
        .audioFailed(microphone: "the sound server", reason: "libpulse could not be loaded (\($0))")
    }

    /// Opens libpulse if it is not open yet; throws when it cannot be. Every entry point of the
    /// sound code calls this before anything reads `pulse`.
    static func require() throws(CaptureError) { try library.require() }
}

/// libpulse's functions, for code that runs after `PulseLibrary.require()` succeeded.
let pulse = PulseLibrary.library.table
