import Foundation
import Glibc
import Media
import PhotoLibrary
import Testing
import TestSupport

@Suite("Temporary files in the library's folders")
struct LeftoverTests {
    @Test("opening the library removes only its own abandoned temporary files: other programs' hidden *.tmp files stay, and so does one whose writer still holds its lock")
    func onlyOwnLeftovers() async throws {
        let folder = try TemporaryDirectory()
        let location = LibraryLocation(folder: folder.path("lib"), trash: folder.path("Trash"), thumbnails: folder.path("thumbs"))
        _ = try await PhotoLibrary(location: location)
        let bytes = try jpeg(hour: 9, minute: 0, seed: 231)
        // Other programs' files in flight: Syncthing's, a download's, and one named as Pinhole
        // named its own before (a dead process's ID in it proves nothing: IDs are reused).
        let others = [location.photos + "/.syncthing.IMG_0001.jpg.tmp", location.photos + "/.partial.tmp",
                      location.videos + "/.clip.mp4.424242.0.tmp", location.photos + "/.IMG_0002.jpg.999999.0.tmp"]
        for path in others { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
        // Pinhole's own: one a crashed writer left (no lock held), one a live writer holds.
        let abandoned = location.photos + "/.Photo from x.jpg.pinhole-999999-0.tmp"
        let live = location.photos + "/.Photo from y.jpg.pinhole-\(getpid())-0.tmp"
        for path in [abandoned, live] { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
        let writer = open(live, O_RDWR | O_CLOEXEC)
        try #require(writer >= 0 && flock(writer, LOCK_EX) == 0)

        _ = try await PhotoLibrary(location: location)
        for path in others { #expect(FileManager.default.fileExists(atPath: path), "another program's \(path) was deleted") }
        #expect(try FileBytes.read(path: others[0]) == bytes)
        #expect(!FileManager.default.fileExists(atPath: abandoned), "a crash's leftover is removed")
        #expect(FileManager.default.fileExists(atPath: live), "a file its writer still holds is left alone")

        close(writer)
        _ = try await PhotoLibrary(location: location)
        #expect(!FileManager.default.fileExists(atPath: live), "once its writer is gone, it is a leftover")
        for path in others { #expect(FileManager.default.fileExists(atPath: path)) }
    }
}
