extension Microphone {
    /// Finds the microphones the sound server (PulseAudio, or PipeWire through pipewire-pulse)
    /// offers, as AVFoundation's discovery session finds devices.
    ///
    /// Asking is bounded by `timeout`, so a hung server never blocks for long. When no server
    /// answers, `devices` is empty and `unavailableReason` says why (`.noSoundServer`,
    /// `.soundServerNotResponding`, `.microphoneAccessDenied`): the app then records without sound.
    public struct DiscoverySession: Sendable {
        /// The microphones found, in the server's order.
        public let devices: [Microphone]
        /// Why no microphone could be listed (nil when the server answered, even with none).
        public let unavailableReason: CaptureError?

        /// Asks the sound server now, waiting at most `timeout`.
        public init(timeout: Duration = .seconds(2)) {
            do {
                devices = try Microphone.list(timeout: timeout)
                unavailableReason = nil
            } catch {
                devices = []
                unavailableReason = error
            }
        }

        /// The microphone the server records from by default, else the first one.
        public var defaultDevice: Microphone? { devices.first(where: \.isDefault) ?? devices.first }
    }

    /// The microphone to record from when nobody chooses: the server's default source when it is a
    /// microphone, else the first microphone; nil when there is none or no server answers.
    public static func `default`(timeout: Duration = .seconds(2)) -> Microphone? {
        DiscoverySession(timeout: timeout).defaultDevice
    }

    /// The microphone called `id` (nil: the default one). Throws why there is none: no server,
    /// a server that does not answer, no microphone, or no microphone of that name.
    public static func microphone(withID id: String?, timeout: Duration = .seconds(2)) throws(CaptureError) -> Microphone {
        let all = try list(timeout: timeout)
        guard let id else {
            guard let chosen = all.first(where: \.isDefault) ?? all.first else { throw .noMicrophone }
            return chosen
        }
        guard let match = all.first(where: { $0.uniqueID == id }) else {
            throw .microphoneNotFound(name: id, available: all.map(\.uniqueID))
        }
        return match
    }

    /// Every source of the server that is not a monitor, the default one marked.
    static func list(timeout: Duration) throws(CaptureError) -> [Microphone] {
        let snapshot = try PulseIntrospection.snapshot(timeout: timeout)
        return snapshot.sources.filter { !$0.isMonitor }.map { source in
            Microphone(uniqueID: source.name, localizedName: source.description.isEmpty ? source.name : source.description,
                       isDefault: source.name == snapshot.defaultSourceName, nativeSampleRate: source.sampleRate,
                       nativeChannelCount: source.channelCount)
        }
    }
}
