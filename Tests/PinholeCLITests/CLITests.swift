import Foundation
import Media
import Testing
import TestSupport

/// Runs the built `pinhole` binary with `arguments` and `environment` additions, as `uid` when given.
func pinhole(_ arguments: [String], environment: [String: String] = [:], asUser uid: Int? = nil) throws -> ToolResult {
    if let uid {
        return try spawn(["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", try builtProductForAnyone("pinhole")] + arguments,
                         environment: environment)
    }
    return try spawn([pinholeBinary] + arguments, environment: environment)
}

/// The built `pinhole` binary.
let pinholeBinary = builtProduct("pinhole")

/// An environment with a private HOME, an empty /dev and no PipeWire, so the tests see only the test camera.
func isolatedEnvironment(_ folder: TemporaryDirectory) throws -> [String: String] {
    let dev = folder.url.appendingPathComponent("dev").path
    try FileManager.default.createDirectory(atPath: dev, withIntermediateDirectories: true)
    // No PipeWire cameras either (a user's session may have some): only the test camera is there.
    return ["HOME": folder.url.path, "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path, "PINHOLE_DEV_DIR": dev,
            "PINHOLE_PIPEWIRE": "0"]
}

@Suite("pinhole CLI", .serialized)
struct CLITests {
    @Test("--help lists the commands and the exit codes; bad arguments exit 2 with one line")
    func usage() throws {
        let help = try pinhole(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("devices") && help.stdout.contains("snap") && help.stdout.contains("4 access denied"))
        for (arguments, fragment) in [(["bogus"], "unknown command 'bogus'"), (["snap", "--format", "gif"], "--format must be jpeg, png or heif"),
                                      (["snap", "--quality", "0"], "--quality must be a whole number from 1 to 100"),
                                      (["snap", "--size", "huge"], "--size must be max or WIDTHxHEIGHT"), (["snap", "--what"], "unknown option '--what'"),
                                      (["snap", "--device"], "--device needs a value")] {
            let result = try pinhole(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(fragment), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        #expect(try pinhole(["snap", "--help"]).stdout.contains("--timer SECONDS"))
    }

    @Test("devices lists the test cameras as text and JSON")
    func devices() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let text = try pinhole(["devices"], environment: env)
        #expect(text.status == 0)
        #expect(text.stdout.contains("No camera found"))
        #expect(text.stdout.contains("Pinhole Test Camera (back) — back, virtual"))
        #expect(text.stdout.contains("YUYV: 640×480 (60, 30, 15 fps)"))
        let json = try pinhole(["devices", "--json"], environment: env)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(array.compactMap { $0["id"] as? String } == ["pinhole-test-camera-front", "pinhole-test-camera-back"])
        let formats = try #require(array[1]["formats"] as? [[String: Any]])
        #expect(formats.contains { ($0["pixelFormat"] as? String) == "MJPEG" && ($0["width"] as? Int) == 1920 })
        // The test cameras stream colour: not infrared, in the JSON and in the text.
        #expect(array.allSatisfy { ($0["infrared"] as? Bool) == false }, "\(array.map { $0["infrared"] ?? "missing" })")
        #expect(!text.stdout.contains("Infrared"))
    }

    @Test("snap saves into XDG_PICTURES_DIR/Camera with a dated name, at the largest size, and prints the path")
    func snapDefaultDestination() throws {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        try FileManager.default.createDirectory(atPath: env["XDG_CONFIG_HOME"]!, withIntermediateDirectories: true)
        try Data("XDG_PICTURES_DIR=\"$HOME/Bilder\"\n".utf8).write(to: URL(fileURLWithPath: env["XDG_CONFIG_HOME"]! + "/user-dirs.dirs"))
        env["TZ"] = "UTC"
        let result = try pinhole(["snap"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("using Pinhole's test camera"))
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix(folder.url.path + "/Bilder/Camera/Photo from "))
        #expect(path.range(of: #"Photo from \d{4}-\d\d-\d\d \d\d-\d\d-\d\d\.\d{3}\.jpg$"#, options: .regularExpression) != nil)
        let tags = try ExifTool.locate().tags(URL(fileURLWithPath: path))
        #expect(jsonNumber(tags["File:ImageWidth"]) == 3840 && jsonNumber(tags["File:ImageHeight"]) == 2160)
        #expect(jsonText(tags["EXIF:Model"]) == "Pinhole Test Camera (front)")
        #expect(jsonText(tags["EXIF:OffsetTimeOriginal"]) == "+00:00")
        // …and it is in the library, which the app and `pinhole library` share.
        let listed = try pinhole(["library", "list", "--json"], environment: env)
        let assets = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(assets.count == 1 && (assets[0]["path"] as? String) == path && (assets[0]["width"] as? Int) == 3840)
    }

    @Test("library: import, list, info, favorite, export, delete to the Trash, restore, verify — with exit codes")
    func library() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let image = try SyntheticImage.photoLike(width: 200, height: 100)
        let good = try folder.file("holiday.jpg", JPEGEncoder().encode(image)).path
        let junk = try folder.file("junk.png", Array(repeating: 7, count: 300)).path
        let imported = try pinhole(["library", "import", good, junk, good], environment: env)
        #expect(imported.status == 1, "one file failed: \(imported.stderr)")
        let lines = imported.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.count == 1)
        let id = lines[0][0], stored = lines[0][1]
        #expect(imported.stderr.contains("junk.png cannot be imported: it is not a JPEG, PNG, HEIF or WebP image"))
        #expect(imported.stderr.contains("is already in the library as \(stored)"))
        let info = try pinhole(["library", "info", id, "--json"], environment: env)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
        #expect((object["width"] as? Int) == 200 && (object["favorite"] as? Bool) == false)
        #expect(try pinhole(["library", "favorite", id], environment: env).status == 0)
        #expect(try pinhole(["library", "list", "--favorites"], environment: env).stdout.contains("★"))
        // No EXIF date: dated by the file's time, today.
        #expect(try pinhole(["library", "list", "--since", "2000-01-01"], environment: env).stdout.contains(id))
        #expect(try pinhole(["library", "list", "--since", "2999-01-01T10:00"], environment: env).stdout.isEmpty)
        #expect(try pinhole(["library", "list", "--since", "yesterday"], environment: env).status == 2)
        let exported = try pinhole(["library", "export", id, "--to", folder.path("out")], environment: env)
        #expect(exported.status == 0 && FileManager.default.fileExists(atPath: exported.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try pinhole(["library", "album", "create", "Trips"], environment: env).status == 0)
        #expect(try pinhole(["library", "album", "add", "Trips", id], environment: env).status == 0)
        #expect(try pinhole(["library", "albums"], environment: env).stdout == "Trips\t1\n")
        // The cover: the newest item until one is chosen.
        #expect(try pinhole(["library", "album", "cover", "Trips"], environment: env).stdout.hasPrefix(id + "\t"))
        #expect(try pinhole(["library", "album", "cover", "Trips", id], environment: env).status == 0)
        let unknownCover = try pinhole(["library", "album", "cover", "Trips", "nope"], environment: env)
        #expect(unknownCover.status != 0 && unknownCover.stderr.contains("nope"), "\(unknownCover.stderr)")
        #expect(try pinhole(["library", "list", "--album", "Trips"], environment: env).stdout.contains(id))
        let noAlbum = try pinhole(["library", "list", "--album", "Nope"], environment: env)
        #expect(noAlbum.status == 7 && noAlbum.stderr.contains("album 'Nope'"))
        // Album names: a taken one or a blank one says so (not "repair the index", not "cannot be imported"), renaming too.
        let twice = try pinhole(["library", "album", "create", "Trips"], environment: env)
        #expect(twice.status == 1 && twice.stderr == "pinhole: An album named 'Trips' exists already. Choose another name.\n", "\(twice.stderr)")
        let blank = try pinhole(["library", "album", "rename", "Trips", " "], environment: env)
        #expect(blank.status == 1 && blank.stderr == "pinhole: An album's name must be one line of text, not empty.\n", "\(blank.stderr)")
        #expect(try pinhole(["library", "album", "create", "Walks"], environment: env).status == 0)
        let taken = try pinhole(["library", "album", "rename", "Walks", "Trips"], environment: env)
        #expect(taken.status == 1 && taken.stderr.contains("exists already"), "\(taken.stderr)")
        #expect(try pinhole(["library", "album", "delete", "Walks"], environment: env).status == 0)
        #expect(try pinhole(["library", "albums"], environment: env).stdout == "Trips\t1\n")
        #expect(try pinhole(["library", "delete", id], environment: env).status == 0)
        #expect(try pinhole(["library", "list"], environment: env).stdout.isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder.path(".local/share/Trash/info/") + "/" + (stored as NSString).lastPathComponent + ".trashinfo"))
        let restored = try pinhole(["library", "restore", id], environment: env)
        #expect(restored.status == 0 && restored.stdout.contains(stored))
        let missing = try pinhole(["library", "info", "nope"], environment: env)
        #expect(missing.status == 7 && missing.stderr == "pinhole: No photo or video 'nope' in the library. List them with `pinhole library list`.\n")
        // A file dropped in by another program: verify reports it (exit 1), --repair adds it.
        try Data(JPEGEncoder().encode(image, quality: 50)).write(to: URL(fileURLWithPath: stored.replacingOccurrences(of: ".jpg", with: " copy.jpg")))
        let verify = try pinhole(["library", "verify"], environment: env)
        #expect(verify.status == 1 && verify.stdout.contains("1 files not in the index"), "\(verify.stdout)")
        let repair = try pinhole(["library", "verify", "--repair"], environment: env)
        #expect(repair.status == 0 && repair.stdout.contains("1 added"), "\(repair.stdout)")
        #expect(try pinhole(["library", "verify"], environment: env).status == 0)
        #expect(try pinhole(["library", "list"], environment: env).stdout.split(separator: "\n").count == 2)
    }

    @Test("library with videos: import into XDG_VIDEOS_DIR/Camera, list --type video with durations, thumbnails, a fake movie refused")
    func libraryVideos() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let movie = folder.path("clip.webm"), fake = try folder.file("fake.mp4", randomBytes(4096, seed: 2)).path
        try makeTestMovie(movie, seconds: 3, size: "320x240", codec: "vp9")
        let photo = try folder.file("p.jpg", JPEGEncoder().encode(SyntheticImage.photoLike(width: 200, height: 100))).path
        let imported = try pinhole(["library", "import", movie, photo, fake], environment: env)
        #expect(imported.status == 1 && imported.stderr.contains("fake.mp4 cannot be imported"), "\(imported.stderr)")
        #expect(imported.stderr.split(separator: "\n").count == 1)
        let listed = try pinhole(["library", "list", "--type", "video", "--json"], environment: env)
        let videos = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(videos.count == 1)
        #expect(videos.first?["type"] as? String == "video" && abs((videos.first?["duration"] as? Double ?? 0) - 3) < 0.1)
        let path = try #require(videos.first?["path"] as? String)
        #expect(path.hasPrefix(folder.path("Videos/Camera/Video from ")) && path.hasSuffix(".webm"), "\(path)")
        #expect(try pinhole(["library", "list", "--type", "video"], environment: env).stdout.contains("  0:03  "))
        #expect(try pinhole(["library", "list", "--type", "photo"], environment: env).stdout.split(separator: "\n").count == 1)
        // Thumbnails: both exist already at large (made at import); --size normal makes two.
        #expect(try pinhole(["library", "thumbnails"], environment: env).stdout == "thumbnails: 0 made\n")
        #expect(try pinhole(["library", "thumbnails", "--size", "normal"], environment: env).stdout == "thumbnails: 2 made\n")
        #expect(try pinhole(["library", "thumbnails", "--size", "huge"], environment: env).status == 2)
    }

    @Test("snap -o, --size, --format, --count: every photo is a new file, none overwritten")
    func snapOptions() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let target = folder.path("shot.png")
        let result = try pinhole(["snap", "--device", "test-back", "--size", "640x480", "--format", "png", "--count", "3", "--interval", "0.05", "-o", target], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let paths = result.stdout.split(separator: "\n").map(String.init)
        #expect(paths == [target, folder.path("shot (2).png"), folder.path("shot (3).png")])
        for path in paths {
            let check = try runTool("pngcheck", [path])
            #expect(check.status == 0 && check.stdout.contains("640x480"), "\(check.stdout)")
        }
        let intoFolder = try pinhole(["snap", "--device", "test-back", "--size", "1280x720", "-o", folder.url.path], environment: env)
        #expect(intoFolder.status == 0)
        #expect(intoFolder.stdout.hasPrefix(folder.url.path + "/Photo from "))
    }

    @Test("snap failures: unknown camera exits 3, unsupported size 1, unwritable folder 6 — one line each")
    func snapFailures() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let missing = try pinhole(["snap", "--device", "no-such-camera"], environment: env)
        #expect(missing.status == 3)
        #expect(missing.stderr == "pinhole: No camera 'no-such-camera'. List cameras with `pinhole devices`.\n")
        let size = try pinhole(["snap", "--device", "test-back", "--size", "123x45"], environment: env)
        #expect(size.status == 1)
        #expect(size.stderr.contains("123×45") && size.stderr.contains("640×480"))
        let readOnly = folder.path("locked")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: readOnly)
        let unwritable = try pinhole(["snap", "--device", "test-back", "--size", "640x480", "-o", readOnly + "/x.jpg"], environment: env, asUser: 65534)
        #expect(unwritable.status == 6, "\(unwritable.stderr)")
        #expect(unwritable.stderr.contains("Cannot save") && unwritable.stderr.contains("permission denied"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: readOnly).isEmpty)
    }

    @Test("a camera node the user may not open: exit 4 with the group to join")
    func accessDenied() throws {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        // A root-only character device named video0, owned by group 'video' (like a real node without the user's membership).
        let node = env["PINHOLE_DEV_DIR"]! + "/video0"
        let made = try runTool("mknod", ["-m", "660", node, "c", "1", "3"])
        try #require(made.status == 0, "\(made.stderr)")
        _ = try runTool("chgrp", ["video", node])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        env["HOME"] = folder.url.path
        let result = try pinhole(["snap", "-o", folder.path("x.jpg")], environment: env, asUser: 65534)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("Camera access denied for \(node)"))
        #expect(result.stderr.contains("sudo usermod -aG video $USER"))
        let listing = try pinhole(["devices"], environment: env, asUser: 65534)
        #expect(listing.stdout.contains("Access: denied"))
    }
}

@Suite("pinhole library under faults", .serialized)
struct LibraryFaultTests {
    /// `count` distinct small JPEGs in `folder`.
    func photos(_ count: Int, in folder: TemporaryDirectory, prefix: String) throws -> [String] {
        try (0..<count).map { index in
            let image = try SyntheticImage.photoLike(width: 64, height: 48, seed: UInt64(index + 1) &* 7919 &+ UInt64(prefix.utf8.first ?? 0))
            return try folder.file("\(prefix)-\(index).jpg", JPEGEncoder().encode(image, quality: 80)).path
        }
    }

    @Test("two processes importing 200 files each at the same time: 400 assets, 400 files, a sound index")
    func concurrentProcesses() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let a = try photos(200, in: folder, prefix: "a"), b = try photos(200, in: folder, prefix: "b")
        let binary = pinholeBinary
        let first = try BackgroundProcess([binary, "library", "import"] + a, environment: env)
        let second = try BackgroundProcess([binary, "library", "import"] + b, environment: env)
        let statuses = (first.waitForExit(seconds: 120), second.waitForExit(seconds: 120))
        #expect(statuses.0 == 0 && statuses.1 == 0, "\(first.errors) \(second.errors)")
        let camera = folder.path("Pictures/Camera")
        #expect(try FileManager.default.contentsOfDirectory(atPath: camera).filter { !$0.hasPrefix(".") }.count == 400)
        let index = folder.path(".local/share/pinhole/library.sqlite3")
        let count = try runTool("sqlite3", [index, "SELECT COUNT(*), COUNT(DISTINCT path) FROM assets"])
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "400|400")
        #expect(try runTool("sqlite3", [index, "PRAGMA integrity_check"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
    }

    @Test("two processes importing the same 80 files at the same time: one asset and one file per photo, the other reported as a duplicate")
    func duplicateRace() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let files = try photos(80, in: folder, prefix: "d")
        let first = try BackgroundProcess([pinholeBinary, "library", "import"] + files, environment: env)
        let second = try BackgroundProcess([pinholeBinary, "library", "import"] + files, environment: env)
        let statuses = (first.waitForExit(seconds: 120), second.waitForExit(seconds: 120))
        #expect(statuses.0 == 0 && statuses.1 == 0, "a duplicate is not a failure: \(first.errors) \(second.errors)")
        let imported = (first.output + second.output).split(separator: "\n")
        let duplicates = (first.errors + second.errors).split(separator: "\n").filter { $0.contains("is already in the library as") }
        #expect(imported.count == 80 && duplicates.count == 80, "\(imported.count) imported, \(duplicates.count) duplicates")
        let camera = folder.path("Pictures/Camera")
        #expect(try FileManager.default.contentsOfDirectory(atPath: camera).filter { !$0.hasPrefix(".") }.count == 80, "the loser's files are removed")
        let index = folder.path(".local/share/pinhole/library.sqlite3")
        let count = try runTool("sqlite3", [index, "SELECT COUNT(*), COUNT(DISTINCT path), COUNT(DISTINCT substr(id, 1, 17)) FROM assets"])
        #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "80|80|80")
        #expect(try runTool("sqlite3", [index, "SELECT COUNT(*) FROM assets WHERE id LIKE '%-%-%'"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "no suffixed identifier: no second copy")
    }

    @Test("SIGKILL at each step of saving, in the middle of a batch: every asset complete or absent, verify clean, integrity ok",
          arguments: ["file-written", "file-linked", "row-committed"])
    func killedImport(point: String) throws {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        let files = try photos(30, in: folder, prefix: "k")
        env["PINHOLE_CRASH_AT"] = point + ":12"
        let crashed = try pinhole(["library", "import"] + files, environment: env)
        #expect(crashed.status == 128 + 9, "killed by SIGKILL at \(point): \(crashed.status)")
        let imported = crashed.stdout.split(separator: "\n").count
        #expect(imported == 11, "11 imports finished before the crash, saw \(imported)")
        env["PINHOLE_CRASH_AT"] = nil
        let camera = folder.path("Pictures/Camera")
        // Reopening (verify) removes the dead writer's temporary file; a linked file without its
        // row is complete and is what --repair adds.
        let verify = try pinhole(["library", "verify"], environment: env)
        #expect(verify.stdout.contains("0 rows without a file"), "\(verify.stdout)")
        #expect(verify.stdout.contains(point == "file-linked" ? "1 files not in the index" : "0 files not in the index"), "\(verify.stdout)")
        #expect(try pinhole(["library", "verify", "--repair"], environment: env).status == 0)
        let after = try FileManager.default.contentsOfDirectory(atPath: camera)
        #expect(!after.contains { $0.hasPrefix(".") }, "leftover temporary files: \(after.filter { $0.hasPrefix(".") })")
        #expect(after.count == (point == "file-written" ? 11 : 12))
        for name in after {
            let check = try runTool("exiftool", ["-q", "-q", "-validate", "-warning", camera + "/" + name])
            #expect(check.status == 0, "\(name) is damaged: \(check.stdout) \(check.stderr)")
        }
        let index = folder.path(".local/share/pinhole/library.sqlite3")
        #expect(try runTool("sqlite3", [index, "PRAGMA integrity_check"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
        #expect(try runTool("sqlite3", [index, "SELECT COUNT(*) FROM assets"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(after.count))
        // The crashed batch can simply be run again: what is already in is reported, the rest added.
        let rerun = try pinhole(["library", "import"] + files, environment: env)
        #expect(rerun.status == 0 && rerun.stdout.split(separator: "\n").count == 30 - after.count, "\(rerun.stderr)")
    }

    @Test("a file name that is not UTF-8 (Latin-1 'café.jpg') is imported; a missing one is refused (exit 2) with U+FFFD in the message")
    func nonUTF8Names() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let image = try JPEGEncoder().encode(SyntheticImage.photoLike(width: 80, height: 60))
        // Swift strings cannot hold the byte 0xE9 alone: the shell's printf makes the names.
        let source = try folder.file("source.jpg", image).path
        let imported = try spawn(["/bin/sh", "-c", #"cd "$1" && cp "$2" "$(printf 'caf\351.jpg')" && exec "$3" library import "$(printf 'caf\351.jpg')""#,
                                  "sh", folder.url.path, source, pinholeBinary], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.split(separator: "\n").count == 1 && imported.stdout.contains("Pictures/Camera/Photo from "), "\(imported.stdout)")
        let missing = try spawn(["/bin/sh", "-c", #"cd "$1" && exec "$2" library import "$(printf 'gone\351.jpg')""#,
                                 "sh", folder.url.path, pinholeBinary], environment: env)
        #expect(missing.status == 2, "\(missing.stderr)")
        #expect(missing.stderr == "pinhole: argument 'gone\u{FFFD}.jpg' is not valid UTF-8 and names no existing file; use a UTF-8 name. See `pinhole --help`.\n", "\(missing.stderr)")
    }

    @Test("awkward files: a newline in the name, a symlink loop, no read permission, a read-only library")
    func awkwardFiles() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let image = try JPEGEncoder().encode(SyntheticImage.photoLike(width: 80, height: 60))
        let newline = try folder.file("two\nlines.jpg", image).path
        let imported = try pinhole(["library", "import", newline], environment: env)
        #expect(imported.status == 0 && imported.stdout.contains("Photo from "), "\(imported.stderr)")
        let loop = folder.path("loop.jpg")
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: loop)
        let looped = try pinhole(["library", "import", loop], environment: env)
        #expect(looped.status == 1 && looped.stderr.contains("loop.jpg cannot be imported") && looped.stderr.split(separator: "\n").count == 1, "\(looped.stderr)")
        // As an ordinary user: a file without read permission, and a library folder that cannot be written.
        let secret = try folder.file("secret.jpg", JPEGEncoder().encode(SyntheticImage.photoLike(width: 80, height: 60, seed: 2)))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        let userHome = folder.path("user")
        try FileManager.default.createDirectory(atPath: userHome, withIntermediateDirectories: true)
        _ = try runTool("chown", ["65534:65534", userHome])
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        let userEnv = env.merging(["HOME": userHome, "XDG_CONFIG_HOME": userHome + "/.config"]) { $1 }
        let unreadable = try pinhole(["library", "import", secret.path], environment: userEnv, asUser: 65534)
        #expect(unreadable.status == 1 && unreadable.stderr.contains("permission denied") || unreadable.stderr.contains("Permission denied"), "\(unreadable.stderr)")
        let locked = folder.path("locked-library")
        try FileManager.default.createDirectory(atPath: locked + "/Photos", withIntermediateDirectories: true)
        let readOnly = try pinhole(["library", "list"], environment: userEnv.merging(["PINHOLE_LIBRARY": locked]) { $1 }, asUser: 65534)
        #expect(readOnly.status == 4 && readOnly.stderr.contains("cannot be used") && readOnly.stderr.contains("permissions"), "\(readOnly.stderr)")
    }

    @Test("a full disk: a clear error and exit 6, no partial file, no dangling row")
    func fullDisk() throws {
        let folder = try TemporaryDirectory()
        var env = try isolatedEnvironment(folder)
        let disk = try SmallDisk(at: folder.path("small"), size: "256k")
        defer { disk.unmount() }
        let mountPoint = disk.path
        env["PINHOLE_LIBRARY"] = mountPoint + "/library"
        let big = try folder.file("big.png", PNGCodec.encode(SyntheticImage.photoLike(width: 600, height: 400), compression: .fast)).path
        let result = try pinhole(["library", "import", big], environment: env)
        #expect(result.status == 6, "\(result.stderr)")
        #expect(result.stderr.contains("the disk is full") && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/library/Photos").isEmpty)
        let index = mountPoint + "/library/library.sqlite3"
        #expect(try runTool("sqlite3", [index, "SELECT COUNT(*) FROM assets"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }
}
