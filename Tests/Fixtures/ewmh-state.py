#!/usr/bin/python3
"""Sets the EWMH properties a window manager would, for app tests under Xvfb (which runs none).

  ewmh-state.py supports                 the root window stands in as its own _NET_SUPPORTING_WM_CHECK
                                         window and lists _NET_WM_STATE and _NET_WM_STATE_HIDDEN in
                                         _NET_SUPPORTED (GDK reads a window's state only then)
  ewmh-state.py hide WINDOW              sets _NET_WM_STATE to _NET_WM_STATE_HIDDEN (minimised)
  ewmh-state.py show WINDOW              removes _NET_WM_STATE

Talks to libX11 through ctypes on $DISPLAY (xprop cannot give a property the type WINDOW).
"""
import ctypes
import sys

x11 = ctypes.CDLL("libX11.so.6")
x11.XOpenDisplay.restype = ctypes.c_void_p
x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
x11.XDefaultRootWindow.restype = ctypes.c_ulong
x11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
x11.XInternAtom.restype = ctypes.c_ulong
x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x11.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                ctypes.c_void_p, ctypes.c_int]
x11.XDeleteProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
x11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]

XA_ATOM, XA_WINDOW, REPLACE = 4, 33, 0

display = x11.XOpenDisplay(None)
if not display:
    sys.exit("cannot open the display")


def atom(name):
    return x11.XInternAtom(display, name.encode(), 0)


def put(window, name, kind, values):
    array = (ctypes.c_ulong * len(values))(*values)
    x11.XChangeProperty(display, window, atom(name), kind, 32, REPLACE, array, len(values))


command = sys.argv[1]
if command == "supports":
    root = x11.XDefaultRootWindow(display)
    put(root, "_NET_SUPPORTING_WM_CHECK", XA_WINDOW, [root])
    put(root, "_NET_SUPPORTED", XA_ATOM, [atom("_NET_WM_STATE"), atom("_NET_WM_STATE_HIDDEN")])
elif command == "hide":
    put(int(sys.argv[2], 0), "_NET_WM_STATE", XA_ATOM, [atom("_NET_WM_STATE_HIDDEN")])
elif command == "show":
    x11.XDeleteProperty(display, int(sys.argv[2], 0), atom("_NET_WM_STATE"))
else:
    sys.exit("unknown command " + command)
x11.XSync(display, 0)
