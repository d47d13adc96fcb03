import Foundation
import Glibc
import Media
import Testing
import TestSupport

@Suite("File failures")
struct FileFailureTests {
    @Test("errno becomes a case callers match, kept in MediaError.io; its words are one short line")
    func errnoCases() throws {
        let expected: [(Int32, FileFailure)] = [
            (ENOSPC, .diskFull), (EDQUOT, .quotaExceeded), (EACCES, .permissionDenied), (EPERM, .permissionDenied),
            (EROFS, .readOnly), (ENOENT, .notFound), (ENOTDIR, .notAFolder), (EEXIST, .exists), (EIO, .system(errno: EIO)),
        ]
        for (code, failure) in expected {
            #expect(FileFailure(errno: code) == failure)
            #expect(!failure.description.isEmpty && !failure.description.contains("\n"))
        }
        #expect(FileFailure.diskFull.isOutOfSpace && FileFailure.quotaExceeded.isOutOfSpace && !FileFailure.permissionDenied.isOutOfSpace)
        let folder = try TemporaryDirectory()
        let plain = try folder.file("plain", [1]).path
        #expect(throws: MediaError.io(path: plain + "/x.jpg", failure: .notAFolder)) {
            try AtomicFile.write([1, 2, 3], to: plain + "/x.jpg", createFolders: false)
        }
        #expect(throws: MediaError.io(path: folder.path("missing.bin"), failure: .notFound)) { try FileBytes.read(path: folder.path("missing.bin")) }
        #expect(throws: MediaError.io(path: folder.url.path, failure: .notRegularFile)) { try FileBytes.read(path: folder.url.path) }
        #expect(throws: MediaError.io(path: plain, failure: .tooLarge(size: 1, limit: 0))) { try FileBytes.read(path: plain, limit: 0) }
    }

    @Test("a full disk is .diskFull, wherever the write fails")
    func fullDisk() throws {
        let folder = try TemporaryDirectory()
        let disk = try SmallDisk(at: folder.path("small"), size: "64k")
        defer { disk.unmount() }
        let mountPoint = disk.path
        #expect(throws: MediaError.io(path: mountPoint + "/big.bin", failure: .diskFull)) {
            try AtomicFile.write([UInt8](repeating: 7, count: 256 << 10), to: mountPoint + "/big.bin")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint).isEmpty, "no temporary file left")
    }
}
