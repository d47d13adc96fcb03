import Media

/// A photo: the encoded file with its EXIF, and what it was made from.
public struct CapturePhoto: Sendable {
    /// The settings asked for.
    public let settings: PhotoSettings
    /// What was done.
    public let resolvedSettings: ResolvedPhotoSettings
    /// The EXIF written into the file.
    public let metadata: ExifMetadata
    /// Capture time of the frame on CLOCK_MONOTONIC, in nanoseconds.
    public let timestampNanoseconds: Int64
    /// The photo's pixels in a buffer of its own (not the camera's pool), stored orientation:
    /// I420 for JPEG and HEIF, RGB24 for PNG, and the camera's own JPEG for MJPEG passthrough.
    public let pixelBuffer: PixelBuffer
    private let data: [UInt8]

    init(settings: PhotoSettings, resolvedSettings: ResolvedPhotoSettings, metadata: ExifMetadata, timestampNanoseconds: Int64,
         pixelBuffer: PixelBuffer, data: [UInt8]) {
        self.settings = settings
        self.resolvedSettings = resolvedSettings
        self.metadata = metadata
        self.timestampNanoseconds = timestampNanoseconds
        self.pixelBuffer = pixelBuffer
        self.data = data
    }

    /// The file's bytes (JPEG, PNG or HEIF, with EXIF).
    public func fileDataRepresentation() -> [UInt8] { data }

    /// The usual file name extension for the format.
    public var fileExtension: String {
        switch resolvedSettings.format {
        case .jpeg: "jpg"
        case .png: "png"
        case .heif: "heic"
        }
    }

    /// The pixels decoded to BGRA (stored orientation).
    public func decodedPixels() throws(MediaError) -> PixelBuffer {
        if pixelBuffer.format == .mjpeg { return try JPEGDecoder().decode(pixelBuffer.payload, to: .bgra) }
        return try pixelBuffer.converted(to: .bgra)
    }

    /// Writes the file durably to `path` (never overwriting: a suffix is added) and returns the
    /// path used. The write and its fsyncs run on a worker thread, never the caller's.
    @discardableResult
    public func write(to path: String) async throws(MediaError) -> String {
        let data = self.data
        return try await BlockingWork.run { () throws(MediaError) -> String in try AtomicFile.write(data, to: path) }
    }
}
