import Capture
import Glibc
import Media
import PinholeTestSupport

// The camera app stage's two measures of actions in a running app: the shutter press to the
// photo in the library (with the library's own shutter in process for reference), and the
// return from the gallery to the camera.
extension AppBenchmark {
    /// Shutter press (`gapplication action … take-photo` over the private bus) to the photo in
    /// the library (the app's `photo-saved` line), median of `presses`, one at a time; against the
    /// library's own shutter in this process (capturePhoto + fsynced write) on the same stream.
    func shutterRow(app: String, session: HeadlessSession) throws -> Row {
        bench.progress("camera app: \(presses) shutter presses")
        let photosBefore = AppBenchmark.photoFiles(in: session.library)
        let child = try ChildProcess([app], environment: session.environment, errorPath: session.folder + "/shutter-app.txt")
        guard child.waitForErrorLine(startingWith: AppBenchmark.report + "first-frame ", timeout: 30) != nil else {
            let exit = child.stop()
            throw CaptureBenchError(description: "the app drew no frame in 30 s (exit \(exit.status)): \(child.errors.trimmed.suffix(300))")
        }
        Sleep.seconds(1)
        var pressMs: [Double] = [], triggerMs: [Double] = []
        for press in 0..<presses {
            let trigger = try ChildProcess(["gapplication", "action", AppBenchmark.appID, "take-photo"], environment: session.environment,
                                           errorPath: session.folder + "/gapplication-\(press).txt")
            guard let done = trigger.wait(timeout: 20), done.status == 0 else {
                trigger.stop()
                child.stop()
                throw CaptureBenchError(description: "gapplication action take-photo failed: \(trigger.errors.trimmed.suffix(300))")
            }
            triggerMs.append(done.wallSeconds * 1000)
            guard let line = child.waitForErrorLine(startingWith: AppBenchmark.report + "photo-saved ", after: press, timeout: 20),
                  let saved = line.split(separator: " ").last.flatMap({ Int64($0) }) else {
                let exit = child.stop()
                throw CaptureBenchError(description: "photo \(press + 1) did not reach the library in 20 s (exit \(exit.status)): "
                                        + child.errors.trimmed.suffix(300))
            }
            pressMs.append(Double(saved - trigger.spawnedAt) / 1e6)
            Sleep.seconds(0.5)  // the thumbnail and the window's update after the save, before the next press
        }
        let exit = child.stop()
        let added = AppBenchmark.photoFiles(in: session.library) - photosBefore

        bench.progress("camera app: the library's own shutter, in process, for reference")
        let reference = try inProcessShutter()
        let ours = Sample.median(pressMs)
        return Row(stage: "app: shutter press → photo in the library", size: AppBenchmark.size.name, oursMs: ours, memcpyMs: nil,
                   peer: "Capture in process: capturePhoto (.balanced) + write(to:) fsynced (no app, no D-Bus)", peerMs: reference.median,
                   check: Check(text: "\(added)/\(presses) photos in the library; exit \(exit.status)", failed: added != presses),
                   note: "median of \(presses) presses, one at a time (\(pressMs.map { Format.ms($0) }.joined(separator: ", ")) ms, in order): from just before "
                    + "spawning `gapplication action \(AppBenchmark.appID) take-photo` (private session bus) to the app's `photo-saved` line "
                    + "(PhotoLibrary.addPhoto returned: JPEG written, fsynced, indexed); gapplication itself ran \(Format.ms(Sample.median(triggerMs))) ms "
                    + "(spawn to exit, median); photo size 1920×1080 from the YUYV 1080p30 stream, filter none, shutter sound on (no sound server: "
                    + "PULSE_SERVER points nowhere); reference: \(reference.description)")
    }

    /// Back to the camera page after the gallery let the camera go: from just before
    /// `gapplication action … show-camera` is spawned to the first camera frame drawn again
    /// (`preview-resumed`), median of `presses` returns, each after the camera was let go
    /// (`preview-cleared`, the session stopped).
    func returnRow(app: String, session: HeadlessSession) throws -> Row {
        bench.progress("camera app: \(presses) returns from the gallery to the camera")
        let child = try ChildProcess([app], environment: session.environment, errorPath: session.folder + "/return-app.txt")
        guard child.waitForErrorLine(startingWith: AppBenchmark.report + "first-frame ", timeout: 30) != nil else {
            let exit = child.stop()
            throw CaptureBenchError(description: "the app drew no frame in 30 s (exit \(exit.status)): \(child.errors.trimmed.suffix(300))")
        }
        Sleep.seconds(1)
        var returnMs: [Double] = []
        func action(_ name: String, _ round: Int) throws -> ChildProcess {
            let trigger = try ChildProcess(["gapplication", "action", AppBenchmark.appID, name], environment: session.environment,
                                           errorPath: session.folder + "/gapplication-\(name)-\(round).txt")
            guard let done = trigger.wait(timeout: 20), done.status == 0 else {
                trigger.stop()
                child.stop()
                throw CaptureBenchError(description: "gapplication action \(name) failed: \(trigger.errors.trimmed.suffix(300))")
            }
            return trigger
        }
        for round in 0..<presses {
            _ = try action("gallery", round)
            guard child.waitForErrorLine(startingWith: AppBenchmark.report + "preview-cleared ", after: round, timeout: 20) != nil else {
                let exit = child.stop()
                throw CaptureBenchError(description: "the camera was not let go behind the gallery in 20 s (exit \(exit.status))")
            }
            Sleep.seconds(0.5)
            let trigger = try action("show-camera", round)
            guard let line = child.waitForErrorLine(startingWith: AppBenchmark.report + "preview-resumed ", after: round, timeout: 20),
                  let drawn = line.split(separator: " ").last.flatMap({ Int64($0) }) else {
                let exit = child.stop()
                throw CaptureBenchError(description: "no camera frame within 20 s of returning (exit \(exit.status)): \(child.errors.trimmed.suffix(300))")
            }
            returnMs.append(Double(drawn - trigger.spawnedAt) / 1e6)
            Sleep.seconds(0.5)
        }
        let exit = child.stop()
        let ours = Sample.median(returnMs)
        return Row(stage: "app: back to the camera page → camera frame on screen", size: AppBenchmark.size.name, oursMs: ours, memcpyMs: nil,
                   peer: "none (the issue's aim: 500 ms)", peerMs: nil,
                   check: Check(text: "aim ≤ 500 ms: \(ours <= 500 ? "met" : "not met"); exit \(exit.status)", failed: false),
                   note: "median of \(presses) returns (\(returnMs.map { Format.ms($0) }.joined(separator: ", ")) ms, in order): each after "
                    + "`gapplication action \(AppBenchmark.appID) gallery` and the app's `preview-cleared` line (the camera let go: its session "
                    + "stopped), from just before spawning `gapplication action … show-camera` to the app's `preview-resumed` line (the frame clock's "
                    + "after-paint of the first camera frame painted in the visible preview again: the camera reopened and streaming); test camera, YUYV 1920×1080 at 30 fps")
    }

    /// The library's shutter without the app: the test camera streaming YUYV 1080p30 in this
    /// process, `capturePhoto` with the app's settings (1920×1080, `.balanced`) and the JPEG
    /// written and fsynced, median of `presses` after 2 untimed.
    func inProcessShutter() throws -> (median: Double, description: String) {
        let photos = PhotoOutput()
        let settings = PhotoSettings(maxPhotoDimensions: .init(width: AppBenchmark.size.width, height: AppBenchmark.size.height))
        let camera = try TestCameraRun(size: AppBenchmark.size, outputs: [photos])
        defer { camera.stop() }
        try camera.waitForFrames(3)
        var times: [Double] = []
        for round in 0..<(2 + presses) {
            let start = MonotonicClock.nanoseconds()
            let photo = try Blocking.run { try await photos.capturePhoto(with: settings) }
            let target = bench.scratch + "/app-reference-\(round).jpg"
            let path = try Blocking.run { try await photo.write(to: target) }
            let written = MonotonicClock.nanoseconds()
            unlink(path)
            if round >= 2 { times.append(Double(written - start) / 1e6) }
            Sleep.seconds(0.2)
        }
        let median = Sample.median(times)
        return (median, "median \(Format.ms(median)) ms of \(times.count) after 2 untimed (\(range(times)) ms), the shutter stage's `ours` with the app's settings")
    }
}
