import Foundation
import Testing

/// The two choke points for untrusted input, kept so by reading the sources: every file a user or
/// another program chose is opened through `RegularFile` (never blocking, regular files only),
/// and every size, offset or count read out of a file goes through `UntrustedBytes` (checked
/// arithmetic). A new `open(…, O_…)`, `fopen`, `Data(contentsOf:)`, `avformat_open_input` on a
/// path, `pread` or integer assembled from indexed bytes anywhere else fails here, naming the
/// file and line; the few that are right where they are are listed with the reason.
@Suite struct ChokePointTests {
    /// One rule: a pattern that may appear only in `home` or on the allowed lines.
    struct Rule {
        /// What the rule keeps in one place.
        let name: String
        /// The file the pattern belongs in.
        let home: String
        /// The regular expression of a bypass.
        let pattern: String
        /// Allowed lines: (file, a fragment of the line, why it is right there).
        let allowed: [(file: String, fragment: String, reason: String)]
    }

    /// The source tree: $PINHOLE_REPO, else three folders above this file.
    static var repository: String {
        ProcessInfo.processInfo.environment["PINHOLE_REPO"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    static let opening = Rule(
        name: "paths are opened for reading only through RegularFile (Sources/Media/Files/RegularFile.swift)",
        home: "Sources/Media/Files/RegularFile.swift",
        pattern: #"\bopen\([^\n]*\bO_[A-Z]|\bfopen\(|Data\(contentsOf|contents\(atPath|String\(contentsOf|FileHandle\(forReading|avformat_open_input\((?![^\n]*descriptorPath)"#,
        allowed: [
            ("Sources/Media/Files/AtomicFile.swift", "O_WRONLY | O_CREAT | O_EXCL", "creates its own temporary file (O_EXCL: never an existing one)"),
            ("Sources/Media/Files/AtomicFile.swift", "O_RDONLY | O_DIRECTORY", "a folder, to fsync it (O_DIRECTORY fails at once on anything else)"),
            ("Sources/Media/Movie/MovieWriter.swift", "O_RDWR | O_CREAT | O_EXCL", "creates the movie it records (O_EXCL)"),
            ("Sources/Media/Movie/MovieWriter.swift", "O_RDONLY | O_DIRECTORY", "a folder, to fsync it"),
            ("Sources/Media/Movie/MovieRemuxer.swift", "open(temporary, O_RDONLY", "its own temporary file, just written, to fsync it"),
            ("Sources/Media/Privacy/MovieLocation.swift", "O_RDWR | O_NOFOLLOW", "its own temporary copy, just made by AtomicFile.copy, edited in place"),
            ("Sources/PhotoLibrary/LibraryLock.swift", "O_RDWR | O_CREAT", "the library's own lock file, beside its index"),
            ("Sources/Media/Files/AtomicFile.swift", "O_RDONLY | O_NOFOLLOW | O_NONBLOCK", "a temporary file of Pinhole's own name, opened only to try its writer's lock (never blocks, follows no link; fstat checks it is regular)"),
            ("Sources/PhotoLibrary/Trash.swift", "O_WRONLY | O_CREAT | O_EXCL", "creates a new .trashinfo file (O_EXCL)"),
            ("Sources/PhotoLibrary/PhotoLibrary+Export.swift", "O_RDONLY | O_DIRECTORY", "a folder, to fsync it"),
            ("Sources/pinhole/main.swift", "0o10_000_000", "O_PATH: opens no file for reading and never blocks"),
            ("Sources/CameraModel/BusyCamera.swift", "fopen(\"/proc/", "the kernel's /proc files"),
            ("Sources/Capture/Virtual/VirtualCameraControl.swift", "fopen(path, \"r\")", "the test-control FIFO a test makes on purpose (PINHOLE_TEST_CONTROL), read on a thread of its own"),
            ("Sources/Capture/Virtual/VirtualCameraControl.swift", "fopen(path + \".part\", \"w\")", "the report a test asked for, written into the test's own folder beside its final name"),
            ("Sources/Capture/V4L2/V4L2Device.swift", "O_RDWR | O_NONBLOCK", "a camera's device node, opened non-blocking by design"),
        ])

    static let sizes = Rule(
        name: "sizes, offsets and counts are read from file bytes only through UntrustedBytes (Sources/Media/Files/UntrustedBytes.swift)",
        home: "Sources/Media/Files/UntrustedBytes.swift",
        pattern: #"\bpread\(|\bU?Int(16|32|64)?\(\w+\[[^\]]+\]\)[^\n]*(<<|\bU?Int(16|32|64)?\(\w+\[[^\]]*\+\s*1\]\))|\$0\s*<<\s*8\s*\|"#,
        allowed: [
            ("Sources/Media/Files/RegularFile.swift", "pread(fd", "reads the bytes asked for; the walks decide where, through UntrustedBytes"),
            ("Sources/Media/Pixels/PixelFormat.swift", "UInt32(p[0])", "a four-character code from a string literal in the source, not from a file"),
            ("Sources/Capture/V4L2/V4L2Types.swift", "UInt32(p[0])", "a four-character code from a string literal in the source, not from a file"),
            ("Sources/PhotoLibrary/Thumbnails/MD5.swift", "UInt32(message[base])", "MD5's own padded message words, not sizes read from a file"),
        ])

    /// The lines of the Swift sources in Sources/ that match `rule` outside its home and allowed
    /// lines, as "file:line: text". Not the benchmark's (Benchmarks/) nor the test harness's
    /// (Sources/PinholeTestSupport): developers' tools reading their own files, not shipped.
    static func bypasses(_ rule: Rule) throws -> [String] {
        let root = repository
        let expression = try NSRegularExpression(pattern: rule.pattern)
        var found: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: root + "/Sources")
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let file = "Sources/" + relative
            guard file != rule.home, !file.hasPrefix("Sources/PinholeTestSupport/") else { continue }
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let line = String(line)
                if line.trimmingCharacters(in: .whitespaces).hasPrefix("//") { continue }
                guard expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil else { continue }
                if rule.allowed.contains(where: { $0.file == file && line.contains($0.fragment) }) { continue }
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found.sorted()
    }

    @Test("files chosen by users or other programs are opened only through RegularFile")
    func openingGoesThroughRegularFile() throws {
        let found = try Self.bypasses(Self.opening)
        #expect(found.isEmpty, "\(Self.opening.name); these bypass it (or belong in the allow-list with a reason):\n\(found.joined(separator: "\n"))")
    }

    @Test("sizes read from files go only through UntrustedBytes")
    func sizesGoThroughUntrustedBytes() throws {
        let found = try Self.bypasses(Self.sizes)
        #expect(found.isEmpty, "\(Self.sizes.name); these bypass it (or belong in the allow-list with a reason):\n\(found.joined(separator: "\n"))")
    }

    @Test("the scan finds what it is meant to find")
    func scannerFindsBypasses() throws {
        let opening = try NSRegularExpression(pattern: Self.opening.pattern), sizes = try NSRegularExpression(pattern: Self.sizes.pattern)
        func matches(_ expression: NSRegularExpression, _ line: String) -> Bool {
            expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
        }
        for line in ["let fd = open(path, O_RDONLY | O_CLOEXEC)", "guard let file = fopen(path, \"r\")", "try Data(contentsOf: url)",
                     "ffmpeg.avformat_open_input(&opened, path, nil, nil)"] {
            #expect(matches(opening, line), "\(line)")
        }
        #expect(!matches(opening, "ffmpeg.avformat_open_input(&opened, file.descriptorPath, nil, nil)"))
        #expect(!matches(opening, "guard let library = await open() else { return }"))
        for line in ["let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16", "range.reduce(0) { $0 << 8 | Int64(bytes[$1]) }",
                     "guard pread(fd, &bytes, 16, off_t(offset)) >= 8", "let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])"] {
            #expect(matches(sizes, line), "\(line)")
        }
        #expect(!matches(sizes, "guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0"))
    }
}
