#!/usr/bin/python3
"""A stand-in for GNOME's session manager on a private session bus, for the app's inhibit test.

Serves org.gnome.SessionManager at /org/gnome/SessionManager on the bus in
$DBUS_SESSION_BUS_ADDRESS: Inhibit(app_id, toplevel_xid, reason, flags) -> cookie and
Uninhibit(cookie), which is what GtkApplication calls for gtk_application_inhibit outside a
sandbox. Prints "ready" once the name is owned, then one line per call:
"inhibit COOKIE FLAGS APP_ID REASON" and "uninhibit COOKIE".
"""
import os

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

IFACE = "org.gnome.SessionManager"


class SessionManager(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/gnome/SessionManager")
        self.next = 0

    @dbus.service.method(IFACE, in_signature="susu", out_signature="u")
    def Inhibit(self, app_id, toplevel_xid, reason, flags):
        self.next += 1
        print("inhibit %d %d %s %s" % (self.next, flags, app_id, reason), flush=True)
        return dbus.UInt32(self.next)

    @dbus.service.method(IFACE, in_signature="u")
    def Uninhibit(self, cookie):
        print("uninhibit %d" % cookie, flush=True)

    @dbus.service.method(IFACE, in_signature="u", out_signature="b")
    def IsInhibited(self, flags):
        return False


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    name = dbus.service.BusName(IFACE, bus)
    manager = SessionManager(bus)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
