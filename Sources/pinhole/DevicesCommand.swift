import Capture
import Foundation
import Media

/// `pinhole devices`: lists cameras with their formats, controls and access status.
enum DevicesCommand {
    static var help: String {
        Help.page(L("Usage: pinhole devices [--json]"),
                  L("Lists the cameras: ID, name, position, type, device node, access, formats (sizes and frame\nrates) and controls with their ranges. Pinhole's virtual test cameras are listed last."),
                  [.init("--json", L("print a JSON array instead of text")), .init("-h, --help")], width: 10)
    }

    static func run(_ arguments: [String]) throws(CLIError) {
        var arguments = Arguments(arguments)
        if arguments.flag("-h", "--help") { print(help); return }
        let json = arguments.flag("--json")
        _ = try arguments.finish()
        let devices = CaptureDevice.DiscoverySession().devices
        if json {
            let objects = devices.map(describe)
            let data = (try? JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys])) ?? Data("[]".utf8)
            print(String(decoding: data, as: UTF8.self))
            return
        }
        if !devices.contains(where: { $0.deviceType != .virtual }) {
            if let problem = CaptureDevice.accessProblem(for: .video) {
                print(CLIError.line(for: problem) + "\n")
            } else {
                print(L("No camera found. Pinhole's test cameras are available as --device test-front and --device test-back.") + "\n")
            }
        }
        for device in devices { print(text(device)) }
    }

    /// A device as text, for people.
    static func text(_ device: CaptureDevice) -> String {
        // Translators: a camera's name, where it faces and its kind: "Webcam — front, external".
        var lines = [L("%@ — %@, %@", device.localizedName, positionText(device.position), typeText(device.deviceType))]
        lines.append("  " + L("ID: %@", device.uniqueID))
        if let path = device.path { lines.append("  " + L("Node: %@", path)) }
        if let node = device.pipeWireNode {
            lines.append("  " + (device.route == .portal
                // Translators: under a camera in `pinhole devices`: Pinhole streams it from this PipeWire node, reached through the desktop's camera portal.
                ? L("PipeWire node, through the camera portal: %@", node)
                // Translators: under a camera in `pinhole devices`: Pinhole streams it through PipeWire, from this node.
                : L("PipeWire node: %@", node)))
        }
        if device.isInfrared {
            // Translators: under a camera in `pinhole devices`; face-login cameras see infrared light only.
            lines.append("  " + L("Infrared: greyscale only (a face-login camera); never chosen by default, use --device to pick it"))
        }
        lines.append("  " + L("Access: %@", accessText(device)))
        if !device.formats.isEmpty {
            lines.append("  " + L("Formats:"))
            var order: [PixelFormat] = []
            for format in device.formats where !order.contains(format.pixelFormat) { order.append(format.pixelFormat) }
            for pixelFormat in order {
                let sizes = device.formats.filter { $0.pixelFormat == pixelFormat }.map { format in
                    "\(format.dimensions) (\(format.frameIntervals.map { rate($0) }.joined(separator: ", ")) fps)"
                }
                lines.append("    \(pixelFormat): " + sizes.joined(separator: ", "))
            }
        }
        if !device.controls.isEmpty {
            lines.append("  " + L("Controls:"))
            for control in device.controls { lines.append("    " + controlText(control)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func accessText(_ device: CaptureDevice) -> String {
        switch device.authorizationStatus {
        case .authorized: L("authorized")
        case .denied: L("denied. %@", device.accessProblem?.description ?? "")
        case .restricted: L("restricted")
        case .notDetermined: L("not determined")
        }
    }

    /// Where the camera faces, as the text listing says it.
    static func positionText(_ position: CaptureDevice.Position) -> String {
        switch position {
        // Translators: where a camera faces, in `pinhole devices`.
        case .front: L("front")
        case .back: L("back")
        // Translators: a camera's position: plugged in (USB), not built into the computer.
        case .external: L("external")
        // Translators: a camera's position: not known.
        case .unspecified: L("unspecified")
        }
    }

    /// The kind of camera, as the text listing says it.
    static func typeText(_ type: CaptureDevice.DeviceType) -> String {
        switch type {
        // Translators: a kind of camera, after its position in `pinhole devices`: built into the computer.
        case .builtIn: L("builtIn")
        // Translators: a kind of camera: plugged in (USB).
        case .external: L("external")
        // Translators: a kind of camera: Pinhole's test camera, made by the program.
        case .virtual: L("virtual")
        }
    }

    static func rate(_ interval: FrameInterval) -> String {
        let fps = interval.framesPerSecond
        return fps == fps.rounded() ? String(Int(fps)) : String(format: "%.2g", fps)
    }

    static func controlText(_ control: DeviceControl) -> String {
        let head = "\(control.name) [\(control.id)]"
        switch control.kind {
        case .integer:
            return L("%@: %@…%@ step %@, default %@", head, String(control.minimum), String(control.maximum), String(control.step), String(control.defaultValue))
        case .boolean: return L("%@: on/off, default %@", head, control.defaultValue != 0 ? L("on") : L("off"))
        case .menu: return L("%@: %@, default %@", head, control.menu.map { "\($0.value)=\($0.label)" }.joined(separator: ", "), String(control.defaultValue))
        case .button: return L("%@: button", head)
        case .other: return "\(head): \(control.minimum)…\(control.maximum)"
        }
    }

    /// A device as a JSON object.
    static func describe(_ device: CaptureDevice) -> [String: Any] {
        var object: [String: Any] = [
            "id": device.uniqueID, "name": device.localizedName, "position": device.position.rawValue,
            "type": device.deviceType.rawValue, "access": device.authorizationStatus.rawValue, "route": device.route.rawValue,
            "formats": device.formats.map { format -> [String: Any] in
                ["pixelFormat": format.pixelFormat.description, "width": format.dimensions.width, "height": format.dimensions.height,
                 "frameRates": format.frameIntervals.map(\.framesPerSecond)]
            },
            "controls": device.controls.map { control -> [String: Any] in
                var item: [String: Any] = ["id": Int(control.id.rawValue), "name": control.name, "kind": control.kind.rawValue,
                                           "minimum": control.minimum, "maximum": control.maximum, "step": control.step,
                                           "default": control.defaultValue, "readOnly": control.isReadOnly]
                if !control.menu.isEmpty { item["menu"] = control.menu.map { ["value": $0.value, "label": $0.label] as [String: Any] } }
                return item
            },
            "maxPhotoDimensions": ["width": device.maxPhotoDimensions.width, "height": device.maxPhotoDimensions.height],
            "hasFlash": device.hasFlash, "hasTorch": device.hasTorch, "infrared": device.isInfrared,
        ]
        if let path = device.path { object["path"] = path }
        if let node = device.pipeWireNode { object["pipewireNode"] = node }
        return object
    }
}
