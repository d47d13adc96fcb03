#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal on a private session bus, for the app's "Open With…" test.

Owns org.freedesktop.portal.Desktop and serves org.freedesktop.portal.OpenURI at
/org/freedesktop/portal/desktop on the bus in $DBUS_SESSION_BUS_ADDRESS:
OpenFile(parent_window s, fd h, options a{sv}) -> handle o, answered as the real portal does by a
Response(response u, results a{sv}) signal of org.freedesktop.portal.Request on the handle's path
(/org/freedesktop/portal/desktop/request/SENDER/TOKEN, TOKEN being the caller's handle_token).

The arguments say how to answer each call in turn: a number is the Response code to send (0 done,
1 cancelled, 2 failed), "error" fails the call itself with a D-Bus error; with no argument left,
calls get 0. Prints "ready" once the name is owned, then for each call one line:
"OpenFile parent=PARENT ask=True|False target=PATH mode=r|w|rw sha256=HEX" where PATH is what
/proc/self/fd/N links to for the fd received, mode its access mode and HEX the SHA-256 of the
bytes read through it (from the start); and "responded CODE" once the Response is sent.
"""
import fcntl
import hashlib
import os
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

BUS_NAME = "org.freedesktop.portal.Desktop"
OPEN_URI = "org.freedesktop.portal.OpenURI"
REQUEST = "org.freedesktop.portal.Request"


class Request(dbus.service.Object):
    """One request's object, which sends its Response and goes."""

    @dbus.service.signal(REQUEST, signature="ua{sv}")
    def Response(self, response, results):
        pass

    @dbus.service.method(REQUEST)
    def Close(self):
        self.remove_from_connection()


class OpenURI(dbus.service.Object):
    def __init__(self, bus, answers):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.bus = bus
        self.answers = answers
        self.calls = 0

    @dbus.service.method(OPEN_URI, in_signature="sha{sv}", out_signature="o", sender_keyword="sender")
    def OpenFile(self, parent_window, fd, options, sender=None):
        self.calls += 1
        number = fd.take()
        try:
            target = os.readlink("/proc/self/fd/%d" % number)
            access = fcntl.fcntl(number, fcntl.F_GETFL) & os.O_ACCMODE
            mode = {os.O_RDONLY: "r", os.O_WRONLY: "w", os.O_RDWR: "rw"}.get(access, "?")
            digest = hashlib.sha256()
            offset = 0
            while True:
                chunk = os.pread(number, 1 << 20, offset)
                if not chunk:
                    break
                digest.update(chunk)
                offset += len(chunk)
        finally:
            os.close(number)
        ask = bool(options.get("ask", False))
        print("OpenFile parent=%s ask=%s target=%s mode=%s sha256=%s" % (parent_window, ask, target, mode, digest.hexdigest()), flush=True)
        answer = self.answers.pop(0) if self.answers else "0"
        if answer == "error":
            raise dbus.exceptions.DBusException("no application can open it", name="org.freedesktop.portal.Error.Failed")
        token = str(options.get("handle_token", "call%d" % self.calls))
        path = "/org/freedesktop/portal/desktop/request/%s/%s" % (sender[1:].replace(".", "_"), token)
        request = Request(self.bus, path)

        def respond():
            request.Response(dbus.UInt32(int(answer)), dbus.Dictionary({}, signature="sv"))
            request.remove_from_connection()
            print("responded %s" % answer, flush=True)
            return False

        # After the reply, as the real portal answers once its dialog is done.
        GLib.timeout_add(200, respond)
        return dbus.ObjectPath(path)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    name = dbus.service.BusName(BUS_NAME, bus)
    portal = OpenURI(bus, sys.argv[1:])
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
