#!/usr/bin/python3
"""Key presses for apps on headless mutter (GNOME's compositor), for tests.

mutter --headless has no input device; its RemoteDesktop D-Bus service (on the session bus in
$DBUS_SESSION_BUS_ADDRESS) takes keyboard events for the focused window, as a remote desktop
client sends them. Prints "ready" once its session started, then reads lines of keys from the
FIFO given as the argument (opened for reading and writing, so writers may come and go): each
word is one key or chord, X keysyms in hexadecimal joined by "+" ("ffe3+67" is Ctrl+G), pressed
in order and released in reverse. Prints "sent LINE" when a line's keys are done.
"""
import os
import sys
import time

import dbus

bus = dbus.SessionBus()
NAME = "org.gnome.Mutter.RemoteDesktop"
desktop = bus.get_object(NAME, "/org/gnome/Mutter/RemoteDesktop")
path = desktop.CreateSession(dbus_interface=NAME)
session = dbus.Interface(bus.get_object(NAME, path), NAME + ".Session")
session.Start()
print("ready", flush=True)
for line in open(os.open(sys.argv[1], os.O_RDWR), "r"):
    for chord in line.split():
        keys = [int(key, 16) for key in chord.split("+")]
        for key in keys:
            session.NotifyKeyboardKeysym(dbus.UInt32(key), True)
            time.sleep(0.03)
        for key in reversed(keys):
            session.NotifyKeyboardKeysym(dbus.UInt32(key), False)
            time.sleep(0.03)
    print("sent", line.strip(), flush=True)
