import Foundation
import Glibc
import Media
import Testing
import TestSupport

extension AppSuites {
/// The viewer by touch: a tap opens a photo, a swipe steps, a pinch zooms about the fingers, a
/// finger pans. Xvfb's XTEST makes no touch events and Weston's headless backend has no input,
/// so the app runs on GTK's Broadway backend, whose touch events go through GDK's touch
/// sequences and GTK's gestures as on X11 and Wayland; `Tests/Fixtures/broadway-touch.py` is the
/// browser side: it sends the touches and keeps what the app draws (render nodes and textures),
/// where the test reads the photo's colour, size and place.
@Suite("The camera app's viewer by touch (GTK's Broadway backend)")
struct TouchTests {
    /// A texture the app drew: where (the window's coordinates), how large, and its picture.
    struct Drawn {
        let x: Double, y: Double, width: Double, height: Double
        let png: String?
        /// The picture's mean colour at its middle.
        func colour() throws -> (r: Int, g: Int, b: Int)? {
            guard let png else { return nil }
            let picture = try PNGCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: png))))
            return picture.mean(x: picture.width / 2, y: picture.height / 2)
        }
        /// How far across and down the drawn picture the window's point (x, y) is (0…1).
        func fraction(_ px: Double, _ py: Double) -> (x: Double, y: Double) { ((px - x) / width, (py - y) / height) }
    }

    /// gtk4-broadwayd on a display of its own, with the app on it and the touch client connected.
    final class Screen {
        let server: BackgroundProcess
        let client: BackgroundProcess
        let app: BackgroundProcess
        private let commands: Int32
        private var answered = 0

        init(_ session: AppSession) throws {
            let runtime = session.folder.path("runtime")
            // The display's socket is in the session's own runtime folder; its HTTP port is one
            // the kernel says is free (broadwayd prints "Listening" before binding it, and on a
            // port in use it then exits: another test run's server must not be the one we reach).
            let port = try #require(Self.freePort(), "no free TCP port")
            let server = try BackgroundProcess(["/usr/bin/gtk4-broadwayd", ":5", "--port", "\(port)", "--address", "127.0.0.1"],
                                               environment: ["XDG_RUNTIME_DIR": runtime])
            let listening = waitFor(seconds: patience) {
                server.hasExited || (try? runTool("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"]))?.status == 0
            }
            try #require(listening && !server.hasExited, "gtk4-broadwayd did not start: \(server.errors)")
            self.server = server
            let fifo = session.folder.path("touch-commands")
            try #require(mkfifo(fifo, 0o600) == 0)
            let textures = session.folder.path("textures")
            try FileManager.default.createDirectory(atPath: textures, withIntermediateDirectories: true)
            client = try BackgroundProcess(["/usr/bin/python3", AppSession.repository + "/Tests/Fixtures/broadway-touch.py", "\(port)", textures, fifo])
            commands = open(fifo, O_WRONLY)
            var environment = session.environment
            environment["GDK_BACKEND"] = "broadway"
            environment["BROADWAY_DISPLAY"] = ":5"
            environment["DISPLAY"] = ""
            // Broadway draws with its own renderer (render nodes to the browser), not cairo's.
            environment.removeValue(forKey: "GSK_RENDERER")
            app = try BackgroundProcess([builtProduct("pinhole-camera")], environment: environment)
        }

        /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice for port 0).
        static func freePort() -> Int? {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
        }

        deinit {
            close(commands)
            app.stop()
            client.stop()
            server.stop()
        }

        /// Sends one command to the touch client and returns its JSON answer.
        func ask(_ command: String) throws -> Any {
            let line = command + "\n"
            try #require(line.withCString { write(commands, $0, strlen($0)) } == line.utf8.count)
            answered += 1
            let count = answered
            try #require(waitFor(seconds: patience) { client.output.split(separator: "\n").count >= count }, "no answer to \(command): \(client.errors)")
            let answer = String(client.output.split(separator: "\n")[count - 1])
            return try JSONSerialization.jsonObject(with: Data(answer.utf8), options: [.fragmentsAllowed])
        }

        /// The window's textures now.
        func textures() throws -> [Drawn] {
            guard let list = try ask("textures") as? [[String: Any]] else { return [] }
            return list.map { Drawn(x: $0["x"] as? Double ?? 0, y: $0["y"] as? Double ?? 0, width: $0["width"] as? Double ?? 0,
                                    height: $0["height"] as? Double ?? 0, png: $0["png"] as? String) }
        }

        /// The viewer's photo: the largest picture drawn.
        func photo() throws -> Drawn? {
            try textures().filter { $0.width > 300 }.max { $0.width * $0.height < $1.width * $1.height }
        }

        /// The viewer's photo once it is where `condition` wants it and stays there for 0.2 s
        /// (pages slide in, and a fling glides on), or the last one seen after the wait.
        func settledPhoto(_ condition: (Drawn) throws -> Bool) throws -> (photo: Drawn?, settled: Bool) {
            var last: Drawn?
            let settled = try waitFor(seconds: patience) {
                let before = try photo()
                usleep(200_000)
                last = try photo()
                guard let before, let last, try condition(last) else { return false }
                return [before.x, before.y, before.width, before.height] == [last.x, last.y, last.width, last.height] && before.png == last.png
            }
            return (last, settled)
        }

        /// Sends a gesture and checks the client made it.
        func touch(_ command: String) throws {
            let answer = try ask(command) as? [String: Any]
            #expect(answer?["error"] == nil, "\(command): \(answer ?? [:])")
        }
    }

    static func near(_ a: (r: Int, g: Int, b: Int)?, _ b: (r: Int, g: Int, b: Int)) -> Bool {
        guard let a else { return false }
        return abs(a.r - b.r) < 40 && abs(a.g - b.g) < 40 && abs(a.b - b.b) < 40
    }

    @Test("a portrait photo zoomed in keeps its proportions and stays centred across (it was stretched to the window's width)")
    func portraitZoom() throws {
        let session = try AppSession()
        let png = session.folder.path("portrait.png")
        try #require(try runTool("convert", ["-size", "480x640", "xc:green", "PNG24:" + png]).status == 0)
        let imported = try runTool(builtProduct("pinhole"), ["library", "import", png], environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(imported.status == 0, "pinhole library import: \(imported.stderr)")
        let screen = try Screen(session)
        try #require(try waitFor(seconds: patience) { try screen.ask("window") is [String: Any] }, "no window on Broadway: \(screen.app.errors.suffix(600))")
        try session.action("gallery")
        var cell: Drawn?
        #expect(try waitFor(seconds: patience) {
            let before = try screen.textures().first { (100...400).contains($0.width) }
            usleep(200_000)
            cell = try screen.textures().first { (100...400).contains($0.width) }
            return cell != nil && cell.map { [$0.x, $0.y] } == before.map { [$0.x, $0.y] }
        })
        let first = try #require(cell)
        try screen.touch("tap \(Int(first.x) + 40) \(Int(first.y + first.height / 2))")
        let fitted = try screen.settledPhoto { $0.height > 300 }
        let photo = try #require(fitted.photo, "the tap opened no photo")
        try screen.touch("key 0x2b 4")  // Ctrl+plus: the viewer's zoom-in
        let zoomed = try screen.settledPhoto { $0.height > photo.height * 1.2 }
        let grown = try #require(zoomed.photo, "zoomed: \(String(describing: zoomed.photo))")
        #expect(abs(grown.width / grown.height - 0.75) < 0.01, "drawn \(grown.width)×\(grown.height)")
        #expect(abs((grown.x + grown.width / 2) - (photo.x + photo.width / 2)) < 2, "centred at \(photo.x + photo.width / 2), zoomed at \(grown.x + grown.width / 2)")
    }

    @Test("a finger moved up the gallery scrolls it as far as it moved")
    func scrollGallery() throws {
        let session = try AppSession()
        // 40 photos of different reds: more than a screen of cells.
        let folder = session.folder.path("imports")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [String] = []
        for index in 0..<40 {
            let png = folder + "/\(index).png"
            try #require(try runTool("convert", ["-size", "64x48", "xc:rgb(\(100 + index * 3),0,0)", "PNG24:" + png]).status == 0)
            files.append(png)
        }
        let imported = try runTool(builtProduct("pinhole"), ["library", "import"] + files, environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
        try #require(imported.status == 0, "pinhole library import: \(imported.stderr)")
        let screen = try Screen(session)
        try #require(try waitFor(seconds: patience) { try screen.ask("window") is [String: Any] }, "no window on Broadway: \(screen.app.errors.suffix(600))")
        try session.action("gallery")
        // A cell of the third row, once the page has slid in and the cells stay put.
        var cells: [Drawn] = []
        #expect(try waitFor(seconds: patience) {
            let before = try screen.textures().filter { (100...400).contains($0.width) }
            usleep(200_000)
            cells = try screen.textures().filter { (100...400).contains($0.width) }
            return cells.count > 8 && cells.map { [$0.x, $0.y] } == before.map { [$0.x, $0.y] }
        }, "cells: \(cells)")
        let top = try #require(cells.map(\.y).min())
        let tracked = try #require(cells.first { $0.y > top + 250 && $0.y < top + 450 }, "no third row in \(cells)")
        try screen.touch("drag 300 600 300 300 20 300")
        var moved: Drawn?
        #expect(try waitFor(seconds: patience) {
            moved = try screen.textures().first { $0.png == tracked.png }
            return moved.map { abs($0.y - (tracked.y - 300)) < 8 && abs($0.x - tracked.x) < 1 } ?? false
        }, "a cell was at \(tracked.y), after a 300 px finger move at \(String(describing: moved?.y)); the app said: \(screen.app.errors.suffix(400))")
        #expect(!screen.app.hasExited, "the app ended: \(screen.app.errors.suffix(600))")
    }

    @Test("a tap opens the photo; a swipe steps to the next and back; a pinch zooms about the fingers; a finger pans the zoomed photo as far as it moves; a pinch fits it again and a swipe steps; a key zooms about the middle")
    func tapSwipePinchPan() throws {
        let session = try AppSession()
        // Red first, then blue: the gallery shows blue (the newest) first.
        for colour in ["red", "blue"] {
            let png = session.folder.path(colour + ".png")
            try #require(try runTool("convert", ["-size", "640x480", "xc:" + colour, "PNG24:" + png]).status == 0)
            let imported = try runTool(builtProduct("pinhole"), ["library", "import", png], environment: ["PINHOLE_LIBRARY": session.folder.path("library")])
            try #require(imported.status == 0, "pinhole library import: \(imported.stderr)")
        }
        let screen = try Screen(session)
        let red = (r: 255, g: 0, b: 0), blue = (r: 0, g: 0, b: 255)
        try #require(try waitFor(seconds: patience) { try screen.ask("window") is [String: Any] }, "no window on Broadway: \(screen.app.errors.suffix(600))")
        try session.action("gallery")
        // The two cells' thumbnails, once they stay put (the page slides in); a tap on the first opens it.
        var cells: [Drawn] = [], previous: [Drawn] = []
        #expect(try waitFor(seconds: patience) {
            previous = cells
            usleep(200_000)
            cells = try screen.textures().filter { (100...400).contains($0.width) && (80...300).contains($0.height) }
            return cells.count == 2 && cells.map { [$0.x, $0.y] } == previous.map { [$0.x, $0.y] }
        }, "thumbnails: \(cells); the app said: \(screen.app.errors.suffix(600))")
        let first = try #require(cells.min { ($0.y, $0.x) < ($1.y, $1.x) })
        try screen.touch("tap \(Int(first.x) + 40) \(Int(first.y + first.height / 2))")
        let opened = try screen.settledPhoto { Self.near(try $0.colour(), blue) }
        #expect(opened.settled, "the tap showed \(String(describing: opened.photo)), coloured \(String(describing: try? opened.photo?.colour()))")
        let photo = try #require(opened.photo)
        let middle = (x: Int(photo.x + photo.width / 2), y: Int(photo.y + photo.height / 2))

        // A swipe to the left shows the next (older) photo, one to the right the previous again.
        try screen.touch("swipe \(Int(photo.x + photo.width * 0.8)) \(middle.y) \(Int(photo.x + photo.width * 0.2)) 10")
        var shown = try screen.settledPhoto { Self.near(try $0.colour(), red) }
        #expect(shown.settled, "after a swipe left: \(String(describing: shown.photo))")
        try screen.touch("swipe \(Int(photo.x + photo.width * 0.2)) \(middle.y) \(Int(photo.x + photo.width * 0.8)) 10")
        shown = try screen.settledPhoto { Self.near(try $0.colour(), blue) }
        #expect(shown.settled, "after a swipe right: \(String(describing: shown.photo))")

        // Two fingers 100 px apart spread to 300 px: three times larger, and the photo's point
        // between them stays between them.
        let focus = (x: Int(photo.x + photo.width * 0.3), y: Int(photo.y + photo.height * 0.3))
        let under = photo.fraction(Double(focus.x), Double(focus.y))
        try screen.touch("pinch \(focus.x) \(focus.y) 100 300 12")
        let zoomed = try screen.settledPhoto { $0.width > photo.width * 2.5 }
        #expect(zoomed.settled, "fitted \(photo), pinched \(String(describing: zoomed.photo))")
        let pinched = try #require(zoomed.photo)
        #expect(abs(pinched.width / photo.width - 3) < 0.1, "fitted \(photo.width) px wide, pinched \(pinched.width)")
        let stayed = pinched.fraction(Double(focus.x), Double(focus.y))
        #expect(abs(stayed.x - under.x) < 0.01 && abs(stayed.y - under.y) < 0.01, "under the fingers: \(under) before, \(stayed) after")
        #expect(Self.near(try pinched.colour(), blue))

        // One finger, moved 300 px to the left and held still, pans the photo by those 300 px
        // (not twice: the scrolled window pans by touch itself) and does not step to the next.
        try screen.touch("swipe \(middle.x + 150) \(middle.y) \(middle.x - 150) 20 300")
        let panned = try screen.settledPhoto { abs($0.x - (pinched.x - 300)) < 4 }
        #expect(panned.settled, "zoomed at x \(pinched.x), after a 300 px pan at \(String(describing: panned.photo?.x))")
        #expect(Self.near(try panned.photo?.colour(), blue), "the pan stepped to another photo")

        // Fingers pinching back in fit the photo again (a finger that panned is not still
        // counted down), and then a swipe steps again.
        try screen.touch("pinch \(middle.x) \(middle.y) 300 80 12")
        shown = try screen.settledPhoto { abs($0.width - photo.width) < 2 && abs($0.x - photo.x) < 2 }
        #expect(shown.settled, "fitted \(photo), after pinching in \(String(describing: shown.photo))")
        try screen.touch("swipe \(Int(photo.x + photo.width * 0.8)) \(middle.y) \(Int(photo.x + photo.width * 0.2)) 10")
        shown = try screen.settledPhoto { Self.near(try $0.colour(), red) }
        #expect(shown.settled, "after the last swipe: \(String(describing: shown.photo))")
        // Zoomed by key (Ctrl+plus, the viewer's zoom-in), the photo grows about the window's
        // middle, in the same frame as it grows.
        let before = try #require(shown.photo)
        try screen.touch("key 0x2b 4")
        let grown = try screen.settledPhoto { $0.width > before.width * 1.2 }
        #expect(grown.settled, "zoomed in by key: \(String(describing: grown.photo))")
        let centre = (x: before.x + before.width / 2, y: before.y + before.height / 2)
        let kept = grown.photo?.fraction(centre.x, centre.y)
        #expect(kept.map { abs($0.x - 0.5) < 0.01 && abs($0.y - 0.5) < 0.01 } == true, "the middle went to \(String(describing: kept))")
    }
}
}
