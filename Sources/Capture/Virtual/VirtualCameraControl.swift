import Glibc
import Synchronization

/// Drives the test cameras of a whole program (the app, the CLI) from its tests, which run it as
/// another process: the faults live in that program's memory. A test contract of the library,
/// read from the environment when cameras are first looked for, so no program needs code of
/// its own for it:
/// - `PINHOLE_TEST_FAULTS="front busy on; back busy on"`: commands applied before any camera opens;
/// - `PINHOLE_TEST_CONTROL=PATH` (a FIFO the test made): commands read as lines, on a thread of
///   their own: `front unplugged on`, `back busy off`, `front fatal on`, `front denied on`,
///   `front fail-start on`, `reset`; and `report PATH`, which writes `camera-running=1` (a test
///   camera is streaming) or `=0` to PATH.
/// Without the variables nothing is read and nothing listens.
enum VirtualCameraControl {
    /// Whether the environment was read (it is read once).
    private static let started = Atomic<Bool>(false)

    /// Applies `PINHOLE_TEST_FAULTS` and starts listening on `PINHOLE_TEST_CONTROL`, the first
    /// time it is called in the process.
    static func startIfAsked() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let faults = getenv("PINHOLE_TEST_FAULTS") {
            for command in String(cString: faults).split(separator: ";") { apply(command.split(separator: " ").joined(separator: " ")) }
        }
        guard let control = getenv("PINHOLE_TEST_CONTROL") else { return }
        let box = Unmanaged.passRetained(PathBox(String(cString: control))).toOpaque()
        var thread = pthread_t()
        pthread_create(&thread, nil, { argument in
            let path = Unmanaged<PathBox>.fromOpaque(argument!).takeRetainedValue().path
            while true {
                // Opened again after each writer closes it (a test's session writes, closes, writes).
                guard let file = fopen(path, "r") else { return nil }
                var line = [CChar](repeating: 0, count: 256)
                while fgets(&line, Int32(line.count), file) != nil {
                    VirtualCameraControl.apply(String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
                fclose(file)
            }
        }, box)
        pthread_detach(thread)
    }

    /// Applies one command (unknown ones are ignored).
    static func apply(_ command: String) {
        let words = command.split(separator: " ").map(String.init)
        if words.count == 2, words[0] == "report" {
            report(to: words[1])
            return
        }
        if words == ["reset"] {
            for id in [VirtualCamera.frontID, VirtualCamera.backID] { VirtualCamera.setFaults(.init(), for: id) }
            return
        }
        guard words.count == 3, ["front", "back"].contains(words[0]) else { return }
        let id = words[0] == "front" ? VirtualCamera.frontID : VirtualCamera.backID
        let on = words[2] == "on"
        VirtualCamera.updateFaults(for: id) { faults in
            switch words[1] {
            case "unplugged": faults.unplugged = on
            case "busy": faults.busy = on
            case "denied": faults.accessDenied = on
            case "fatal": faults.fatalError = on
            case "fail-start": faults.failStart = on
            default: break
            }
        }
    }

    /// Writes whether a test camera streams to `path` (whole: written beside it, then renamed).
    private static func report(to path: String) {
        let text = "camera-running=\(VirtualCamera.isStreaming ? 1 : 0)\n"
        guard let file = fopen(path + ".part", "w") else { return }
        _ = text.withCString { fputs($0, file) }
        fclose(file)
        rename(path + ".part", path)
    }

    /// The FIFO's path, handed to the listening thread.
    private final class PathBox {
        let path: String
        init(_ path: String) { self.path = path }
    }
}
