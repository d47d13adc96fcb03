#!/usr/bin/python3
"""A stand-in for a desktop's access dialog, the backend xdg-desktop-portal's camera portal asks.

xdg-desktop-portal exports org.freedesktop.portal.Camera only when a backend for
org.freedesktop.impl.portal.Access is configured (a .portal file in $XDG_DESKTOP_PORTAL_DIR whose
UseIn names $XDG_CURRENT_DESKTOP). This serves that interface at /org/freedesktop/portal/desktop
under the bus name given as the first argument, on the bus in $DBUS_SESSION_BUS_ADDRESS:
AccessDialog(handle o, app_id s, parent_window s, title s, subtitle s, body s, options a{sv})
-> (response u, results a{sv}), answered with the code in the file named by the second argument
(0 allow, 1 cancel, 2 deny; read at each call, so a test changes the answer between runs; 0 when
the file is missing). Each call appends one line to the file named by the third argument:
"AccessDialog app_id=APP title=TITLE response=CODE", so a test can tell whether the dialog was
shown. Prints "ready" once the name is owned.
"""
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ACCESS = "org.freedesktop.impl.portal.Access"


class Access(dbus.service.Object):
    def __init__(self, bus, answer_file, log_file):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.answer_file = answer_file
        self.log_file = log_file

    @dbus.service.method(ACCESS, in_signature="osssssa{sv}", out_signature="ua{sv}")
    def AccessDialog(self, handle, app_id, parent_window, title, subtitle, body, options):
        try:
            with open(self.answer_file) as f:
                response = int(f.read().strip() or "0")
        except FileNotFoundError:
            response = 0
        with open(self.log_file, "a") as f:
            f.write(f"AccessDialog app_id={app_id} title={title} response={response}\n")
        return dbus.UInt32(response), dbus.Dictionary({}, signature="sv")


def main():
    name, answer_file, log_file = sys.argv[1], sys.argv[2], sys.argv[3]
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    owned = dbus.service.BusName(name, bus)
    access = Access(bus, answer_file, log_file)
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
