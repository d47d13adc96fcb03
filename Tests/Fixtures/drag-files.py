#!/usr/bin/python3
# A stand-in for a file manager in drag-and-drop tests: a small GTK 4 window ("Drag Source", at
# the screen's top left when no window manager places it) whose content can be dragged, carrying
# the files named on the command line as text/uri-list, as file managers offer them. It prints
# "ready" once shown and "drag-end" when a drag ends, then exits.
import sys
import gi
gi.require_version('Gtk', '4.0')
gi.require_version('Gdk', '4.0')
from gi.repository import Gdk, Gio, GLib, Gtk

uris = [Gio.File.new_for_path(path).get_uri() for path in sys.argv[1:]]
data = ('\r\n'.join(uris) + '\r\n').encode()

Gtk.init()
loop = GLib.MainLoop()
window = Gtk.Window(title='Drag Source')
window.set_default_size(200, 200)
window.set_child(Gtk.Label(label='%d files' % len(uris)))
source = Gtk.DragSource()
source.set_actions(Gdk.DragAction.COPY)
source.connect('prepare', lambda _source, _x, _y: Gdk.ContentProvider.new_for_bytes('text/uri-list', GLib.Bytes.new(data)))


def ended(_source, _drag, _delete):
    print('drag-end', flush=True)
    loop.quit()


source.connect('drag-end', ended)
window.add_controller(source)
window.connect('close-request', lambda _window: loop.quit())
window.present()
print('ready', flush=True)
loop.run()
