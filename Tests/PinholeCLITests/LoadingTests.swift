import Foundation
import Testing
import TestSupport

/// The shared objects a `pinhole` run loaded, named as the dynamic loader opened them (its
/// `LD_DEBUG=files` log, which covers the libraries linked at start and those dlopen'd later).
func loadedLibraries(_ arguments: [String], in folder: TemporaryDirectory) throws -> (result: ToolResult, libraries: Set<String>) {
    let log = folder.path("ld-\(UUID().uuidString)")
    var env = try isolatedEnvironment(folder)
    env["LD_DEBUG"] = "files"
    env["LD_DEBUG_OUTPUT"] = log
    let result = try pinhole(arguments, environment: env)
    // The loader writes LOG.PID; every "file=NAME [0];  needed by …" or "… dynamically loaded by …"
    // line names one it opened.
    let logs = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix((log as NSString).lastPathComponent + ".") }
    var libraries = Set<String>()
    for name in logs {
        let text = try String(contentsOfFile: folder.path(name), encoding: .utf8)
        for line in text.split(separator: "\n") {
            guard let start = line.range(of: "file=")?.upperBound, let end = line[start...].firstIndex(of: " ") else { continue }
            libraries.insert(String(line[start..<end]))
        }
    }
    return (result, libraries)
}

extension CLITests {
    @Test("a JPEG snap loads neither FFmpeg, libheif nor libpulse; a recording without sound loads FFmpeg but not libpulse; a HEIF snap loads libheif")
    func librariesOnFirstUse() throws {
        let folder = try TemporaryDirectory()
        /// Whether any library whose name starts with one of `prefixes` was loaded.
        func loaded(_ libraries: Set<String>, _ prefixes: [String]) -> Bool {
            libraries.contains { name in prefixes.contains { name.hasPrefix($0) } }
        }
        let ffmpeg = ["libavcodec", "libavformat", "libavutil", "libswscale"], heif = ["libheif"], pulse = ["libpulse"]

        let jpeg = try loadedLibraries(["snap", "--device", "test", "--size", "640x480", "-o", folder.path("photo.jpg")], in: folder)
        #expect(jpeg.result.status == 0, "\(jpeg.result.stderr)")
        #expect(loaded(jpeg.libraries, ["libturbojpeg"]), "the log names what was loaded: \(jpeg.libraries.sorted())")
        #expect(!loaded(jpeg.libraries, ffmpeg + heif + pulse), "\(jpeg.libraries.sorted())")

        let movie = try loadedLibraries(["record", "--device", "test", "--size", "640x480", "--duration", "1", "--no-audio", "-o", folder.path("movie.mp4")], in: folder)
        #expect(movie.result.status == 0, "\(movie.result.stderr)")
        #expect(loaded(movie.libraries, ffmpeg) && !loaded(movie.libraries, pulse + heif), "\(movie.libraries.sorted())")

        let photo = try loadedLibraries(["snap", "--device", "test", "--size", "640x480", "--format", "heif", "-o", folder.path("photo.heic")], in: folder)
        #expect(photo.result.status == 0, "\(photo.result.stderr)")
        #expect(loaded(photo.libraries, heif) && !loaded(photo.libraries, ffmpeg + pulse), "\(photo.libraries.sorted())")
    }
}
