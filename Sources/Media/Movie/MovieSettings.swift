/// How a movie is encoded: container, codecs, quality, and the fragment cadence that makes a
/// recording survive a crash.
public struct MovieSettings: Sendable, Equatable {
    /// The container and its codecs.
    public enum Format: String, Sendable, CaseIterable {
        /// H.264 (libx264) and AAC in MP4: plays everywhere.
        case mp4
        /// VP9 (libvpx) and Opus in WebM: open codecs.
        case webm
        /// VP8 (libvpx) and Opus in WebM: lighter to encode than VP9.
        case webmVP8 = "webm-vp8"

        /// The file extension.
        public var fileExtension: String { self == .mp4 ? "mp4" : "webm" }
    }

    /// How much data the encoder may spend.
    public enum Quality: Sendable, Hashable {
        /// A constant-rate factor: constant perceived quality, the size follows the picture
        /// (x264: 0–51, 23 by default; VP8/VP9: 4–63).
        case constantRateFactor(Int)
        /// A target bit rate in bits per second.
        case bitRate(Int)
    }

    /// Container and codecs.
    public var format: Format
    /// Stored width in pixels (even).
    public var width: Int
    /// Stored height in pixels (even).
    public var height: Int
    /// The camera's nominal frame rate (timestamps come from the frames; this guides the encoder).
    public var frameRate: Int
    /// Quality or bit rate.
    public var quality: Quality
    /// x264's speed preset ("ultrafast" … "veryslow"); VP8/VP9 use realtime speed 8.
    public var preset: String
    /// Sound: sample rate and channel count, or nil for a silent movie.
    public var audio: (sampleRate: Int, channels: Int)?
    /// Seconds between fragments (MP4) or clusters (WebM): the most a crash can lose. A key
    /// frame starts each.
    public var fragmentInterval: Double
    /// Clockwise turn players apply when showing the movie (written as the display matrix).
    public var rotation: Rotation

    /// Settings for `width`×`height` at `frameRate` (H.264 + AAC in MP4, CRF 23, veryfast, stereo
    /// 48 kHz sound, one-second fragments).
    public init(format: Format = .mp4, width: Int, height: Int, frameRate: Int = 30, quality: Quality = .constantRateFactor(23),
                preset: String = "veryfast", audio: (sampleRate: Int, channels: Int)? = (48_000, 2), fragmentInterval: Double = 1,
                rotation: Rotation = .none) {
        self.format = format
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.quality = quality
        self.preset = preset
        self.audio = audio
        self.fragmentInterval = fragmentInterval
        self.rotation = rotation
    }

    /// Equal when every setting is.
    public static func == (a: MovieSettings, b: MovieSettings) -> Bool {
        a.format == b.format && a.width == b.width && a.height == b.height && a.frameRate == b.frameRate && a.quality == b.quality
            && a.preset == b.preset && a.audio?.sampleRate == b.audio?.sampleRate && a.audio?.channels == b.audio?.channels
            && a.fragmentInterval == b.fragmentInterval && a.rotation == b.rotation
    }
}
