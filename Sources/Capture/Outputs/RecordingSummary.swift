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
    /// Length in seconds.
    public let duration: Double
    /// Video frames in the file.
    public let frameCount: Int
    /// Frames the camera delivered that were not recorded because encoding fell behind.
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
}
