import Foundation
import Glibc
import Testing

/// A private D-Bus daemon with the stand-in iio-sensor-proxy (Tests/Fixtures), standing in for
/// the system bus: published in this process's environment for in-process code, or handed to a
/// child process through `address`.
public final class FakeSensorBus {
    let daemon: BackgroundProcess
    var service: BackgroundProcess?
    /// The bus's address (for DBUS_SYSTEM_BUS_ADDRESS).
    public let address: String
    private let published: Bool

    /// Starts the bus and the stand-in service reporting `orientation` ("normal", "left-up", …);
    /// `publish` sets this process's DBUS_SYSTEM_BUS_ADDRESS to it until the bus is dropped.
    public init(orientation: String = "normal", publish: Bool = true) throws {
        daemon = try BackgroundProcess(["/usr/bin/dbus-daemon", "--session", "--nofork", "--print-address=1"])
        try #require(daemon.waitForOutput(containing: "unix:"), "dbus-daemon did not start: install dbus-daemon (scripts/setup)")
        address = daemon.output.trimmingCharacters(in: .whitespacesAndNewlines)
        published = publish
        if publish { setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1) }
        try startService(orientation: orientation)
    }

    /// Starts (again) the stand-in service on the bus.
    public func startService(orientation: String) throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/fake-sensor-proxy.py").path
        let service = try BackgroundProcess(["/usr/bin/python3", fixture, orientation], environment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        try #require(service.waitForOutput(containing: "ready"), "the stand-in sensor service did not start (python3-dbus, python3-gi)")
        self.service = service
    }

    /// Turns the "device" through the stand-in's test method, as a person turning it would.
    public func turn(_ orientation: String) throws {
        let result = try runTool("gdbus", ["call", "--address", address, "--dest", "net.hadess.SensorProxy", "--object-path", "/net/hadess/SensorProxy",
                                           "--method", "net.hadess.SensorProxy.Test.SetOrientation", orientation])
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// Stops the service (the sensor goes away).
    public func stopService() {
        service?.stop()
        service = nil
    }

    deinit {
        service?.stop()
        daemon.stop()
        if published { setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/pinhole-test-bus", 1) }
    }
}
