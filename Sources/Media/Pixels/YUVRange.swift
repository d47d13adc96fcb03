/// The level range of 8-bit Y'CbCr samples (BT.601 matrix in both cases).
public enum YUVRange: Sendable, Equatable {
    /// "Video" or limited range: Y 16–235, Cb/Cr 16–240. Cameras' raw YUV and video codecs use it.
    case video
    /// Full range: 0–255 for all three, as JPEG (JFIF) stores them.
    case full
}
