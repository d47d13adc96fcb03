// The desktop's camera portal (org.freedesktop.portal.Camera, xdg-desktop-portal) over sd-bus.
//
// sd-bus comes from libsystemd, which Capture links already (CSensorProxy talks to
// iio-sensor-proxy through it): the portal adds no library to load, at start or later. The shim
// speaks to the session bus ($DBUS_SESSION_BUS_ADDRESS) on a connection of its own per call, so
// nothing stays open between looks for cameras; the one thing kept is the PipeWire remote's fd,
// which the caller owns.
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// What AccessCamera's Request answered (the portal's response codes).
enum pinhole_portal_answer {
    /// The user (or the permission store) allowed the camera.
    PINHOLE_PORTAL_ALLOWED = 0,
    /// The dialog was dismissed.
    PINHOLE_PORTAL_CANCELLED = 1,
    /// Access was refused (by the user, or the permission store said no).
    PINHOLE_PORTAL_DENIED = 2,
};

/// Reads the Camera interface's IsCameraPresent property into `*present`. 0, or a negative errno:
/// -ENOENT when the session bus has no portal or the portal no Camera interface (it exports one
/// only with an Access backend configured), -ECONNREFUSED when there is no session bus; the
/// D-Bus error's name and text in `message`.
int pinhole_portal_is_camera_present(bool * _Nonnull present, char * _Nonnull message, size_t size);

/// Calls AccessCamera and waits up to `timeout_ms` for its Request's Response signal (the portal
/// may show a dialog first; the match is added before the call, on the handle the portal will
/// use, as the portal's documentation asks). 0 with the answer in `*answer`, or a negative errno
/// (-ETIMEDOUT: no answer in time; the others as for `pinhole_portal_is_camera_present`).
int pinhole_portal_access_camera(int timeout_ms, enum pinhole_portal_answer * _Nonnull answer, char * _Nonnull message, size_t size);

/// Calls OpenPipeWireRemote: on success `*fd` is a new descriptor (close-on-exec) of a PipeWire
/// connection that sees the cameras, which the caller owns. A negative errno otherwise: -EACCES
/// when the portal refuses (org.freedesktop.portal.Error.NotAllowed: access was not granted).
int pinhole_portal_open_pipewire_remote(int * _Nonnull fd, char * _Nonnull message, size_t size);
