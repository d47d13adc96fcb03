#!/usr/bin/python3
# A stand-in for a file manager or a chat window in drag-out tests: a small GTK 4 window ("Drop
# Target") that accepts files. It prints "ready" once shown, then for a drop the MIME types the
# drag offered ("offered text/uri-list …") and each file dropped ("file /path"), then "dropped".
import gi
gi.require_version('Gtk', '4.0')
gi.require_version('Gdk', '4.0')
from gi.repository import Gdk, GLib, Gtk

Gtk.init()
loop = GLib.MainLoop()
window = Gtk.Window(title='Drop Target')
window.set_default_size(240, 240)
window.set_child(Gtk.Label(label='Drop files here'))
target = Gtk.DropTarget.new(Gdk.FileList, Gdk.DragAction.COPY)


def dropped(target, value, _x, _y):
    formats = target.get_current_drop().get_formats()
    print('offered ' + ' '.join(formats.get_mime_types() or []), flush=True)
    for file in value.get_files():
        print('file ' + file.get_path(), flush=True)
    print('dropped', flush=True)
    return True


target.connect('drop', dropped)
window.add_controller(target)
window.connect('close-request', lambda _window: loop.quit())
window.present()
print('ready', flush=True)
loop.run()
