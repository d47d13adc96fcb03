#!/usr/bin/python3
"""A stand-in for a file manager on a private session bus, for the app's "Show in Files" test.

Serves org.freedesktop.FileManager1 at /org/freedesktop/FileManager1 on the bus in
$DBUS_SESSION_BUS_ADDRESS (the interface Files, Dolphin and Nemo implement):
ShowItems(uris, startup_id), ShowFolders(uris, startup_id) and ShowItemProperties(uris,
startup_id). Prints "ready" once the name is owned, then one line per call: the method's name
followed by the URIs, separated by spaces.
"""
import os

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IFACE = "org.freedesktop.FileManager1"


class FileManager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/FileManager1")

    @dbus.service.method(IFACE, in_signature="ass")
    def ShowItems(self, uris, startup_id):
        print("ShowItems " + " ".join(uris), flush=True)

    @dbus.service.method(IFACE, in_signature="ass")
    def ShowFolders(self, uris, startup_id):
        print("ShowFolders " + " ".join(uris), flush=True)

    @dbus.service.method(IFACE, in_signature="ass")
    def ShowItemProperties(self, uris, startup_id):
        print("ShowItemProperties " + " ".join(uris), flush=True)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    name = dbus.service.BusName(IFACE, bus)
    manager = FileManager(bus)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
