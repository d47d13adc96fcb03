import CameraModel
@_spi(Testing) import Capture
import Foundation
import Glibc

/// The test-only channel: with PINHOLE_TEST_CONTROL=PATH (a FIFO the test made), the app reads
/// lines that drive Pinhole's test cameras from outside its process, since their faults live in
/// the app's own memory: `front unplugged on`, `back busy off`, `front fatal on`, `reset`; and
/// `report PATH`, which writes what a test cannot see from outside (`camera-running=1`) to PATH.
/// PINHOLE_TEST_FAULTS="front busy on; back busy on" applies commands before the cameras open.
/// Without the variables nothing listens; the shipping app never reads them otherwise.
enum TestControl {
    /// Applies the commands in PINHOLE_TEST_FAULTS (separated by semicolons).
    static func applyInitial(_ commands: String) {
        for command in commands.split(separator: ";") { apply(command.trimmingCharacters(in: .whitespaces)) }
    }

    /// The model `report` reads.
    @MainActor private static weak var model: CameraModel?

    /// Reads commands from the FIFO at `path` on a thread of its own (called on the main thread).
    static func listen(on path: String, model: CameraModel) {
        MainActor.assumeIsolated { TestControl.model = model }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(PathBox(path)).toOpaque()
        pthread_create(&thread, nil, { argument in
            let path = Unmanaged<PathBox>.fromOpaque(argument!).takeRetainedValue().path
            while true {
                guard let file = fopen(path, "r") else { return nil }
                var line = [CChar](repeating: 0, count: 256)
                while fgets(&line, Int32(line.count), file) != nil {
                    let text = String(decoding: line.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    TestControl.apply(text)
                }
                fclose(file)
            }
        }, box)
        pthread_detach(thread)
    }

    /// Applies one command.
    static func apply(_ command: String) {
        let words = command.split(separator: " ").map(String.init)
        if words.count == 2, words[0] == "report" {
            let path = words[1]
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    let running = TestControl.model?.isCameraRunning == true
                    try? "camera-running=\(running ? 1 : 0)\n".write(toFile: path + ".part", atomically: false, encoding: .utf8)
                    rename(path + ".part", path)
                }
            }
            return
        }
        if words == ["reset"] {
            for id in [VirtualCamera.frontID, VirtualCamera.backID] { VirtualCamera.setFaults(.init(), for: id) }
            return
        }
        guard words.count == 3 else { return }
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

    private final class PathBox {
        let path: String
        init(_ path: String) { self.path = path }
    }
}
