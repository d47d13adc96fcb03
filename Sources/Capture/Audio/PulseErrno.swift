import CPulse

/// PulseAudio's error codes (`PA_ERR_*`, also what PipeWire's pulse service sends) as `CaptureError`s.
enum PulseErrno {
    /// The error for `code` from a connection attempt, or from a stream on `microphone` (nil while
    /// only talking to the server).
    static func error(_ code: Int32, microphone: String?) -> CaptureError {
        let name = microphone ?? "the sound server"
        switch pa_error_code_t(rawValue: UInt32(bitPattern: code)) {
        case PA_ERR_ACCESS, PA_ERR_AUTHKEY:
            return .microphoneAccessDenied(microphone: microphone ?? "its microphones")
        case PA_ERR_CONNECTIONREFUSED, PA_ERR_INVALIDSERVER, PA_ERR_VERSION:
            return .noSoundServer
        case PA_ERR_CONNECTIONTERMINATED, PA_ERR_KILLED:
            return microphone.map { .audioFailed(microphone: $0, reason: "the sound server closed the connection") } ?? .noSoundServer
        case PA_ERR_NOENTITY:
            return microphone.map { .microphoneNotFound(name: $0, available: []) } ?? .noMicrophone
        default:
            return .audioFailed(microphone: name, reason: message(code))
        }
    }

    /// PulseAudio's text for `code` ("Connection refused").
    static func message(_ code: Int32) -> String {
        pulse.pa_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    }
}
