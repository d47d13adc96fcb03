import Capture
import Glibc
import Media
import PinholeTestSupport

/// One camera app the app and gallery stages run: the current build next to this program, or
/// `--before`'s older one. Both speak the same report lines (`pinhole-bench: EVENT VALUES`); the
/// older one reads its own source tree's GSettings schema, compiled into a folder of its own, and
/// finds its icons from its own path (a build folder inside its checkout).
struct AppBinary {
    /// "" for the current build, " (before)" for the older one: added to the stage names.
    let mark: String
    /// The executable.
    let path: String
    /// The environment it runs with under the session.
    let environment: [String]
    /// Where it came from, for the notes.
    let origin: String

    /// Whether this is `--before`'s binary.
    var isBefore: Bool { !mark.isEmpty }

    /// The current build (`pinhole-camera` next to this program) under `session`.
    static func current(_ path: String, session: HeadlessSession) -> AppBinary {
        AppBinary(mark: "", path: path, environment: session.environment, origin: "this build")
    }

    /// `--before`'s binary (a path to `pinhole-camera` or to the folder holding it), with its own
    /// source tree's schema compiled into `folder`/schemas-before; nil without `--before`.
    static func before(_ option: String?, session: HeadlessSession) throws -> AppBinary? {
        guard let option else { return nil }
        var path = FileSystem.realPath(option) ?? option
        var info = stat()
        if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR { path += "/pinhole-camera" }
        guard access(path, X_OK) == 0 else { throw CaptureBenchError(description: "--before: \(path) is not an executable pinhole-camera") }
        guard let tree = sourceTree(above: path) else {
            throw CaptureBenchError(description: "--before: no source tree (Package.swift and data/\(AppBenchmark.appID).gschema.xml) above \(path): "
                                    + "point at a checkout's build, e.g. /work/wt-before/.build/release")
        }
        let schemas = session.folder + "/schemas-before"
        mkdir(schemas, 0o755)
        let compiled = Subprocess.run(["glib-compile-schemas", "--strict", "--targetdir=" + schemas, tree + "/data"], scratch: session.folder)
        guard compiled.status == 0 else { throw CaptureBenchError(description: "--before: its schema: \(compiled.errors.trimmed.suffix(300))") }
        let environment = session.environment.filter { !$0.hasPrefix("GSETTINGS_SCHEMA_DIR=") } + ["GSETTINGS_SCHEMA_DIR=" + schemas]
        let commit = Subprocess.output(["git", "-C", tree, "log", "-1", "--format=%h %cs"])?.trimmed
        return AppBinary(mark: " (before)", path: path, environment: environment, origin: "before: \(path)" + (commit.map { ", commit \($0)" } ?? ""))
    }

    /// The checkout above `path`: the nearest folder holding Package.swift and the app's schema.
    static func sourceTree(above path: String) -> String? {
        var folder = path
        while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
            if access(folder + "/Package.swift", R_OK) == 0 && access(folder + "/data/\(AppBenchmark.appID).gschema.xml", R_OK) == 0 { return folder }
        }
        return nil
    }

    /// The bench's headless session in `folder`: Xvfb at 1920×1080 and `dbus-daemon --session`
    /// (the accessibility bus starts on demand), the schema from `tree`/data, photos at 1080p and
    /// the stream pinned to the test camera's 1080p30 YUYV (the default preset would pick its NV12
    /// at the same size and rate: the GStreamer peers' format), the test cameras, the report lines.
    static func session(in folder: String, tree: String) throws -> HeadlessSession {
        try HeadlessSession(folder: folder, schemas: tree + "/data",
                            preferences: ["photo-size": "'1920x1080'", "video-size": "'1920x1080@30'", "last-camera": "'\(VirtualCamera.frontID)'"],
                            extra: ["NO_AT_BRIDGE": "1", "PINHOLE_TEST_CAMERA": "1", "PINHOLE_BENCH_REPORT": "1"])
    }
}
