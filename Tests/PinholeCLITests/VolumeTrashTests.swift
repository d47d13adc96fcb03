import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// What a `.trashinfo` says its file's `Path` was, percent-decoded by Python (not our parser).
private func trashedPath(_ info: String) throws -> String {
    let script = "import sys, urllib.parse\nfor line in open(sys.argv[1], encoding='utf-8'):\n    if line.startswith('Path='): print(urllib.parse.unquote(line[5:].strip()))"
    return try runTool("/usr/bin/python3", ["-c", script, info]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
}

@Suite("The Trash when Pictures is on a file system of its own", .serialized)
struct VolumeTrashTests {
    @Test("delete moves a photo to its volume's .Trash-UID with a Path relative to the volume (or to .Trash/UID when an administrator made .Trash sticky, never through a symlink); restore brings it back")
    func perVolumeTrash() throws {
        let folder = try TemporaryDirectory()
        let env = try isolatedEnvironment(folder)
        let disk = try SmallDisk(at: folder.path("Pictures"), size: "16m")
        defer { disk.unmount() }
        let files = try (0..<3).map { index in
            try folder.file("v-\(index).jpg", JPEGEncoder().encode(SyntheticImage.photoLike(width: 64, height: 48, seed: UInt64(400 + index)), quality: 80)).path
        }
        let imported = try pinhole(["library", "import"] + files, environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        let rows = imported.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        try #require(rows.count == 3 && rows.allSatisfy { $0.count == 2 })
        let uid = getuid()

        func deleteAndRestore(_ row: [String], trash: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (id, path) = (row[0], row[1])
            let name = (path as NSString).lastPathComponent
            let bytes = try FileBytes.read(path: path)
            let deleted = try pinhole(["library", "delete", id], environment: env)
            #expect(deleted.status == 0, "\(deleted.stderr)", sourceLocation: sourceLocation)
            #expect((try? FileBytes.read(path: trash + "/files/" + name)) == bytes, "in \(trash)", sourceLocation: sourceLocation)
            #expect(try trashedPath(trash + "/info/" + name + ".trashinfo") == "Camera/" + name, "relative to the volume", sourceLocation: sourceLocation)
            #expect(!FileManager.default.fileExists(atPath: path), sourceLocation: sourceLocation)
            let homeTrash = folder.path(".local/share/Trash/files")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: homeTrash)) ?? []).isEmpty, sourceLocation: sourceLocation)
            let restored = try pinhole(["library", "restore", id], environment: env)
            #expect(restored.status == 0 && restored.stdout == "\(id)\t\(path)\n", "\(restored.stderr)", sourceLocation: sourceLocation)
            #expect((try? FileBytes.read(path: path)) == bytes, sourceLocation: sourceLocation)
            #expect(try FileManager.default.contentsOfDirectory(atPath: trash + "/files").isEmpty, sourceLocation: sourceLocation)
            #expect(try FileManager.default.contentsOfDirectory(atPath: trash + "/info").isEmpty, sourceLocation: sourceLocation)
        }

        try deleteAndRestore(rows[0], trash: disk.path + "/.Trash-\(uid)")
        var info = stat()
        #expect(lstat(disk.path + "/.Trash-\(uid)", &info) == 0 && info.st_mode & 0o7777 == 0o700, "made private to the user")

        // A .Trash that is a symbolic link is never used (the spec's check): still .Trash-UID.
        let elsewhere = folder.path("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        #expect(chmod(elsewhere, 0o1777) == 0 && symlink(elsewhere, disk.path + "/.Trash") == 0)
        try deleteAndRestore(rows[1], trash: disk.path + "/.Trash-\(uid)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

        // An administrator's .Trash with the sticky bit: the user's folder in it.
        #expect(unlink(disk.path + "/.Trash") == 0 && mkdir(disk.path + "/.Trash", 0o777) == 0 && chmod(disk.path + "/.Trash", 0o1777) == 0)
        try deleteAndRestore(rows[2], trash: disk.path + "/.Trash/\(uid)")
    }
}
