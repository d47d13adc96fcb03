import Media

/// How a photo is to be taken.
public struct PhotoSettings: Sendable, Equatable {
    /// The file format.
    public enum Format: String, Sendable, CaseIterable {
        /// JPEG (libjpeg-turbo), with EXIF.
        case jpeg
        /// PNG (lossless), with an eXIf chunk.
        case png
        /// HEIF/HEIC (x265), with EXIF; seconds per photo, so never on a frame path.
        case heif
    }

    /// Flash behaviour.
    public enum FlashMode: String, Sendable, CaseIterable {
        /// No flash.
        case off
        /// Always flash.
        case on
        /// Flash when the scene is dark.
        case auto
    }

    /// Trade between shutter latency and image quality.
    public enum QualityPrioritization: String, Sendable, CaseIterable {
        /// The streamed frame nearest the request (zero shutter lag); switch format only when the
        /// photo must be larger than the stream.
        case speed
        /// As `.speed`, but let exposure settle for a few frames after a format switch.
        case balanced
        /// Switch to the camera's largest size for the still, let exposure settle, restore the stream.
        case quality
    }

    /// File format (JPEG by default).
    public var format: Format = .jpeg
    /// Quality 1–100 for JPEG and HEIF.
    public var quality: Int = 92
    /// The largest photo size wanted (nil: the camera's largest).
    public var maxPhotoDimensions: CaptureDevice.Dimensions?
    /// Flash.
    public var flashMode: FlashMode = .off
    /// Latency against quality.
    public var photoQualityPrioritization: QualityPrioritization = .balanced
    /// Where the photo was taken, written as EXIF GPS (nil: no location).
    public var location: ExifLocation?

    /// Settings with defaults: JPEG at quality 92, the camera's largest size, no flash.
    public init(format: Format = .jpeg, quality: Int = 92, maxPhotoDimensions: CaptureDevice.Dimensions? = nil, flashMode: FlashMode = .off,
                photoQualityPrioritization: QualityPrioritization = .balanced, location: ExifLocation? = nil) {
        self.format = format
        self.quality = quality
        self.maxPhotoDimensions = maxPhotoDimensions
        self.flashMode = flashMode
        self.photoQualityPrioritization = photoQualityPrioritization
        self.location = location
    }
}

/// What was actually done for a photo.
public struct ResolvedPhotoSettings: Sendable, Equatable {
    /// The photo's stored size (before EXIF orientation).
    public let photoDimensions: CaptureDevice.Dimensions
    /// The file format.
    public let format: PhotoSettings.Format
    /// The camera's flash LED fired.
    public let flashFired: Bool
    /// Flash was wanted but the camera has no LED: the app was asked for a screen flash.
    public let screenFlashRequested: Bool
    /// The camera's own JPEG was kept (MJPEG at the photo size): no decode, no re-encode.
    public let usedCameraJPEG: Bool
    /// The stream was switched to a larger format for this photo.
    public let switchedFormat: Bool
    /// EXIF orientation written.
    public let orientation: ExifOrientation
}
