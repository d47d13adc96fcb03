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

extension RecordingSummary {
    /// Two frame rates as said to a person — the rate a movie kept against the camera's — with
    /// whole numbers bare and tenths otherwise ("30", "12.5", "9.6"), and as many more decimals
    /// (up to three, rounded down) as it takes for a kept rate below the camera's not to read as
    /// the same number: 3 frames left out of an hour at 30 fps read "29.99", not "30 instead of 30".
    public static func frameRateWords(kept: Double, camera: Double) -> (kept: String, camera: String) {
        let cameraWords = words(camera, decimals: 1, roundingDown: false)
        var keptWords = words(kept, decimals: 1, roundingDown: false)
        var decimals = 1
        while kept < camera, keptWords == cameraWords, decimals < 3 {
            decimals += 1
            keptWords = words(kept, decimals: decimals, roundingDown: true)
        }
        return (keptWords, cameraWords)
    }

    /// `value` with at most `decimals` decimals, trailing zeros and a bare point left out.
    private static func words(_ value: Double, decimals: Int, roundingDown: Bool) -> String {
        let scale = [1, 10, 100, 1000][decimals]
        let scaled = Int((value * Double(scale)).rounded(roundingDown ? .down : .toNearestOrAwayFromZero))
        var text = String(scaled / scale)
        var fraction = String(scaled % scale)
        fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        if !fraction.isEmpty { text += "." + fraction }
        return text
    }
}
