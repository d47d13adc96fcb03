#!/usr/bin/env python3
"""A touchscreen for GTK's Broadway backend, for tests: the part of a browser that the app sees.

Xvfb's XTEST makes no touch events, Weston's headless backend has no input, and this machine has
no /dev/uinput; GTK's Broadway backend takes real touch events (GDK touch events with their
sequences, on Broadway's pointer device, into the same gesture code as on X11 and Wayland) from
a WebSocket client. This is that
client: it keeps what the app draws (surfaces, the render-node tree, textures as PNG) as
broadway.js does, answers the server's round trips, and sends touches and keys.

    broadway-touch.py PORT FOLDER [COMMANDS]

Commands on stdin, or from the FIFO COMMANDS (opened for reading and writing, so that writers
may come and go), one per line; each gets one JSON line on stdout:
    window                       the largest shown surface: {"id", "x", "y", "width", "height"}
    textures                     its texture nodes, drawn size and place in the window, with the
                                 texture's PNG written to FOLDER: [{"x", "y", "width", "height", "png"}]
    pinch CX CY FROM TO STEPS    two fingers FROM px apart around (CX, CY) spread to TO px apart
    drag X0 Y0 X1 Y1 STEPS [HOLD]  one finger from (X0, Y0) to (X1, Y1) in STEPS moves, one
                                 every 16 ms, then still for HOLD ms (0) before it lifts
    swipe X0 Y X1 STEPS [HOLD]   the same, across
    tap X Y                      one finger down and up at (X, Y)
Coordinates are the window's. Errors are {"error": "..."}.
"""
import base64
import json
import os
import socket
import struct
import sys
import threading
import time

# broadway.js's input events and output operations (GTK 4.8).
EVENT_ENTER, EVENT_TOUCH, EVENT_SCREEN_SIZE_CHANGED, EVENT_ROUNDTRIP_NOTIFY = 0, 5, 12, 14
EVENT_KEY_PRESS, EVENT_KEY_RELEASE = 7, 8
(OP_GRAB_POINTER, OP_UNGRAB_POINTER, OP_NEW_SURFACE, OP_SHOW_SURFACE, OP_HIDE_SURFACE, OP_RAISE_SURFACE,
 OP_LOWER_SURFACE, OP_DESTROY_SURFACE, OP_MOVE_RESIZE, OP_SET_TRANSIENT_FOR, OP_DISCONNECTED,
 OP_SURFACE_UPDATE, OP_SET_SHOW_KEYBOARD, OP_UPLOAD_TEXTURE, OP_RELEASE_TEXTURE, OP_SET_NODES, OP_ROUNDTRIP) = range(17)
(NODE_TEXTURE, NODE_CONTAINER, NODE_COLOR, NODE_BORDER, NODE_OUTSET_SHADOW, NODE_INSET_SHADOW, NODE_ROUNDED_CLIP,
 NODE_LINEAR_GRADIENT, NODE_SHADOW, NODE_OPACITY, NODE_CLIP, NODE_TRANSFORM, NODE_DEBUG, NODE_REUSE) = range(14)
NODE_OP_INSERT, NODE_OP_REMOVE, NODE_OP_MOVE_AFTER, NODE_OP_PATCH_TEXTURE, NODE_OP_PATCH_TRANSFORM = range(5)


class Socket:
    """A WebSocket client (RFC 6455): binary messages out (masked), messages in."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /socket HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: broadway\r\n\r\n"
                           % (port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise RuntimeError("the server closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError("no WebSocket: " + head.decode(errors="replace"))
        self.send_lock = threading.Lock()

    def exactly(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def receive(self):
        """One whole message (fragments joined); None when the server closes."""
        message = b""
        while True:
            first, second = self.exactly(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self.exactly(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self.exactly(8))[0]
            mask = self.exactly(4) if second & 0x80 else None
            payload = self.exactly(length)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            opcode = first & 0x0F
            if opcode == 8:
                return None
            if opcode in (9, 10):  # ping, pong
                continue
            message += payload
            if first & 0x80:
                return message

    def send(self, payload):
        mask = os.urandom(4)
        header = bytes([0x82])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        else:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        with self.send_lock:
            self.sock.sendall(header + mask + body)


class Display:
    """What the app has drawn, kept as broadway.js keeps it, and input sent as broadway.js sends it."""

    def __init__(self, port, folder):
        self.socket = Socket(port)
        self.folder = folder
        self.lock = threading.Condition()
        self.serial = 0
        # id -> {"x", "y", "width", "height", "visible", "roots": [node ids],
        #        "nodes": {node id -> {"type", "parent", "children", ...}}} (node ids are per surface)
        self.surfaces = {}
        self.textures = {}   # id -> PNG bytes
        self.closed = False
        self.touches = 0
        # The "browser window": the screen the app's surfaces are placed on.
        self.event(EVENT_SCREEN_SIZE_CHANGED, [1280, 800, 1])
        threading.Thread(target=self.read, daemon=True).start()

    # Input
    def fingers(self):
        """A new touch's identifier (a browser's Touch.identifier)."""
        self.touches += 1
        return self.touches

    def event(self, kind, arguments):
        stamp = int(time.monotonic() * 1000) & 0x7FFFFFFF
        values = [kind, self.serial, stamp] + [int(a) for a in arguments]
        self.socket.send(struct.pack(">%di" % len(values), *values))

    def touch(self, phase, surface, sequence, x, y, emulated):
        s = self.surfaces[surface]
        self.event(EVENT_TOUCH, [phase, surface, sequence, 1 if emulated else 0, s["x"] + x, s["y"] + y, x, y, 0])

    # Output
    def read(self):
        try:
            while True:
                message = self.socket.receive()
                if message is None:
                    break
                with self.lock:
                    self.handle(message)
                    self.lock.notify_all()
        except (EOFError, OSError):
            pass
        with self.lock:
            self.closed = True
            self.lock.notify_all()

    def handle(self, data):
        pos = 0

        def take(fmt):
            nonlocal pos
            values = struct.unpack_from("<" + fmt, data, pos)
            pos += struct.calcsize("<" + fmt)
            return values if len(values) > 1 else values[0]

        while pos < len(data):
            op = take("B")
            self.serial = take("I")
            if op == OP_NEW_SURFACE:
                sid, x, y, w, h = take("HhhHH")
                self.surfaces[sid] = {"x": x, "y": y, "width": w, "height": h, "visible": False, "roots": [], "nodes": {}}
            elif op in (OP_SHOW_SURFACE, OP_HIDE_SURFACE):
                sid = take("H")
                if sid in self.surfaces:
                    self.surfaces[sid]["visible"] = op == OP_SHOW_SURFACE
            elif op in (OP_RAISE_SURFACE, OP_LOWER_SURFACE, OP_SET_SHOW_KEYBOARD):
                take("H")
            elif op == OP_DESTROY_SURFACE:
                self.surfaces.pop(take("H"), None)
            elif op == OP_SET_TRANSIENT_FOR:
                take("HH")
            elif op == OP_ROUNDTRIP:
                sid, tag = take("HI")
                self.event(EVENT_ROUNDTRIP_NOTIFY, [sid, tag])
            elif op == OP_MOVE_RESIZE:
                sid, flags = take("HB")
                s = self.surfaces.get(sid, {})
                if flags & 1:
                    s["x"], s["y"] = take("hh")
                if flags & 2:
                    s["width"], s["height"] = take("HH")
            elif op == OP_UPLOAD_TEXTURE:
                tid, size = take("II")
                self.textures[tid] = data[pos:pos + size]
                pos += size
            elif op == OP_RELEASE_TEXTURE:
                self.textures.pop(take("I"), None)
            elif op == OP_SET_NODES:
                sid, count = take("HI")
                self.set_nodes(sid, data[pos:pos + count * 4])
                pos += count * 4
            elif op == OP_GRAB_POINTER:
                take("HB")
            elif op in (OP_UNGRAB_POINTER, OP_DISCONNECTED):
                pass
            else:
                raise RuntimeError("unknown Broadway operation %d" % op)

    def set_nodes(self, sid, data):
        surface = self.surfaces.setdefault(sid, {"x": 0, "y": 0, "width": 0, "height": 0, "visible": False, "roots": [], "nodes": {}})
        nodes = surface["nodes"]
        pos = 0

        def u32():
            nonlocal pos
            pos += 4
            return struct.unpack_from("<I", data, pos - 4)[0]

        def f32(count):
            nonlocal pos
            pos += 4 * count
            return struct.unpack_from("<%df" % count, data, pos - 4 * count)

        def transform():
            kind = u32()
            if kind == 0:
                x, y = f32(2)
                return (1.0, 1.0, x, y)
            m = f32(16)
            return (m[0], m[5], m[12], m[13])

        def children_of(parent):
            return surface["roots"] if parent == 0 else nodes[parent]["children"]

        def detach(nid):
            node = nodes.get(nid)
            if node is None:
                return
            siblings = children_of(node["parent"]) if node["parent"] == 0 or node["parent"] in nodes else []
            if nid in siblings:
                siblings.remove(nid)

        def place(nid, parent, previous):
            detach(nid)
            nodes[nid]["parent"] = parent
            siblings = children_of(parent)
            siblings.insert(siblings.index(previous) + 1 if previous in siblings else 0, nid)

        def insert(parent, previous):
            kind, nid = u32(), u32()
            if kind == NODE_REUSE:
                place(nid, parent, previous)
                return nid
            node = {"type": kind, "children": [], "parent": parent}
            if kind == NODE_TEXTURE:
                node["rect"] = f32(4)
                node["texture"] = u32()
            elif kind == NODE_COLOR:
                node["rect"] = f32(4)
                u32()
            elif kind == NODE_BORDER:
                f32(12)
                f32(4)
                [u32() for _ in range(4)]
            elif kind in (NODE_OUTSET_SHADOW, NODE_INSET_SHADOW):
                f32(12)
                u32()
                f32(4)
            elif kind == NODE_LINEAR_GRADIENT:
                f32(8)
                for _ in range(u32()):
                    f32(1)
                    u32()
            elif kind == NODE_TRANSFORM:
                node["transform"] = transform()
            elif kind == NODE_CLIP:
                node["origin"] = f32(4)[:2]
            elif kind == NODE_ROUNDED_CLIP:
                node["origin"] = f32(12)[:2]
            elif kind == NODE_OPACITY:
                f32(1)
            elif kind == NODE_SHADOW:
                for _ in range(u32()):
                    u32()
                    f32(3)
            elif kind == NODE_DEBUG:
                length = u32()
                pos_skip = (length + 3) // 4
                [u32() for _ in range(pos_skip)]
            elif kind != NODE_CONTAINER:
                raise RuntimeError("unknown Broadway node type %d" % kind)
            nodes[nid] = node
            place(nid, parent, previous)
            if kind in (NODE_TRANSFORM, NODE_CLIP, NODE_ROUNDED_CLIP, NODE_OPACITY, NODE_SHADOW, NODE_DEBUG):
                insert(nid, None)
            elif kind == NODE_CONTAINER:
                last = None
                for _ in range(u32()):
                    last = insert(nid, last)
            return nid

        while pos < len(data):
            op = u32()
            if op == NODE_OP_INSERT:
                parent, previous = u32(), u32()
                insert(parent, previous if previous else None)
            elif op == NODE_OP_REMOVE:
                nid = u32()
                detach(nid)
                nodes.pop(nid, None)
            elif op == NODE_OP_MOVE_AFTER:
                parent, previous, nid = u32(), u32(), u32()
                if nid in nodes:
                    place(nid, parent, previous if previous else None)
            elif op == NODE_OP_PATCH_TEXTURE:
                nid, tid = u32(), u32()
                if nid in nodes:
                    nodes[nid]["texture"] = tid
            elif op == NODE_OP_PATCH_TRANSFORM:
                nid = u32()
                value = transform()
                if nid in nodes:
                    nodes[nid]["transform"] = value
            else:
                raise RuntimeError("unknown Broadway node operation %d" % op)

    # Queries
    def window(self):
        shown = [(s["width"] * s["height"], sid) for sid, s in self.surfaces.items() if s["visible"] and s["roots"]]
        if not shown:
            return None
        sid = max(shown)[1]
        s = self.surfaces[sid]
        return {"id": sid, "x": s["x"], "y": s["y"], "width": s["width"], "height": s["height"]}

    def texture_nodes(self, sid):
        """Texture nodes of a surface in paint order, placed as the browser places their images."""
        found = []

        nodes = self.surfaces[sid]["nodes"]

        def walk(nid, sx, sy, ox, oy):
            node = nodes.get(nid)
            if node is None:
                return
            kind = node["type"]
            if kind == NODE_TEXTURE:
                x, y, w, h = node["rect"]
                found.append({"x": ox + sx * x, "y": oy + sy * y, "width": sx * w, "height": sy * h, "texture": node["texture"]})
            if kind in (NODE_CLIP, NODE_ROUNDED_CLIP):
                ox, oy = ox + sx * node["origin"][0], oy + sy * node["origin"][1]
            if kind == NODE_TRANSFORM:
                tx, ty, dx, dy = node["transform"][0], node["transform"][1], node["transform"][2], node["transform"][3]
                ox, oy = ox + sx * dx, oy + sy * dy
                sx, sy = sx * tx, sy * ty
            for child in node["children"]:
                walk(child, sx, sy, ox, oy)

        for root in self.surfaces[sid]["roots"]:
            walk(root, 1.0, 1.0, 0.0, 0.0)
        for item in found:
            data = self.textures.get(item["texture"])
            if data is not None:
                path = os.path.join(self.folder, "texture-%d.png" % item["texture"])
                if not os.path.exists(path):
                    with open(path, "wb") as f:
                        f.write(data)
                item["png"] = path
        return found


def main():
    port, folder = int(sys.argv[1]), sys.argv[2]
    commands = open(os.open(sys.argv[3], os.O_RDWR), "r") if len(sys.argv) > 3 else sys.stdin
    display = Display(port, folder)
    for line in commands:
        words = line.split()
        if not words:
            continue
        try:
            with display.lock:
                if display.closed:
                    raise RuntimeError("the Broadway server closed the connection")
                target = display.window()
            if words[0] == "window":
                answer = target
            elif target is None:
                raise RuntimeError("no window is shown")
            elif words[0] == "textures":
                with display.lock:
                    answer = display.texture_nodes(target["id"])
            elif words[0] == "pinch":
                cx, cy, start, end, steps = (float(w) for w in words[1:6])
                sid = target["id"]
                display.event(EVENT_ENTER, [sid, sid, target["x"] + cx, target["y"] + cy, cx, cy, 0, 0])
                one, two = display.fingers(), display.fingers()
                for step in range(int(steps) + 1):
                    half = (start + (end - start) * step / steps) / 2
                    phase = 0 if step == 0 else 1
                    display.touch(phase, sid, one, cx - half, cy, True)
                    display.touch(phase, sid, two, cx + half, cy, False)
                    time.sleep(0.016)
                display.touch(2, sid, one, cx - end / 2, cy, True)
                display.touch(2, sid, two, cx + end / 2, cy, False)
                answer = {"pinched": True}
            elif words[0] in ("swipe", "drag"):
                # swipe X0 Y X1 STEPS [HOLD] is drag X0 Y X1 Y STEPS [HOLD].
                numbers = [float(w) for w in words[1:]]
                if words[0] == "swipe":
                    numbers.insert(3, numbers[1])
                x0, y0, x1, y1, steps = numbers[:5]
                hold = numbers[5] / 1000 if len(numbers) > 5 else 0
                sid = target["id"]
                display.event(EVENT_ENTER, [sid, sid, target["x"] + x0, target["y"] + y0, x0, y0, 0, 0])
                finger = display.fingers()
                for step in range(int(steps) + 1):
                    display.touch(0 if step == 0 else 1, sid, finger, x0 + (x1 - x0) * step / steps, y0 + (y1 - y0) * step / steps, True)
                    time.sleep(0.016)
                if hold:
                    # Still moves: what a resting finger reports, so the fling's speed falls to 0.
                    for _ in range(int(hold / 0.016)):
                        display.touch(1, sid, finger, x1, y1, True)
                        time.sleep(0.016)
                display.touch(2, sid, finger, x1, y1, True)
                answer = {"moved": True}
            elif words[0] == "key":
                # key KEYVAL STATE: a key pressed and let go (a GDK keyval, e.g. 0x2b for plus,
                # with GDK's modifier mask, e.g. 4 for Control), to the surface Broadway focused.
                keyval, state = (int(w, 0) for w in words[1:3])
                display.event(EVENT_KEY_PRESS, [keyval, state])
                time.sleep(0.05)
                display.event(EVENT_KEY_RELEASE, [keyval, state])
                answer = {"pressed": True}
            elif words[0] == "tap":
                x, y = (float(w) for w in words[1:3])
                sid = target["id"]
                display.event(EVENT_ENTER, [sid, sid, target["x"] + x, target["y"] + y, x, y, 0, 0])
                finger = display.fingers()
                display.touch(0, sid, finger, x, y, True)
                time.sleep(0.05)
                display.touch(2, sid, finger, x, y, True)
                answer = {"tapped": True}
            else:
                raise RuntimeError("unknown command " + words[0])
        except Exception as error:  # one line back whatever went wrong, for the test's message
            answer = {"error": "%s: %s" % (type(error).__name__, error)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
