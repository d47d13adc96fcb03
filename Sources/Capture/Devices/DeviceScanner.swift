import CV4L2
import Glibc
import Media

/// Finds cameras: V4L2 capture nodes in /dev (one entry per camera, metadata and output nodes
/// skipped), PipeWire camera nodes, and the virtual test camera pair. A camera PipeWire offers
/// from a V4L2 node (WirePlumber's V4L2 monitor names it in `api.v4l2.path`) is listed once,
/// streamed through PipeWire; opening its node path (/dev/videoN) still gets V4L2 directly.
enum DeviceScanner {
    /// The folder holding device nodes (overridable for tests with PINHOLE_DEV_DIR).
    static var devDirectory: String { environment("PINHOLE_DEV_DIR") ?? "/dev" }

    /// Reads an environment variable.
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// /dev/videoN paths, in numeric order.
    static func videoNodes() -> [String] {
        let numbers = FileSystem.names(in: devDirectory).compactMap { name in name.hasPrefix("video") ? Int(name.dropFirst(5)) : nil }
        return numbers.sorted().map { "\(devDirectory)/video\($0)" }
    }

    /// Every camera: real ones first (in node order, each taken through PipeWire when the session's
    /// PipeWire offers it), then PipeWire's cameras without a V4L2 node (libcamera, programs), then
    /// the virtual pair. Through the camera portal (`CameraPortal.isWanted`) the real cameras are
    /// the portal's only: /dev is not looked at, as a sandbox does not see it.
    static func scan(includeVirtual: Bool = true) -> [CaptureDevice] {
        // A program under test is driven through its environment before it finds any camera.
        VirtualCameraControl.startIfAsked()
        var devices: [CaptureDevice] = []
        var seen = Set<String>()
        let pipeWire = PipeWireCameras.cameras()
        var placed = Set<String>()
        for path in CameraPortal.isWanted ? [] : videoNodes() {
            guard let device = describe(path: path), seen.insert(device.uniqueID).inserted else { continue }
            let resolved = FileSystem.realPath(path) ?? path
            if let camera = pipeWire.first(where: { camera in camera.v4l2Path.map { (FileSystem.realPath($0) ?? $0) == resolved } ?? false }) {
                placed.insert(camera.name)
                devices.append(pipeWireDevice(camera, over: device))
            } else {
                devices.append(device)
            }
        }
        // A node over a V4L2 device that is gone (unplugged while WirePlumber, without udev,
        // still lists it) is not a camera.
        for camera in pipeWire where !placed.contains(camera.name) && camera.v4l2Path.map({ access($0, F_OK) == 0 }) ?? true {
            let device = pipeWireDevice(camera, over: nil)
            if seen.insert(device.uniqueID).inserted { devices.append(device) }
        }
        if includeVirtual { devices += virtualDevices() }
        return devices
    }

    /// The camera PipeWire node `camera` is: the V4L2 camera `node` under it keeps its ID, name,
    /// position and controls (so a camera chosen before is the same one); one without a V4L2 node
    /// is "pipewire:<node.name>", placed by libcamera's location when it gives one.
    static func pipeWireDevice(_ camera: PipeWireCamera, over node: CaptureDevice?) -> CaptureDevice {
        let id = node?.uniqueID ?? "pipewire:\(camera.name)"
        let located: CaptureDevice.Position = switch camera.location {
        case "front": .front
        case "back": .back
        case "external": .external
        default: .unspecified
        }
        var position = node?.position ?? located
        if let override = PositionOverrides.position(for: id) { position = override }
        let type: CaptureDevice.DeviceType = node?.deviceType ?? (camera.location == "front" || camera.location == "back" ? .builtIn : .external)
        return CaptureDevice(uniqueID: id, localizedName: node?.localizedName ?? camera.description, manufacturer: node?.manufacturer ?? camera.vendor,
                             position: position, deviceType: type, formats: groupedFormats(camera.formats), controls: node?.controls ?? [],
                             source: .pipewire(node: camera.name, v4l2Path: camera.v4l2Path, portal: camera.viaPortal),
                             isInfrared: V4L2PlanarCodes.isInfrared(camera.formats.map(\.0.fourCC)), v4l2Controls: node?.v4l2Controls)
    }

    /// The virtual front and back test cameras; `suffix` makes IDs of a test's own pair
    /// (`VirtualCamera.Pair`).
    static func virtualDevices(suffix: String = "") -> [CaptureDevice] {
        let formats = groupedFormats(VirtualCameraBackend.formats().map { ($0.0, $0.1, $0.2, $0.3) })
        return [(VirtualCamera.frontID + suffix, "Pinhole Test Camera (front)", CaptureDevice.Position.front),
                (VirtualCamera.backID + suffix, "Pinhole Test Camera (back)", .back)].map { id, name, position in
            CaptureDevice(uniqueID: id, localizedName: name, manufacturer: "Pinhole", position: position, deviceType: .virtual, formats: formats,
                          controls: VirtualCameraBackend.controls(forID: id), source: .virtual)
        }
    }

    /// Describes the node at `path`, or nil when it is not a streaming video-capture node.
    /// A node we may not open is still listed (name from sysfs, no formats), so people learn why.
    static func describe(path: String) -> CaptureDevice? {
        let device: V4L2Device
        do {
            device = try V4L2Device(path: path)
        } catch {
            if case .accessDenied = error {
                let node = String(path.split(separator: "/").last ?? "")
                let name = (try? String(decoding: FileBytes.read(path: "/sys/class/video4linux/\(node)/name", limit: 4096), as: UTF8.self))?
                    .trimmedWhitespace() ?? node
                return CaptureDevice(uniqueID: byIDName(for: path) ?? "v4l2:\(node)", localizedName: name, position: .unspecified,
                                     deviceType: .external, formats: [], controls: [], source: .v4l2(path: path))
            }
            return nil
        }
        return describe(device, path: path)
    }

    /// Describes the open node `device` (at `path`), or nil when it is not a streaming
    /// video-capture node or offers no format Pinhole can stream. What the driver says is not
    /// trusted: sizes outside `plausibleSides` are left out (a driver's 4294967295×4294967295
    /// would overflow every area), as are menus whose range is damaged.
    static func describe(_ device: V4L2Device, path: String) -> CaptureDevice? {
        guard let caps = try? device.capabilities(), caps.isStreamingCapture else { return nil }
        var raw: [(PixelFormat, Int, Int, [FrameInterval])] = []
        let offered = device.pixelFormats()
        for format in offered {
            guard let pixelFormat = V4L2PlanarCodes.pixelFormat(format.fourCC) else { continue }
            // A layout offered both whole and with its planes in separate buffers (NV12 and NV12M,
            // on multi-planar nodes) is one format to the user: the whole one is streamed.
            if format.fourCC != pixelFormat.fourCC, offered.contains(where: { $0.fourCC == pixelFormat.fourCC }) { continue }
            for size in device.frameSizes(fourCC: format.fourCC) {
                for (w, h) in dimensions(of: size) where plausibleSides.contains(w) && plausibleSides.contains(h) {
                    let intervals = device.frameIntervals(fourCC: format.fourCC, width: w, height: h).sorted()
                    raw.append((pixelFormat, w, h, intervals.isEmpty ? [FrameInterval(framesPerSecond: 30)] : intervals))
                }
            }
        }
        guard !raw.isEmpty else { return nil }
        let controlInfos = device.controls()
        let controls = controlInfos.map(deviceControl)
        let isUSB = caps.busInfo.hasPrefix("usb")
        let lower = caps.card.lowercased()
        let integrated = ["integrated", "built-in", "builtin", "internal", "facetime", "front"].contains { lower.contains($0) }
        let id = byIDName(for: path) ?? "v4l2:\(caps.busInfo):\(caps.card)"
        var position: CaptureDevice.Position = integrated ? .front : (lower.contains("back") || lower.contains("rear") ? .back : (isUSB ? .external : .unspecified))
        // Drivers that know where the camera faces say so (phones, tablets): trust them over names.
        if let orientation = controls.first(where: { $0.id == .cameraOrientation }) {
            switch orientation.defaultValue {
            case Int64(V4L2_CAMERA_ORIENTATION_FRONT): position = .front
            case Int64(V4L2_CAMERA_ORIENTATION_BACK): position = .back
            default: position = .external
            }
        }
        if let override = PositionOverrides.position(for: id) { position = override }
        let type: CaptureDevice.DeviceType = isUSB && !integrated ? .external : .builtIn
        let node = String(path.split(separator: "/").last ?? "")
        let usbManufacturer = (try? FileBytes.read(path: "/sys/class/video4linux/\(node)/device/../manufacturer", limit: 4096))
            .map { String(decoding: $0, as: UTF8.self).trimmedWhitespace() }
        return CaptureDevice(uniqueID: id, localizedName: caps.card, manufacturer: usbManufacturer ?? caps.driver, position: position, deviceType: type,
                             formats: groupedFormats(raw), controls: controls, source: .v4l2(path: path),
                             isInfrared: V4L2PlanarCodes.isInfrared(offered.map(\.fourCC)), v4l2Controls: controlInfos)
    }

    /// The widths and heights a camera's frame can have: V4L2's own fields are 32-bit, but no
    /// sensor is wider than this, and areas of larger sides overflow.
    static let plausibleSides = 1...65_535

    /// The sizes of a frame-size entry (stepwise ranges give the common sizes inside them).
    static func dimensions(of size: V4L2FrameSize) -> [(Int, Int)] {
        switch size {
        case let .discrete(w, h):
            return [(w, h)]
        case let .stepwise(minW, maxW, stepW, minH, maxH, stepH):
            let common = [(320, 240), (640, 480), (1280, 720), (1920, 1080), (2560, 1440), (3840, 2160)]
            var sizes = common.filter { w, h in
                w >= minW && w <= maxW && h >= minH && h <= maxH && (w - minW) % stepW == 0 && (h - minH) % stepH == 0
            }
            if !sizes.contains(where: { $0 == (maxW, maxH) }) { sizes.append((maxW, maxH)) }
            return sizes
        }
    }

    /// Builds `Format`s with their photo dimensions; sizes outside `plausibleSides` (which a
    /// PipeWire node may declare as freely as a driver) are left out.
    static func groupedFormats(_ raw: [(PixelFormat, Int, Int, [FrameInterval])]) -> [CaptureDevice.Format] {
        let raw = raw.filter { plausibleSides.contains($0.1) && plausibleSides.contains($0.2) }
        let largest = raw.map { CaptureDevice.Dimensions(width: $0.1, height: $0.2) }.max() ?? CaptureDevice.Dimensions(width: 0, height: 0)
        return raw.map { format, w, h, intervals in
            let own = CaptureDevice.Dimensions(width: w, height: h)
            return CaptureDevice.Format(pixelFormat: format, dimensions: own, frameIntervals: intervals.sorted(),
                                        supportedMaxPhotoDimensions: own == largest ? [own] : [own, largest])
        }
    }

    /// The /dev/v4l/by-id name whose link points at `path`, if any.
    static func byIDName(for path: String) -> String? {
        let folder = "\(devDirectory)/v4l/by-id"
        guard let resolved = FileSystem.realPath(path) else { return nil }
        return FileSystem.names(in: folder).first { !$0.hasPrefix(".") && FileSystem.realPath("\(folder)/\($0)") == resolved }
    }

    /// The public description of a V4L2 control.
    static func deviceControl(_ info: V4L2ControlInfo) -> DeviceControl {
        let kind: DeviceControl.Kind = switch info.type {
        case 1, 5: .integer  // INTEGER, INTEGER64
        case 2: .boolean
        case 3, 9: .menu  // MENU, INTEGER_MENU
        case 4: .button
        default: .other
        }
        return DeviceControl(id: ControlID(rawValue: info.id), name: info.name, kind: kind, minimum: info.minimum, maximum: info.maximum,
                             step: Int64(clamping: info.step), defaultValue: info.defaultValue,
                             menu: info.menu.map { DeviceControl.MenuItem(value: $0.index, label: $0.label) }, isReadOnly: info.isReadOnly)
    }
}
