/// A microphone: a sound server's input (a PulseAudio source that is not the monitor of an
/// output), with AVFoundation's vocabulary for devices.
///
/// Microphones come from `Microphone.DiscoverySession` or `Microphone.default()`. They are
/// plain descriptions: recording opens the microphone by `uniqueID` (see `AudioDataOutput`).
public struct Microphone: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// The sound server's name for the source ("alsa_input.pci-0000_00_1f.3.analog-stereo"):
    /// stable while the hardware stays, and what `AudioDataOutput.Settings.microphoneID` takes.
    public let uniqueID: String
    /// The name for people ("Built-in Audio Analog Stereo").
    public let localizedName: String
    /// Whether the sound server records from this microphone when nobody chooses one.
    public let isDefault: Bool
    /// The rate the hardware runs at, in Hz (recordings are resampled to 48 kHz by the server).
    public let nativeSampleRate: Int
    /// The channels the hardware has (recordings are mixed to the channels asked for).
    public let nativeChannelCount: Int

    /// A microphone as described by the sound server.
    public init(uniqueID: String, localizedName: String, isDefault: Bool, nativeSampleRate: Int, nativeChannelCount: Int) {
        self.uniqueID = uniqueID
        self.localizedName = localizedName
        self.isDefault = isDefault
        self.nativeSampleRate = nativeSampleRate
        self.nativeChannelCount = nativeChannelCount
    }

    /// The identifier (`uniqueID`).
    public var id: String { uniqueID }

    /// "Built-in Audio Analog Stereo (alsa_input.pci-0000_00_1f.3.analog-stereo)".
    public var description: String { "\(localizedName) (\(uniqueID))" }
}
