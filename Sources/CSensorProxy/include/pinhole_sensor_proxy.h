// Pinhole's shim over sd-bus (libsystemd) for iio-sensor-proxy's accelerometer
// (D-Bus service net.hadess.SensorProxy on the system bus). Returns 0 or a negative errno.
#ifndef PINHOLE_SENSOR_PROXY_H
#define PINHOLE_SENSOR_PROXY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An open connection to the system bus (or $DBUS_SYSTEM_BUS_ADDRESS) watching the sensor.
typedef struct pinhole_sensor pinhole_sensor;

/// Connects, checks HasAccelerometer, calls ClaimAccelerometer and subscribes to property changes.
/// -ENODEV when the service has no accelerometer; -ENOENT (or another error) when there is no service.
int pinhole_sensor_open(pinhole_sensor **out);

/// Reads AccelerometerOrientation ("normal", "bottom-up", "left-up", "right-up", "undefined") into `buffer`.
int pinhole_sensor_orientation(pinhole_sensor *sensor, char *buffer, size_t size);

/// Waits up to `timeout_usec` for bus traffic and processes it; returns 1 when the sensor's
/// properties changed since the last call, 0 when not, or a negative errno when the bus failed.
int pinhole_sensor_wait(pinhole_sensor *sensor, uint64_t timeout_usec);

/// Releases the accelerometer and closes the connection.
void pinhole_sensor_close(pinhole_sensor *sensor);

#ifdef __cplusplus
}
#endif
#endif
