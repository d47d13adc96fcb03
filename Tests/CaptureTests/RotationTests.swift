@testable import Capture
import Foundation
import Media
import Testing
import TestSupport

/// Waits until `coordinator`'s angles equal `expected`, up to `seconds`.
func waitForAngles(_ coordinator: RotationCoordinator, preview: Double, capture: Double, seconds: Double = patience) async -> Bool {
    await waitUntil(seconds: seconds) { coordinator.currentAngles == RotationCoordinator.Angles(preview: preview, capture: capture) }
}

extension VirtualCameraSuites {
    @Suite("Rotation from the accelerometer (iio-sensor-proxy over D-Bus)")
    struct RotationTests {
        let back = try! CaptureDevice.device(withID: "test-back")
        let front = try! CaptureDevice.device(withID: "test-front")

        @Test("turning the device changes the capture and preview angles; the front camera's preview turns the other way")
        func followsTheAccelerometer() async throws {
            let bus = try FakeSensorBus(orientation: "normal")
            let backCoordinator = await RotationCoordinator.make(device: back)
            let frontCoordinator = await RotationCoordinator.make(device: front)
            defer { backCoordinator.stop(); frontCoordinator.stop() }
            // The coordinator waits only briefly for its first reading: a busy machine may need longer.
            #expect(await waitUntil { backCoordinator.hasSensor && frontCoordinator.hasSensor })
            #expect(backCoordinator.deviceOrientation == .normal)
            #expect(backCoordinator.currentAngles == .init(preview: 0, capture: 0))
            try bus.turn("left-up")
            #expect(await waitForAngles(backCoordinator, preview: 90, capture: 90))
            #expect(await waitForAngles(frontCoordinator, preview: 90, capture: 270))
            try bus.turn("bottom-up")
            #expect(await waitForAngles(backCoordinator, preview: 180, capture: 180))
            try bus.turn("right-up")
            #expect(await waitForAngles(backCoordinator, preview: 270, capture: 270))
            #expect(await waitForAngles(frontCoordinator, preview: 270, capture: 90))
        }

        @Test("a photo taken with the device turned carries the angle as EXIF orientation")
        func photoOrientation() async throws {
            let bus = try FakeSensorBus(orientation: "left-up")
            let coordinator = await RotationCoordinator.make(device: back)
            defer { coordinator.stop() }
            #expect(await waitForAngles(coordinator, preview: 90, capture: 90), "the sensor's first reading (left-up)")
            let (session, photoOutput, video) = try await photoSession(back)
            defer { session.stopRunning() }
            coordinator.attach(preview: video.connection, capture: photoOutput.connection)
            await warmUp(video)
            let photo = try await photoOutput.capturePhoto(with: PhotoSettings(maxPhotoDimensions: .init(width: 640, height: 480)))
            #expect(photo.resolvedSettings.orientation == .right)
            #expect(try JPEGExif.metadata(in: photo.fileDataRepresentation())?.orientation == .right)
            try bus.turn("normal")
            #expect(await waitForAngles(coordinator, preview: 0, capture: 0))
            #expect(photoOutput.connection.videoRotationAngle == 0 && video.connection.videoRotationAngle == 0)
        }

        @Test("without iio-sensor-proxy the angles are 0; when the service appears later, it is followed")
        func noSensor() async throws {
            setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/pinhole-test-bus", 1)
            let lonely = await RotationCoordinator.make(device: back)
            defer { lonely.stop() }
            #expect(!lonely.hasSensor && lonely.currentAngles == .init(preview: 0, capture: 0))
        }

        @Test("external webcams never turn with the device; a sensor mounted rotated is corrected for")
        func angleTable() {
            let webcam = CaptureDevice(uniqueID: "usb-webcam", localizedName: "USB Webcam", position: .external, deviceType: .external,
                                       formats: [], controls: [], source: .v4l2(path: "/dev/null"))
            for orientation in DeviceOrientation.allCases {
                #expect(RotationCoordinator.angles(for: orientation, device: webcam) == .init(preview: 0, capture: 0))
            }
            // A phone's back camera mounted at 270° (V4L2 says: rotate 270° counter-clockwise = 90° clockwise).
            let mounted = CaptureDevice(uniqueID: "phone-back", localizedName: "Phone", position: .back, deviceType: .builtIn, formats: [],
                                        controls: [DeviceControl(id: .sensorRotation, name: "Camera Sensor Rotation", kind: .integer, minimum: 270,
                                                                 maximum: 270, step: 1, defaultValue: 270, menu: [], isReadOnly: true)],
                                        source: .v4l2(path: "/dev/null"))
            #expect(RotationCoordinator.angles(for: .normal, device: mounted) == .init(preview: 90, capture: 90))
            #expect(RotationCoordinator.angles(for: .leftUp, device: mounted) == .init(preview: 180, capture: 180))
            #expect(RotationCoordinator.angles(for: .undefined, device: mounted) == .init(preview: 90, capture: 90))
        }
    }
}
