@_spi(Testing) import Capture
import Foundation
import Media
import Testing
import TestSupport

/// A running session on a virtual camera with both outputs.
func photoSession(_ device: CaptureDevice, preset: CaptureSession.Preset = .vga640x480) async throws -> (CaptureSession, PhotoOutput, VideoDataOutput) {
    let session = CaptureSession()
    session.sessionPreset = preset
    session.addInput(try CaptureDeviceInput(device: device))
    let photo = PhotoOutput()
    let video = VideoDataOutput()
    session.addOutput(photo)
    session.addOutput(video)
    try await session.start()
    return (session, photo, video)
}

/// Waits until the photo output has seen a few frames: the video output, added after it, has
/// shown them (both get each frame in turn on the camera's thread).
func warmUp(_ video: VideoDataOutput) async {
    let taken = await frames(from: video, count: 3)
    #expect(taken.infos.count == 3, "no frames from the camera")
}

/// CLOCK_MONOTONIC now, in nanoseconds (the clock of frame timestamps).
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

extension VirtualCameraSuites {
    @Suite("Photos from the virtual test camera")
    struct PhotoOutputTests {
        let back = try! CaptureDevice.device(withID: "test-back")
        let front = try! CaptureDevice.device(withID: "test-front")

        init() {
            VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
            VirtualCamera.setFaults(.init(), for: VirtualCamera.frontID)
        }

        @Test("a .speed photo at the stream size is the frame already captured, with EXIF exiftool reads back")
        func zeroShutterLag() async throws {
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            defer { VirtualCamera.setFaults(.init(), for: VirtualCamera.backID) }
            // After the preview has shown a frame, the camera delivers nothing more (every frame
            // damaged): only a frame already captured can make the photo, and it is the newest.
            // Had the test itself run so late that the kept frame is stale (over 0.2 s), the
            // output rightly waits for a new frame, in vain here: then the test tries again.
            var taken: (photo: CapturePhoto, newest: Int64, requested: Int64)?
            for _ in 0..<5 where taken == nil {
                VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
                let seen = await frames(from: video, count: 2)
                let newest = try #require(seen.infos.last).timestamp
                VirtualCamera.setFaults(.init(corruptEvery: 1), for: VirtualCamera.backID)
                let requested = monotonicNanoseconds()
                if let photo = try? await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), photoQualityPrioritization: .speed)) {
                    taken = (photo, newest, requested)
                }
            }
            VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
            let (photo, newest, requested) = try #require(taken)
            #expect(photo.timestampNanoseconds >= newest && photo.timestampNanoseconds <= requested,
                    "frame at \(photo.timestampNanoseconds), preview's newest \(newest), requested at \(requested)")
            #expect(photo.resolvedSettings.photoDimensions == .init(width: 640, height: 480))
            #expect(!photo.resolvedSettings.switchedFormat)

            let folder = try TemporaryDirectory()
            let path = try await photo.write(to: folder.path("Photo.jpg"))
            let tags = try ExifTool.locate().tags(URL(fileURLWithPath: path))
            #expect(jsonText(tags["EXIF:Make"]) == "Pinhole")
            #expect(jsonText(tags["EXIF:Model"]) == "Pinhole Test Camera (back)")
            #expect(jsonText(tags["EXIF:Software"])?.hasPrefix("Pinhole ") == true)
            #expect(jsonNumber(tags["EXIF:Orientation"]) == 1)
            #expect(jsonNumber(tags["EXIF:ExifImageWidth"]) == 640)
            #expect(jsonNumber(tags["File:ImageWidth"]) == 640 && jsonNumber(tags["File:ImageHeight"]) == 480)
            #expect(jsonText(tags["EXIF:SubSecTimeOriginal"])?.count == 3)
            #expect(jsonText(tags["EXIF:OffsetTimeOriginal"]) != nil)
            // The pixels are the test pattern's bars.
            let pixels = try JPEGDecoder().decode(try folder.read(URL(fileURLWithPath: path)))
            let white = pixels.bgraPixel(x: 40, y: 200), red = pixels.bgraPixel(x: 5 * 80 + 40, y: 200)
            #expect(white.r > 175 && white.g > 175 && white.b > 175, "\(white)")
            #expect(red.r > 175 && red.g < 25 && red.b < 25, "\(red)")
        }

        @Test("the default photo is the camera's largest size: the stream switches for the still and comes back")
        func largestSize() async throws {
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            await warmUp(video)
            let photo = try await photoOutput.capturePhoto()
            #expect(photo.resolvedSettings.photoDimensions == .init(width: 3840, height: 2160))
            #expect(photo.resolvedSettings.switchedFormat)
            let info = try JPEGDecoder().info(photo.fileDataRepresentation())
            #expect(info.width == 3840 && info.height == 2160)
            #expect(session.activeStream?.width == 640)
        }

        @Test("an MJPEG stream at the photo size keeps the camera's JPEG: no decode, no re-encode")
        func mjpegPassthrough() async throws {
            try back.lockForConfiguration()
            let mjpeg = try #require(back.formats.first { $0.pixelFormat == .mjpeg && $0.dimensions.width == 1280 })
            try back.setActiveFormat(mjpeg)
            back.unlockForConfiguration()
            let (session, photoOutput, video) = try await photoSession(back, preset: .inputPriority)
            defer { session.stopRunning() }
            #expect(session.activeStream?.pixelFormat == .mjpeg)
            await warmUp(video)
            let photo = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 1280, height: 720)))
            #expect(photo.resolvedSettings.usedCameraJPEG)
            let data = photo.fileDataRepresentation()
            let camera = Array(photo.pixelBuffer.payload.bindMemory(to: UInt8.self))
            // The camera's entropy-coded data is in the file byte for byte.
            #expect(data.count > camera.count && Array(data.suffix(camera.count / 2)) == Array(camera.suffix(camera.count / 2)))
            #expect(try JPEGExif.metadata(in: data)?.model == "Pinhole Test Camera (back)")
        }

        @Test("PNG and HEIF photos carry the orientation; a 90° connection writes 'Rotate 90 CW' and leaves pixels alone")
        func formatsAndOrientation() async throws {
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            photoOutput.connection.videoRotationAngle = 90
            await warmUp(video)
            let folder = try TemporaryDirectory()
            for format in [PhotoSettings.Format.jpeg, .png, .heif] {
                let photo = try await photoOutput.capturePhoto(with: PhotoSettings(format: format, maxPhotoDimensions: .init(width: 640, height: 480)))
                let path = try await photo.write(to: folder.path("photo.\(photo.fileExtension)"))
                let tags = try ExifTool.locate().tags(URL(fileURLWithPath: path), options: ["-G"])
                let orientation = tags.first { $0.key.hasSuffix(":Orientation") }?.value
                #expect(jsonText(orientation) == "Rotate 90 CW", "\(format): \(tags.keys.sorted())")
                #expect(photo.resolvedSettings.photoDimensions == .init(width: 640, height: 480))
            }
            let check = try runTool("pngcheck", [folder.path("photo.png")])
            #expect(check.status == 0, "\(check.stdout)")
            let heif = try runTool("heif-info", [folder.path("photo.heic")])
            #expect(heif.status == 0 && heif.stdout.contains("640x480"))
        }

        @Test("front camera: the preview is mirrored, the saved photo is not")
        func frontCameraMirroring() async throws {
            let (session, photoOutput, video) = try await photoSession(front)
            defer { session.stopRunning() }
            let preview = await frames(from: video, count: 2)
            let left = try #require(preview.last).imageBuffer.bgraPixel(x: 20, y: 200)
            #expect(left.r < 40 && left.g < 40 && left.b < 40, "preview mirrored: black bar first")
            let photo = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480)))
            let pixels = try JPEGDecoder().decode(photo.fileDataRepresentation())
            let first = pixels.bgraPixel(x: 20, y: 200)
            #expect(first.r > 175 && first.g > 175 && first.b > 175, "photo not mirrored: white bar first, \(first)")
            #expect(photo.resolvedSettings.orientation == .up)
        }

        @Test("flash on a camera without an LED asks the app for a screen flash; auto judges the scene")
        func screenFlash() async throws {
            let (session, photoOutput, video) = try await photoSession(front)
            defer { session.stopRunning() }
            await warmUp(video)
            let calls = Lock<[Bool]>([])
            photoOutput.screenFlash.withLock { $0 = { on in calls.withLock { $0.append(on) } } }
            let flashed = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), flashMode: .on))
            #expect(flashed.resolvedSettings.screenFlashRequested && !flashed.resolvedSettings.flashFired)
            #expect(calls.withLock { $0 } == [true, false])
            // The test pattern is bright (mean luma well above the threshold): auto does not flash.
            let brightness = try #require(photoOutput.sceneBrightness)
            #expect(brightness > PhotoOutput.autoFlashThreshold)
            let auto = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), flashMode: .auto))
            #expect(!auto.resolvedSettings.screenFlashRequested)
            #expect(!front.hasFlash && !front.hasTorch)
        }

        @Test("flash on a camera with an LED fires it for the photo and turns it off after")
        func ledFlash() async throws {
            #expect(back.hasFlash && back.hasTorch)
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            await warmUp(video)
            let calls = Lock<[Bool]>([])
            photoOutput.screenFlash.withLock { $0 = { on in calls.withLock { $0.append(on) } } }
            let photo = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), flashMode: .on))
            #expect(photo.resolvedSettings.flashFired && !photo.resolvedSettings.screenFlashRequested)
            #expect(calls.withLock { $0 }.isEmpty)
            #expect(!back.isTorchActive)
        }

        @Test("capturing without a session, after it stopped, and with a bad quality, is refused with what happened")
        func refusals() async throws {
            let photoOutput = PhotoOutput()
            await #expect(throws: CaptureError.notRunning) { try await photoOutput.capturePhoto() }
            let (session, running, _) = try await photoSession(back)
            await #expect(throws: CaptureError.self) { try await running.capturePhoto(with: PhotoSettings(quality: 0)) }
            session.stopRunning()
            await #expect(throws: CaptureError.notRunning) { try await running.capturePhoto() }
        }

        @Test("photos a program keeps do not starve zero shutter lag: later photos are still the newest frame")
        func keptPhotos() async throws {
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            await warmUp(video)
            var kept: [CapturePhoto] = []
            for _ in 0..<5 {
                // New frames come (the preview shows them); the next photo is at least as new as
                // the newest of them, and newer than the photo before (a starved output would
                // keep offering its last frame, or none).
                let seen = await frames(from: video, count: 2)
                let newest = try #require(seen.infos.last).timestamp
                let photo = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), photoQualityPrioritization: .speed))
                #expect(photo.timestampNanoseconds >= newest, "photo \(kept.count) is older than a frame the preview showed before it was asked for")
                #expect(photo.timestampNanoseconds > (kept.last?.timestampNanoseconds ?? .min), "photo \(kept.count) is the frame of the photo before")
                kept.append(photo)
            }
            #expect(kept.allSatisfy { $0.pixelBuffer.format == .i420 })
        }

        @Test("photos asked for at once are each of a frame of their own, also while the camera is slow: a frame never makes two photos (two presses on a busy machine made the same photo twice, which the library refused as a duplicate)")
        func oneFramePerPhoto() async throws {
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            defer { VirtualCamera.setFaults(.init(), for: VirtualCamera.backID) }
            await warmUp(video)
            // The camera goes quiet: the first photo may take the frame already captured, the
            // others wait for frames to come, which they do once it sends again.
            VirtualCamera.setFaults(.init(silent: true), for: VirtualCamera.backID)
            let settings = PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480), photoQualityPrioritization: .speed)
            let photos = try await withThrowingTaskGroup(of: CapturePhoto.self) { group in
                for _ in 0..<4 { group.addTask { try await photoOutput.capturePhoto(with: settings) } }
                try await Task.sleep(nanoseconds: 300_000_000)
                VirtualCamera.setFaults(.init(), for: VirtualCamera.backID)
                var photos: [CapturePhoto] = []
                for try await photo in group { photos.append(photo) }
                return photos
            }
            let stamps = photos.map(\.timestampNanoseconds)
            #expect(photos.count == 4 && Set(stamps).count == 4, "frames taken: \(stamps.sorted())")
        }

        @Test("the delegate form reports willCapture, then the photo")
        func delegateForm() async throws {
            final class Recorder: PhotoCaptureDelegate, @unchecked Sendable {
                let events = Lock<[String]>([])
                let done: AsyncStream<Void>.Continuation
                init(done: AsyncStream<Void>.Continuation) { self.done = done }
                func photoOutput(_ output: PhotoOutput, willCapturePhotoFor resolvedSettings: ResolvedPhotoSettings) {
                    events.withLock { $0.append("will \(resolvedSettings.photoDimensions)") }
                }
                func photoOutput(_ output: PhotoOutput, didFinishProcessingPhoto photo: CapturePhoto?, error: CaptureError?) {
                    events.withLock { $0.append(photo != nil ? "photo \(photo!.fileDataRepresentation().count > 1000)" : "error \(String(describing: error))") }
                    done.yield()
                }
            }
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            await warmUp(video)
            let (finished, continuation) = AsyncStream<Void>.makeStream()
            let recorder = Recorder(done: continuation)
            photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480)), delegate: recorder)
            _ = await collect(finished, count: 1, seconds: patience)
            #expect(recorder.events.withLock { $0 } == ["will 640×480", "photo true"])
        }

        @Test("saving never overwrites: a second photo with the same name gets a suffix")
        func noOverwrite() async throws {
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            await warmUp(video)
            let folder = try TemporaryDirectory()
            let photo = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480)))
            let first = try await photo.write(to: folder.path("Photo.jpg"))
            let second = try await photo.write(to: folder.path("Photo.jpg"))
            #expect(first.hasSuffix("/Photo.jpg") && second.hasSuffix("/Photo (2).jpg"))
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).sorted()
            #expect(names == ["Photo (2).jpg", "Photo.jpg"], "no temporary files are left behind")
        }
    }
}
