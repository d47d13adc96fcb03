#!/usr/bin/python3
"""A stand-in for iio-sensor-proxy on a private bus, for the rotation tests.

Serves net.hadess.SensorProxy at /net/hadess/SensorProxy on the bus in $DBUS_SYSTEM_BUS_ADDRESS:
HasAccelerometer, AccelerometerOrientation, ClaimAccelerometer/ReleaseAccelerometer, and a test
method net.hadess.SensorProxy.Test.SetOrientation(s) that changes the orientation and emits
PropertiesChanged, as the real service does. Prints "ready" once the name is owned.
"""
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IFACE = "net.hadess.SensorProxy"
PROPS = "org.freedesktop.DBus.Properties"


class SensorProxy(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/net/hadess/SensorProxy")
        self.orientation = sys.argv[1] if len(sys.argv) > 1 else "normal"
        self.claims = 0

    @dbus.service.method(IFACE)
    def ClaimAccelerometer(self):
        self.claims += 1

    @dbus.service.method(IFACE)
    def ReleaseAccelerometer(self):
        self.claims -= 1

    @dbus.service.method(IFACE + ".Test", in_signature="s")
    def SetOrientation(self, value):
        self.orientation = str(value)
        self.PropertiesChanged(IFACE, {"AccelerometerOrientation": dbus.String(self.orientation)}, [])

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"HasAccelerometer": dbus.Boolean(True), "AccelerometerOrientation": dbus.String(self.orientation)}

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    name = dbus.service.BusName(IFACE, bus)
    proxy = SensorProxy(bus)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
