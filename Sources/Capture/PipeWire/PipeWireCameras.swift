import CPipeWire
import Glibc
import Media

/// A camera node in PipeWire's graph, as the registry and the node's EnumFormat params describe it.
struct PipeWireCamera: Sendable, Equatable {
    /// The node's serial (`object.serial`: never reused, so a replugged camera has a new one).
    var serial: UInt64
    /// `node.name` (stable across replugging for a given camera: Pinhole's handle on it).
    var name: String
    /// `node.description`, else `node.nick`, else the name: for people.
    var description: String
    /// The V4L2 node behind it (`api.v4l2.path`), when WirePlumber's V4L2 monitor made it.
    var v4l2Path: String?
    /// Where it looks (`api.libcamera.location`: "front", "back", "external"), when libcamera says.
    var location: String?
    /// `device.vendor.name`, when the node says.
    var vendor: String?
    /// Pixel format, size and frame intervals of each way it streams that Pinhole reads.
    var formats: [(PixelFormat, Int, Int, [FrameInterval])]
    /// Whether it was found through the camera portal's remote (then `v4l2Path` is nil: through
    /// the portal Pinhole does not use /dev, which a sandbox does not see).
    var viaPortal = false

    /// The same node (serial and name) with as many formats.
    static func == (a: PipeWireCamera, b: PipeWireCamera) -> Bool {
        a.serial == b.serial && a.name == b.name && a.formats.count == b.formats.count
    }
}

/// The process's connection to PipeWire for cameras: made on the first look (and only when a
/// daemon's socket exists, or the camera portal is used), kept for the process's life with its own
/// thread loop watching the registry, remade when the daemon went away. With the camera portal
/// (`CameraPortal.isWanted`) it is made over the portal's PipeWire remote, after the portal
/// granted access; otherwise over the session's PipeWire socket.
enum PipeWireCameras {
    /// How long the first look waits for the registry and the cameras' formats.
    static let discoveryTimeout = 3.0
    /// How long starting a stream waits for the format to be agreed and the first state change.
    static let streamTimeout = 10.0

    /// The monitor (an opaque pointer to the shim's), guarded.
    private static let monitor = Lock<MonitorBox?>(nil)

    /// Owns a monitor pointer; the pointer is used by one thread at a time under `monitor`'s lock
    /// or, for streams, by the shim's own locking.
    final class MonitorBox: @unchecked Sendable {
        /// The shim's monitor.
        let pointer: OpaquePointer
        /// Whether it is connected over the camera portal's remote.
        let viaPortal: Bool
        /// Takes ownership of `pointer`.
        init(_ pointer: OpaquePointer, viaPortal: Bool) {
            self.pointer = pointer
            self.viaPortal = viaPortal
        }
        deinit { pinhole_pw_monitor_free(pointer) }
    }

    /// Whether looking for PipeWire cameras is wanted and possible without loading anything:
    /// PINHOLE_PIPEWIRE=0 turns it off; the camera portal gives a remote of its own (a sandbox
    /// need not see PipeWire's socket); otherwise a daemon's socket must exist ($PIPEWIRE_REMOTE
    /// set, or pipewire-0 in $PIPEWIRE_RUNTIME_DIR, $XDG_RUNTIME_DIR).
    static var daemonMayBeThere: Bool {
        if DeviceScanner.environment("PINHOLE_PIPEWIRE") == "0" { return false }
        if CameraPortal.isWanted { return true }
        if let remote = DeviceScanner.environment("PIPEWIRE_REMOTE"), !remote.isEmpty { return true }
        for variable in ["PIPEWIRE_RUNTIME_DIR", "XDG_RUNTIME_DIR"] {
            if let folder = DeviceScanner.environment(variable), !folder.isEmpty, access("\(folder)/pipewire-0", F_OK) == 0 { return true }
        }
        return false
    }

    /// The live monitor, connecting when there is none (or the last one's daemon went away):
    /// through the camera portal when it is used (which may ask the user first, and throws its
    /// refusal), else to the session's PipeWire.
    static func connected() throws(CaptureError) -> MonitorBox {
        try PipeWireLibrary.require()
        return try monitor.withLock { current throws(CaptureError) -> MonitorBox in
            if let box = current, pinhole_pw_monitor_is_alive(box.pointer) { return box }
            current = nil
            let viaPortal = CameraPortal.isWanted
            let (fd, portalSawCamera) = viaPortal ? try CameraPortal.openRemote() : (-1, false)
            var code: Int32 = 0
            var message = [CChar](repeating: 0, count: 256)
            let made = message.withUnsafeMutableBufferPointer { text in
                pinhole_pw_monitor_new(fd, Int32(discoveryTimeout * 1000), &code, text.baseAddress!, text.count)
            }
            guard let made else {
                throw PipeWireErrno.error("connecting", camera: viaPortal ? "the camera portal's PipeWire" : "PipeWire", code: code,
                                          message: message.nulTerminatedString)
            }
            // The portal saw a camera (openRemote asked IsCameraPresent), but its remote starts
            // with every node hidden until WirePlumber grants the cameras, a moment after the
            // connection appears: the first look waits for one, else it finds none. With no
            // camera there is nothing to wait for; one plugged in later shows in the registry.
            if portalSawCamera { _ = pinhole_pw_monitor_wait_for_camera(made, Int32(discoveryTimeout * 1000)) }
            let box = MonitorBox(made, viaPortal: viaPortal)
            current = box
            return box
        }
    }

    /// The monitor if one was made already (the watcher asks without connecting).
    static var existing: MonitorBox? { monitor.withLock { $0 } }

    /// The camera nodes now; empty when no daemon is there (or it cannot be reached: PipeWire is
    /// then simply not a source of cameras, and V4L2 remains).
    static func cameras() -> [PipeWireCamera] {
        guard daemonMayBeThere, let box = try? connected() else { return [] }
        return cameras(of: box)
    }

    /// The cameras `box` knows.
    static func cameras(of box: MonitorBox) -> [PipeWireCamera] {
        let list = pinhole_pw_monitor_cameras(box.pointer)
        defer { pinhole_pw_cameras_free(list) }
        guard let base = list.cameras else { return [] }
        return UnsafeBufferPointer(start: base, count: Int(list.count)).map { camera in
            var formats: [(PixelFormat, Int, Int, [FrameInterval])] = []
            if let first = camera.formats {
                for format in UnsafeBufferPointer(start: first, count: Int(camera.format_count)) {
                    guard let pixelFormat = PixelFormat(fourCC: format.fourcc) else { continue }
                    var rates = format
                    let intervals = withUnsafeBytes(of: &rates.rate_num) { numerators in
                        withUnsafeBytes(of: &rates.rate_denom) { denominators in
                            (0..<Int(format.rate_count)).map { index in
                                // A rate of n/d frames per second is an interval of d/n seconds.
                                FrameInterval(numerator: Int(denominators.load(fromByteOffset: index * 4, as: UInt32.self)),
                                              denominator: Int(numerators.load(fromByteOffset: index * 4, as: UInt32.self)))
                            }
                        }
                    }
                    formats.append((pixelFormat, Int(format.width), Int(format.height), intervals))
                }
            }
            let name = String(cString: camera.name)
            let description = String(cString: camera.description)
            func optional(_ text: UnsafePointer<CChar>) -> String? {
                let value = String(cString: text)
                return value.isEmpty ? nil : value
            }
            return PipeWireCamera(serial: camera.serial, name: name, description: description.isEmpty ? name : description,
                                  v4l2Path: box.viaPortal ? nil : optional(camera.v4l2_path), location: optional(camera.location),
                                  vendor: optional(camera.vendor), formats: formats, viaPortal: box.viaPortal)
        }
    }

    /// Whether the node called `name` is in the graph now (without connecting when nothing did yet).
    static func isPresent(name: String) -> Bool {
        guard let box = existing ?? (try? connected()) else { return false }
        return cameras(of: box).contains { $0.name == name }
    }

    /// Where the camera list stands: which connection, whether it lives, and how many changes it
    /// has seen. A watcher rescans when this changes.
    struct ChangeToken: Equatable {
        /// The connection.
        var connection: ObjectIdentifier
        /// Whether its daemon is still there.
        var isAlive: Bool
        /// Cameras added (with their formats) or removed so far.
        var generation: UInt64
    }

    /// The camera list's state now (nil when no connection was made: nothing looked for PipeWire cameras yet).
    static var changeToken: ChangeToken? {
        existing.map { box in
            ChangeToken(connection: ObjectIdentifier(box), isAlive: pinhole_pw_monitor_is_alive(box.pointer),
                        generation: pinhole_pw_monitor_generation(box.pointer))
        }
    }
}
