import CSensorProxy
import Glibc

/// iio-sensor-proxy's accelerometer over D-Bus (net.hadess.SensorProxy on the system bus, or
/// on $DBUS_SYSTEM_BUS_ADDRESS). Used only by the thread that opened it.
final class SensorProxy {
    private let sensor: OpaquePointer

    /// Connects and claims the accelerometer; nil when there is no service or no accelerometer.
    init?() {
        var sensor: OpaquePointer?
        guard pinhole_sensor_open(&sensor) == 0, let sensor else { return nil }
        self.sensor = sensor
    }

    deinit { pinhole_sensor_close(sensor) }

    /// The current orientation (`.undefined` when the value cannot be read).
    func orientation() -> DeviceOrientation {
        var buffer = [CChar](repeating: 0, count: 64)
        guard pinhole_sensor_orientation(sensor, &buffer, buffer.count) == 0 else { return .undefined }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return DeviceOrientation(rawValue: text) ?? .undefined
    }

    /// Waits up to `milliseconds` for a change: true when the orientation may have changed;
    /// nil when the bus connection failed (the service went away).
    func waitForChange(milliseconds: UInt64) -> Bool? {
        let result = pinhole_sensor_wait(sensor, milliseconds * 1000)
        return result < 0 ? nil : result > 0
    }
}
