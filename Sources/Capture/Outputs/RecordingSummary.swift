import Media

/// Told when a `MovieFileOutput` recording starts and ends (on an internal thread: hop to your
/// own actor or queue).
public protocol MovieFileOutputRecordingDelegate: AnyObject, Sendable {
    /// The file is open and the first frame is on its way into it.
    func fileOutput(_ output: MovieFileOutput, didStartRecordingTo path: String)
    /// The recording ended and the file is finished. `error` is nil after `stopRecording()`;
    /// `.recordingLimitReached` when a limit ended it (the file is complete); another error when
    /// writing failed (the file then keeps everything up to its last complete fragment).
    func fileOutput(_ output: MovieFileOutput, didFinishRecordingTo path: String, summary: RecordingSummary, error: CaptureError?)
}

extension MovieFileOutputRecordingDelegate {
    /// Optional.
    public func fileOutput(_ output: MovieFileOutput, didStartRecordingTo path: String) {}
}

/// What a finished recording holds.
public struct RecordingSummary: Sendable, Equatable {
    /// The movie file.
    public let path: String
    /// Length in seconds: the file's, which lasts until the recording's end (its duration limit,
    /// or a frame interval past the camera's last frame in it), however few frames it kept.
    public let duration: Double
    /// Video frames in the file.
    public let frameCount: Int
    /// Frames the camera delivered within the recording that were not recorded because encoding
    /// could not keep up: left out evenly (see `keptFrameRate`), or, in a sudden stall, because
    /// every frame waiting for the encoder was taken. Never more than `cameraFrameCount` less
    /// `frameCount`.
    public let droppedFrameCount: Int
    /// Frames the camera itself skipped during the recording (gaps in the driver's sequence
    /// numbers, for example a driver that cannot keep its rate). With `frameCount` and
    /// `droppedFrameCount` they account for every frame time the recording spans.
    public let skippedFrameCount: Int
    /// File size in bytes.
    public let fileSize: Int64
    /// Whether the file has sound.
    public let hasAudio: Bool
    /// Why an MP4 was left fragmented instead of made regular (the remux needs room for a second
    /// copy), or nil. The file is complete and plays; `MovieRecovery` (and `PhotoLibrary`, when
    /// next opened) finishes it later.
    public var leftFragmented: MediaError? = nil
    /// Frames the camera delivered within the recording (from its first frame to its end,
    /// pauses excluded): each is in the file or counted in `droppedFrameCount`, so
    /// `frameCount + droppedFrameCount` never exceeds it.
    public var cameraFrameCount = 0
    /// The camera's frame rate (frames per second).
    public var cameraFrameRate = 0.0
    /// The movie's frames per second when frames were dropped because encoding could not keep
    /// up: they are left out evenly across the recording, so the movie keeps its length with
    /// fewer frames per second (this many, on average, against `cameraFrameRate`). Nil when no
    /// frame was dropped. Worth saying once to whoever recorded: a smaller size or a lower
    /// frame rate records every frame.
    public var keptFrameRate: Double? = nil
    /// The x264 preset the movie was encoded with: `MovieFileOutput.Options.preset`, or
    /// "ultrafast" when a measurement at the start found that one too slow for the camera.
    public var preset = ""
}
