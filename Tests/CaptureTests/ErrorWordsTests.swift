import Capture
import Media
import Testing

@Suite("Capture errors describe what happened, without command-line advice")
struct CaptureErrorWordsTests {
    @Test("every CaptureError case, every recording failure and file failure: one line, no `pinhole …`, no flags")
    func noCommandLineAdvice() {
        let files: [FileFailure] = [.diskFull, .quotaExceeded, .permissionDenied, .readOnly, .notFound, .notAFolder, .exists, .system(errno: 5)]
        var causes: [RecordingFailure] = [.encoding(.encoderFailed(format: "movie", reason: "no libx264")), .alreadyRecording,
                                          .noFrame(seconds: 10), .noFrame(seconds: nil), .endedBeforeStart, .encoderStalled(seconds: 70)]
        for failure in files { causes += [.file(failure, kept: true), .file(failure, kept: false)] }
        var errors: [CaptureError] = [
            .noCamera, .deviceNotFound("no-such-camera"), .accessDenied(device: "/dev/video0", group: "video"),
            .accessDenied(device: "/dev/video0", group: "root"), .accessDenied(device: "/dev/video0", group: nil),
            .restricted(device: "/dev/video0", reason: "the sandbox has no camera portal"), .portalAccessDenied, .deviceBusy(device: "Webcam"), .deviceDisconnected(device: "Webcam"),
            .unsupported("123×45"), .notLockedForConfiguration(device: "Webcam"), .invalidConfiguration("no input"), .notRunning,
            .streamFailed(device: "Webcam", reason: "VIDIOC_DQBUF: input/output error"), .timeout(device: "Webcam", seconds: 10),
            .system(operation: "inotify_init1", code: 24, message: "Too many open files"), .media(.io(path: "/tmp/x.jpg", failure: .diskFull)),
            .recordingLimitReached(path: "/tmp/x.mp4", limit: "maximum duration of 2 s"), .noSoundServer, .soundServerNotResponding(seconds: 2),
            .noMicrophone, .microphoneNotFound(name: "x", available: []), .microphoneNotFound(name: "x", available: ["sine"]),
            .microphoneAccessDenied(microphone: "Sine"), .audioFailed(microphone: "Sine", reason: "the server went away"),
        ]
        errors += causes.map { .recordingFailed(path: "/tmp/x.mp4", cause: $0) }
        for error in errors {
            let text = error.description
            #expect(!text.isEmpty && !text.contains("\n"), "\(text)")
            #expect(!text.contains("pinhole ") && !text.contains("--") && !text.contains("`") && !text.contains("sudo"),
                    "a command-line hint in a library's message: \(text)")
        }
        // Only a file that was made is said to be kept.
        #expect(CaptureError.recordingFailed(path: "/tmp/x.mp4", cause: .file(.diskFull, kept: true)).description.contains("kept"))
        #expect(!CaptureError.recordingFailed(path: "/tmp/x.mp4", cause: .file(.notAFolder, kept: false)).description.contains("kept"))
    }
}
