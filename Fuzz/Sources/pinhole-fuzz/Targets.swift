@testable import Capture
import CV4L2
import Glibc
@testable import Media
@testable import PhotoLibrary
import Synchronization

/// One place where Pinhole reads bytes it did not write, and how one input goes through it.
/// A target crashes (and so reports) only on a crash, a hang, a sanitizer's finding, or a broken
/// promise checked here (`expect`); errors thrown for bad input are the right answer.
struct FuzzTarget: Sendable {
    /// The name scripts/fuzz and PINHOLE_FUZZ_TARGET use (also its corpus folder's).
    let name: String
    /// What it reads, for `scripts/fuzz --list`.
    let summary: String
    /// Reads one input.
    let run: @Sendable ([UInt8]) -> Void

    /// Pictures larger than this are refused before decoding: a crafted header may declare any
    /// size, and decoding a 268-megapixel picture (the library's own limit) takes seconds and a
    /// gigabyte, which libFuzzer would report as a timeout or out-of-memory for no fault.
    static let pixelLimit = 4_000_000

    /// Stops the run, saying which promise `input` broke (libFuzzer keeps the input).
    static func expect(_ condition: Bool, _ promise: @autoclosure () -> String) {
        guard !condition else { return }
        say("pinhole-fuzz: broken promise: \(promise())")
        abort()
    }

    /// Every target, in `scripts/fuzz`'s order.
    static let all: [FuzzTarget] = [jpeg, segments, exif, location, png, webp, heif, thumbnail, chunks, movie, trashinfo, userdirs, positions, v4l2]

    /// JPEG headers and decoding (photos, MJPEG frames): TurboJPEG behind Pinhole's checks.
    static let jpeg = FuzzTarget(name: "jpeg", summary: "JPEGDecoder.info and decode (at the smallest scale that fits 64 px), JPEGBytes.looksComplete") { bytes in
        _ = bytes.withUnsafeBytes { JPEGBytes.looksComplete($0) }
        let decoder = JPEGDecoder(maximumPixels: pixelLimit)
        guard let info = try? decoder.info(bytes) else { return }
        expect(info.width > 0 && info.height > 0, "JPEG info with an empty size: \(info)")
        let scale = JPEGScale.smallest(forLongestSide: max(info.width, info.height), atLeast: 64)
        if let picture = try? decoder.decode(bytes, to: .bgra, scale: scale) {
            expect(picture.width == scale.scaled(info.width) && picture.height == scale.scaled(info.height),
                   "decoded \(picture.width)×\(picture.height), info said \(info.width)×\(info.height) at 1/\(8 / scale.rawValue)")
        }
    }

    /// The JPEG header's segment walk and EXIF in it, as saving a photo with its metadata does:
    /// every segment lies inside the file, in order; EXIF inserted reads back as written, and
    /// the rest of the file is kept.
    static let segments = FuzzTarget(name: "segments", summary: "JPEGSegment.header, JPEGExif.metadata and inserting(_:into:) read back") { bytes in
        guard let header = try? JPEGSegment.header(of: bytes) else { return }
        var end = 2
        for segment in header {
            expect(segment.start >= end && segment.payload.lowerBound > segment.start && segment.payload.upperBound <= bytes.count,
                   "segment FF \(segment.marker) at \(segment.start), payload \(segment.payload), after \(end), in \(bytes.count) bytes")
            end = segment.end
        }
        _ = try? JPEGExif.metadata(in: bytes)
        var written = ExifMetadata()
        written.make = "Fuzz"
        written.location = ExifLocation(latitude: 48.8577, longitude: 2.295)
        guard let with = try? JPEGExif.inserting(written, into: bytes) else { return }
        let read = Result { () throws(MediaError) in try JPEGExif.metadata(in: with) }
        expect((try? read.get()).flatMap { $0 }.map { sameReading($0, written) } ?? false, "EXIF inserted reads back as \(read)")
        expect(with.count >= bytes.count - header.filter { $0.isExif(in: bytes) }.reduce(0) { $0 + $1.end - $1.start }, "inserting EXIF lost bytes")
    }

    /// The EXIF reader on a TIFF block (the payload of APP1, eXIf, an EXIF chunk or item): what it
    /// reads, written back, reads the same.
    static let exif = FuzzTarget(name: "exif", summary: "ExifMetadata(exifPayload:) (TIFF layout, IFDs, GPS), and its encoding read back") { bytes in
        guard let metadata = try? ExifMetadata(exifPayload: bytes) else { return }
        guard let encoded = try? metadata.encoded() else { return }
        let again = try? ExifMetadata(exifPayload: encoded)
        expect(again.map { sameReading($0, metadata) } ?? false, "EXIF written back reads differently: \(metadata) → \(String(describing: again))")
    }

    /// Whether two readings of EXIF agree: exactly, but for a location's numbers, which EXIF keeps
    /// as rationals (within a millionth of a degree, about 0.1 m, and a millimetre of altitude).
    static func sameReading(_ a: ExifMetadata, _ b: ExifMetadata) -> Bool {
        var a = a, b = b
        guard let one = a.location, let other = b.location else { return a == b }
        let close = abs(one.latitude - other.latitude) < 1e-6 && abs(one.longitude - other.longitude) < 1e-6
            && (one.altitude == nil) == (other.altitude == nil) && abs((one.altitude ?? 0) - (other.altitude ?? 0)) < 1e-3
            && one.timestamp == other.timestamp
        a.location = nil
        b.location = nil
        return close && a == b
    }

    /// Location removal from photos (JPEG, PNG, WebP, HEIF), as sharing does: what comes out has
    /// no location left and is still a picture of the same kind.
    static let location = FuzzTarget(name: "location", summary: "LocationRemoval.containsLocation and removingLocation (JPEG, PNG, WebP, HEIF)") { bytes in
        _ = try? LocationRemoval.containsLocation(in: bytes)
        guard let cleaned = try? LocationRemoval.removingLocation(from: bytes) else { return }
        let left = Result { () throws(MediaError) in try LocationRemoval.containsLocation(in: cleaned) }
        if case .success(true) = left { expect(false, "a location is left after removal") }
        expect(ImageKind(sniffing: cleaned) == ImageKind(sniffing: bytes), "removal changed the kind of file")
    }

    /// PNG headers and decoding (libpng behind Pinhole's checks).
    static let png = FuzzTarget(name: "png", summary: "PNGCodec.info and decode") { bytes in
        guard let info = try? PNGCodec.info(bytes) else { return }
        if let picture = try? PNGCodec.decode(bytes, to: .bgra, maximumPixels: pixelLimit) {
            expect(picture.width == info.width && picture.height == info.height, "decoded \(picture.width)×\(picture.height), info said \(info)")
        }
    }

    /// WebP headers and decoding (libwebp), full size and scaled.
    static let webp = FuzzTarget(name: "webp", summary: "WebPCodec.info and decode, full size and fitting 64 px") { bytes in
        guard let info = try? WebPCodec.info(bytes) else { return }
        if let picture = try? WebPCodec.decode(bytes, maximumPixels: pixelLimit) {
            expect(picture.width == info.width && picture.height == info.height, "decoded \(picture.width)×\(picture.height), info said \(info)")
        }
        _ = try? WebPCodec.decode(bytes, fittingLongestSide: 64, maximumPixels: pixelLimit)
    }

    /// HEIF size, EXIF item and decoding (libheif).
    static let heif = FuzzTarget(name: "heif", summary: "HEIFCodec.size, exifPayload and decode") { bytes in
        guard (try? HEIFCodec.size(bytes)) != nil else { return }
        if let payload = try? HEIFCodec.exifPayload(bytes) { _ = try? ExifMetadata(exifPayload: payload) }
        _ = try? HEIFCodec.decode(bytes, to: .bgra, maximumPixels: pixelLimit)
    }

    /// What the library does with any picture it is given: sniff, EXIF, a 256-px thumbnail.
    static let thumbnail = FuzzTarget(name: "thumbnail", summary: "ImageKind sniffing, Thumbnailer.exifMetadata and thumbnail(of:longestSide: 256)") { bytes in
        guard let kind = ImageKind(sniffing: bytes) else { return }
        _ = Thumbnailer.exifMetadata(in: bytes, kind: kind)
        // The thumbnailer decodes within the library's own limit: only pictures this run can
        // decode quickly go on (the decoders' own targets cover the rest).
        let size: (width: Int, height: Int)? = switch kind {
        case .jpeg: (try? JPEGDecoder().info(bytes)).map { ($0.width, $0.height) }
        case .png: (try? PNGCodec.info(bytes)).map { ($0.width, $0.height) }
        case .webp: (try? WebPCodec.info(bytes)).map { ($0.width, $0.height) }
        case .heif: try? HEIFCodec.size(bytes)
        }
        guard let size, size.width * size.height <= pixelLimit else { return }
        if let thumbnail = try? Thumbnailer().thumbnail(of: bytes, longestSide: 256) {
            expect(max(thumbnail.width, thumbnail.height) <= 256 && thumbnail.width > 0 && thumbnail.height > 0,
                   "a \(thumbnail.width)×\(thumbnail.height) thumbnail for 256 px")
        }
    }

    /// The PNG and RIFF (WebP) chunk walks: every chunk they report lies inside the file.
    static let chunks = FuzzTarget(name: "chunks", summary: "Chunks.png and Chunks.webp: each chunk reported lies inside the file") { bytes in
        for walk in [Chunks.png, Chunks.webp] {
            _ = walk(bytes) { type, range in
                expect(range.lowerBound >= 0 && range.upperBound <= bytes.count && !range.isEmpty || range.isEmpty,
                       "chunk \(type) at \(range) in \(bytes.count) bytes")
                return true
            }
        }
    }

    /// Movies: FFmpeg's probe behind Pinhole's checks, the first frame, and finishing a recording
    /// that was cut off (which rewrites the file in place).
    static let movie = FuzzTarget(name: "movie", summary: "MovieFile (probe, first frame) and MovieRecovery.finishIfAbandoned on a file of the input") { bytes in
        let path = scratchPath()
        guard write(bytes, to: path) else { return }
        defer { unlink(path) }
        if let movie = try? MovieFile(path: path) {
            _ = try? movie.firstFrame(longestSide: 64)
        }
        if let outcome = try? MovieRecovery.finishIfAbandoned(path: path), outcome == .finished {
            _ = try? MovieFile(path: path)
        }
    }

    /// The freedesktop Trash's info files (another program's, on any volume): what comes back
    /// names an absolute path, and a volume's relative one never climbs out of the volume.
    static let trashinfo = FuzzTarget(name: "trashinfo", summary: "Trash.entry(info:topdir:): the .trashinfo reader, for the home trash and a volume's") { bytes in
        _ = Trash.entry(info: bytes, topdir: nil).map { entry in
            expect(entry.originalPath.hasPrefix("/"), "home trash entry \(entry.originalPath) is not absolute")
        }
        _ = Trash.entry(info: bytes, topdir: "/media/usb").map { entry in
            expect(entry.originalPath.hasPrefix("/"), "volume trash entry \(entry.originalPath) is not absolute")
            if entry.originalPath.hasPrefix("/media/usb/") {
                let inside = entry.originalPath.dropFirst("/media/usb/".count)
                let said = Trash.entry(info: bytes, topdir: nil)
                expect(said != nil || !inside.split(separator: "/").contains(".."), "volume trash entry \(entry.originalPath) climbs out")
            }
        }
    }

    /// `user-dirs.dirs` (the user's, written by xdg-user-dirs or by hand): the folders found are
    /// absolute and never the home folder itself.
    static let userdirs = FuzzTarget(name: "userdirs", summary: "UserDirectories.directory(_:in:home:): user-dirs.dirs entries") { bytes in
        for name in ["XDG_PICTURES_DIR", "XDG_VIDEOS_DIR"] {
            if let folder = UserDirectories.directory(name, in: bytes, home: "/home/user") {
                expect(folder.hasPrefix("/") && folder != "/home/user" && folder != "/home/user/", "\(name) gave \(folder)")
            }
        }
    }

    /// The camera-positions overrides file (the user's, edited by hand).
    static let positions = FuzzTarget(name: "positions", summary: "PositionOverrides.position(for:in:): camera-positions lines") { bytes in
        for id in ["usb-0000:00:14.0-1", "", "#", "="] { _ = PositionOverrides.position(for: id, in: bytes) }
    }

    /// A camera whose driver says anything: what the node's description (formats, sizes, rates,
    /// controls and menus) and a session's configure and start make of a driver's answers, each
    /// ioctl answered from the input (`ScriptedDriver`). Formats listed have sizes a picture can
    /// have and positive rates; nothing traps.
    static let v4l2 = FuzzTarget(name: "v4l2", summary: "DeviceScanner.describe, V4L2Backend.configure and start over a driver answering from the input") { bytes in
        let script = ScriptedDriver(bytes)
        guard let device = try? V4L2Device(path: "/dev/null", driver: script.driver) else { return }
        guard let described = DeviceScanner.describe(device, path: "/dev/video-fuzz") else { return }
        for format in described.formats {
            let size = format.dimensions
            expect(DeviceScanner.plausibleSides.contains(size.width) && DeviceScanner.plausibleSides.contains(size.height), "a listed format of \(size)")
            expect(format.frameIntervals.allSatisfy { $0.numerator > 0 && $0.denominator > 0 }, "a listed rate of \(format.frameIntervals)")
            _ = format.frameIntervals.map(\.description)
        }
        for control in described.controls { expect(control.menu.count <= 256, "a menu of \(control.menu.count) entries") }
        guard let format = described.formats.first, let interval = format.frameIntervals.first,
              let backend = try? V4L2Backend(device: device, name: "fuzz") else { return }
        let request = StreamConfiguration(pixelFormat: format.pixelFormat, width: format.dimensions.width, height: format.dimensions.height,
                                          frameInterval: interval)
        if let set = try? backend.configure(request) {
            expect(set.width == request.width && set.height == request.height && set.pixelFormat == request.pixelFormat, "configured \(set) for \(request)")
            try? backend.start()
            backend.stop()
        }
    }

    /// A file of this process's own in TMPDIR for inputs that must be files.
    static func scratchPath() -> String {
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        return "\(folder)/pinhole-fuzz-\(getpid()).mp4"
    }

    /// Writes `bytes` to a new file at `path`.
    static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }
}

/// A V4L2 driver that answers every ioctl from a fuzz input, in order: one byte says how (`% 8`:
/// 0 fails with EINVAL, 1 with EIO, anything else succeeds; its top bit keeps the first eight
/// bytes the caller filled in, as a driver echoes an index and a type), then as many bytes as
/// the request's argument has (its size is in the request number) overwrite it. When the input
/// runs out, every request fails with EINVAL, which ends each enumeration.
final class ScriptedDriver: Sendable {
    /// The input and how far the answers have read it.
    private let script: Mutex<(bytes: [UInt8], position: Int)>

    /// A driver answering from `bytes`.
    init(_ bytes: [UInt8]) {
        script = Mutex((bytes, 0))
    }

    /// The driver, for `V4L2Device(path:driver:)`.
    var driver: V4L2Driver {
        V4L2Driver { [self] _, request, argument in answer(request, argument) }
    }

    /// Answers one ioctl.
    private func answer(_ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32 {
        script.withLock { state -> Int32 in
            guard state.position < state.bytes.count else {
                errno = EINVAL
                return -1
            }
            let verdict = state.bytes[state.position]
            state.position += 1
            switch verdict % 8 {
            case 0: errno = EINVAL; return -1
            case 1: errno = EIO; return -1
            default: break
            }
            let size = Int((request >> 16) & 0x3FFF)
            let kept = verdict & 0x80 != 0 ? min(8, size) : 0
            let count = min(size - kept, state.bytes.count - state.position)
            state.bytes.withUnsafeBytes { input in
                (argument + kept).copyMemory(from: input.baseAddress! + state.position, byteCount: count)
            }
            state.position += count
            return 0
        }
    }
}
