import Foundation
import Glibc
import Media
import Testing
import TestSupport

/// What one run of `pinhole` did, as a user sees it.
struct FrontDoorRun {
    /// The arguments after `pinhole`.
    let arguments: [String]
    /// The exit status (128 + N when signal N killed it), nil when it was still running after
    /// `FrontDoor.hangLimit` seconds (then killed).
    let status: Int32?
    /// Wall seconds from start to exit.
    let seconds: Double
    /// Standard output.
    let stdout: String
    /// Standard error.
    let stderr: String

    /// The run in a report: its arguments quoted as a shell would take them.
    var command: String {
        "pinhole " + arguments.map { argument in
            let shown = argument.count > 80 ? String(argument.prefix(40)) + "…(\(argument.count) characters)" : argument
            return "'" + shown.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "\n", with: "\\n") + "'"
        }.joined(separator: " ")
    }
}

/// The harness of the front-door tests: runs `pinhole` as a separate process with a hang limit
/// (a trap is an exit status, a hang a process still running, never a dead or stuck test run),
/// checks what each run shows against the documented promises, and keeps the figures.
final class FrontDoor {
    /// The exit codes `pinhole --help` and the README document.
    static let documentedCodes: ClosedRange<Int32> = 0...7
    /// Seconds after which a run counts as hung and is killed: a hang detector, not a timing
    /// assertion (the slowest honest run here takes a few seconds on a busy machine).
    static let hangLimit: Double = 60
    /// Lines on standard error that are notices, not the failure's message: the test camera
    /// stood in, a recording without sound or with frames dropped, a flash the camera lacks, and
    /// the files in the library's folders it did not take as they are, named at every opening
    /// (`CLIError.skippedLine`). Notices are checked as lines too, but not counted as messages.
    static let notices: [String] = ["No camera found: using Pinhole's test camera.", "Recording without sound", "frames were dropped",
                                    "frames were skipped", "stays fragmented", "has no flash LED", "recording without sound.", " was left as it is: ", " is not in the library: "]

    /// The fixed seed; `PINHOLE_FRONTDOOR_SEED` replaces it.
    let seed: UInt64
    /// Runs per test; `PINHOLE_FRONTDOOR_RUNS` raises it for a long run.
    let runs: Int
    /// One run only (`PINHOLE_FRONTDOOR_ONLY=N`), to replay a finding.
    let only: Int?
    /// Where inputs that found something are copied (`PINHOLE_FRONTDOOR_KEEP=DIR`).
    let keep: String?
    /// Everything wrong, one line each, with the run's number and command.
    private(set) var findings: [String] = []
    /// How many runs ended with each exit status (nil: hung).
    private(set) var histogram: [Int32?: Int] = [:]
    /// The slowest run and its seconds.
    private(set) var slowest: (seconds: Double, command: String) = (0, "")
    /// Runs made, and their seconds together.
    private(set) var count = 0, totalSeconds = 0.0

    /// A harness with `defaultRuns` runs unless the environment asks for more.
    init(defaultRuns: Int) {
        let environment = ProcessInfo.processInfo.environment
        seed = environment["PINHOLE_FRONTDOOR_SEED"].flatMap { UInt64($0) } ?? 0x5049_4E48_4F4C_45
        runs = environment["PINHOLE_FRONTDOOR_RUNS"].flatMap { Int($0) } ?? defaultRuns
        only = environment["PINHOLE_FRONTDOOR_ONLY"].flatMap { Int($0) }
        keep = environment["PINHOLE_FRONTDOOR_KEEP"]
    }

    /// The run numbers to make.
    var indices: [Int] { only.map { [$0] } ?? Array(0..<runs) }

    /// Runs `pinhole arguments` in `folder` (its working directory: relative paths among the
    /// arguments stay inside the test's folder) with `environment` added, and checks the run: a
    /// documented exit code, not a signal, not a hang; on failure one line saying what happened
    /// (one per file named, for `library import`), besides the notices.
    @discardableResult
    func run(_ index: Int, _ arguments: [String], in folder: String, environment: [String: String]) throws -> FrontDoorRun {
        let clock = ContinuousClock(), started = clock.now
        let process = try BackgroundProcess(["/usr/bin/env", "--chdir=" + folder, pinholeBinary] + arguments, environment: environment)
        let status = process.waitForExit(seconds: FrontDoor.hangLimit)
        let elapsed = clock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let run = FrontDoorRun(arguments: arguments, status: status, seconds: seconds, stdout: process.output, stderr: process.errors)
        count += 1
        totalSeconds += seconds
        histogram[status, default: 0] += 1
        if seconds > slowest.seconds { slowest = (seconds, run.command) }
        for problem in FrontDoor.problems(of: run) { record(index, run, problem) }
        return run
    }

    /// What is wrong with a run as a user sees it (nothing for a good one).
    static func problems(of run: FrontDoorRun) -> [String] {
        guard let status = run.status else { return ["still running after \(Int(hangLimit)) s (killed)"] }
        if status > 128 { return ["killed by signal \(status - 128): \(run.stderr.suffix(300))"] }
        guard documentedCodes.contains(status) else { return ["exit code \(status), which is not documented: \(run.stderr.suffix(300))"] }
        let lines = run.stderr.isEmpty ? [] : run.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast(run.stderr.hasSuffix("\n") ? 1 : 0)
        var problems: [String] = []
        if !run.stderr.isEmpty && !run.stderr.hasSuffix("\n") { problems.append("standard error does not end its line: \(run.stderr.suffix(200).debugDescription)") }
        for line in lines {
            if let problem = lineProblem(line) { problems.append("\(problem): \(String(line.prefix(300)).debugDescription)") }
        }
        let messages = lines.filter { line in !notices.contains { line.contains($0) } }
        guard status != 0 else { return problems }
        // One line naming what happened; `library import` says one per file it could not take.
        let files = run.arguments.starts(with: ["library", "import"]) ? max(1, run.arguments.count - 2) : 1
        if messages.isEmpty {
            problems.append("exit \(status) without a message")
        } else if messages.count > files {
            problems.append("exit \(status) with \(messages.count) lines: \(run.stderr.prefix(400).debugDescription)")
        }
        return problems
    }

    /// What is wrong with one line of standard error: not pinhole's, a Swift value's dump
    /// (`unsupportedFile(path:`, `Optional(`), a control character, no full stop.
    static func lineProblem(_ line: Substring) -> String? {
        guard line.hasPrefix("pinhole: ") || notices.contains(where: { line.contains($0) }) else {
            return "a line that is not pinhole's message"
        }
        if line.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "a control character in the message" }
        if line.range(of: #"[a-z][A-Za-z]+\([a-z][A-Za-z]*:|Optional\(|Swift\.|Error Domain="#, options: .regularExpression) != nil {
            return "a Swift value printed as it is"
        }
        if !(line.hasSuffix(".") || line.hasSuffix(".)")) || line.hasSuffix("..") { return "a message that is not a sentence" }
        return nil
    }

    /// Notes `problem` of run `index`.
    func record(_ index: Int, _ run: FrontDoorRun, _ problem: String) {
        findings.append("run \(index): \(run.command): \(problem)")
    }

    /// Notes a problem found by looking at the library or a file after run `index`.
    func record(_ index: Int, _ problem: String) {
        findings.append("run \(index): \(problem)")
    }

    /// The figures: runs, exit codes, seconds per run, the slowest.
    var summary: String {
        let codes = histogram.sorted { ($0.key ?? 999) < ($1.key ?? 999) }
            .map { "\($0.key.map { String($0) } ?? "hung"): \($0.value)" }.joined(separator: ", ")
        return "\(count) runs, seed \(seed); exit codes {\(codes)}; \(String(format: "%.3f", count > 0 ? totalSeconds / Double(count) : 0)) s a run, "
            + "slowest \(String(format: "%.2f", slowest.seconds)) s: \(slowest.command); \(findings.count) findings"
    }

    /// Copies an input that found something to `keep`, named by its run.
    func keepInput(_ bytes: [UInt8], index: Int, name: String) {
        guard let keep else { return }
        try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
        try? Data(bytes).write(to: URL(fileURLWithPath: keep + "/run-\(index)-" + name))
    }

    /// The library at `root` (PINHOLE_LIBRARY) as independent tools see it: sqlite3 finds the
    /// index sound and its rows name exactly the files in the folders, at their sizes; no
    /// temporary file of Pinhole's is left anywhere under `scratch`. Empty when all is well.
    static func libraryProblems(_ root: String, scratch: String) throws -> [String] {
        var problems: [String] = []
        let leftovers = FileManager.default.enumerator(atPath: scratch)?.compactMap { $0 as? String }
            .filter { ($0 as NSString).lastPathComponent.contains(".pinhole-") && $0.hasSuffix(".tmp") } ?? []
        if !leftovers.isEmpty { problems.append("temporary files left: \(leftovers.prefix(3))") }
        let index = root + "/library.sqlite3"
        guard FileManager.default.fileExists(atPath: index) else { return problems }
        let sql = try runTool("sqlite3", [index, "PRAGMA integrity_check; SELECT path || '|' || size FROM assets;"])
        let lines = sql.stdout.split(separator: "\n").map(String.init)
        guard sql.status == 0, lines.first == "ok" else { return problems + ["sqlite3: \(sql.status) \(sql.stdout.prefix(200)) \(sql.stderr.prefix(200))"] }
        var rows: [String: Int] = [:]
        for line in lines.dropFirst() {
            guard let bar = line.lastIndex(of: "|") else { continue }
            rows[String(line[..<bar])] = Int(line[line.index(after: bar)...])
        }
        var files: [String: Int] = [:]
        for folder in ["Photos", "Videos"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? [] where !name.hasPrefix(".") {
                let path = root + "/" + folder + "/" + name
                files[path] = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
            }
        }
        if rows != files {
            let onlyRows = rows.filter { files[$0.key] != $0.value }.map(\.key), onlyFiles = files.filter { rows[$0.key] != $0.value }.map(\.key)
            problems.append("index and folders disagree: rows without their file \(onlyRows.prefix(3)), files without their row \(onlyFiles.prefix(3))")
        }
        return problems
    }
}

/// An item a mutated file became in the library, checked with the batch's others at its end.
struct FrontDoorItem {
    /// The run that imported it.
    let index: Int
    /// The seed file and the changes made to it, for the report.
    let input: String
    /// The file imported.
    let bytes: [UInt8]
    /// The seed file's name.
    let name: String
    /// The library's copy.
    let path: String
    /// Its size as the index holds it.
    let width: Int, height: Int
    /// Where `library export --strip-location` wrote it, when it did.
    let exported: String?
}

/// Real files a user may have, made by the test camera and by other programs: the fuzz seeds
/// (small JPEG, PNG, HEIF, WebP, MP4, MOV, MKV, WebM files, some with a location) and a photo
/// in each of the camera's formats.
struct FrontDoorSeeds {
    /// Each file's name and bytes.
    let files: [(name: String, bytes: [UInt8])]

    /// The repository's Fuzz/Seeds files of the formats the library takes, and photos taken by
    /// `pinhole snap` into `folder`.
    init(folder: TemporaryDirectory, environment: [String: String]) throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var files: [(String, [UInt8])] = [], seen = Set<[UInt8]>()
        for kind in ["jpeg", "png", "heif", "webp", "movie", "location", "chunks"] {
            let directory = repository.appendingPathComponent("Fuzz/Seeds/" + kind)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
                let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
                if seen.insert(bytes).inserted { files.append((name, bytes)) }
            }
        }
        for format in ["jpeg", "png", "heif"] {
            let path = folder.path("camera." + (format == "jpeg" ? "jpg" : format == "heif" ? "heic" : format))
            let snap = try pinhole(["snap", "--device", "test-back", "--size", "640x480", "--format", format, "-o", path], environment: environment)
            #expect(snap.status == 0, "\(snap.stderr)")
            files.append(((path as NSString).lastPathComponent, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        }
        self.files = files
    }
}

/// Bad input through the front doors: thousands of mutated files and random argument lists
/// through the built `pinhole`. Every run ends with a documented exit code and, when it fails,
/// one line on standard error; none is killed by a signal or hangs; the library holds no new item
/// or a complete one. A fixed seed and a count CI affords; `PINHOLE_FRONTDOOR_RUNS=N` runs more,
/// `PINHOLE_FRONTDOOR_SEED` another sequence, `PINHOLE_FRONTDOOR_ONLY=N` one run alone,
/// `PINHOLE_FRONTDOOR_KEEP=DIR` keeps the inputs that found something (docs/front-door.md).
@Suite("pinhole's front doors: mutated files and random arguments", .serialized)
struct FrontDoorTests {
    /// The file runs a library takes before a new one is made (an open scans the folders, so a
    /// library that only grows would make later runs slower than earlier ones).
    static let batch = 25

    @Test("mutated photos and movies through import (or dropped into the library's folders), info, thumbnail and export --strip-location: documented exit codes, one-line messages, complete items only")
    func mutatedFiles() throws {
        let door = FrontDoor(defaultRuns: 250)
        let folder = try TemporaryDirectory()
        let seeds = try FrontDoorSeeds(folder: folder, environment: try isolatedEnvironment(folder))
        let exiftool = try ExifTool.locate()
        var library: (folder: TemporaryDirectory, environment: [String: String])?
        var imported: [FrontDoorItem] = []
        /// Checks the batch's items with exiftool and `library verify`, then forgets the library.
        func finishBatch() throws {
            guard let current = library else { return }
            try checkItems(imported, door: door, exiftool: exiftool)
            let verify = try door.run(-1, ["library", "verify"], in: current.folder.url.path, environment: current.environment)
            if verify.status != 0 { door.record(-1, verify, "verify after the batch: \(verify.stdout) \(verify.stderr)") }
            imported = []
            library = nil
        }
        for index in door.indices {
            if library == nil || index % FrontDoorTests.batch == 0 {
                try finishBatch()
                let fresh = try TemporaryDirectory()
                var environment = try isolatedEnvironment(fresh)
                environment["PINHOLE_LIBRARY"] = fresh.path("library")
                library = (fresh, environment)
            }
            guard let current = library else { continue }
            let (home, environment) = (current.folder, current.environment)
            var random = SeededGenerator(seed: door.seed, index: index)
            let seed = seeds.files[index % seeds.files.count]
            let (bytes, mutations) = Mutation.random(for: seed.bytes, using: &random)
            let input = try home.file("input-\(index)-" + seed.name, bytes).path
            let findingsBefore = door.findings.count
            defer {
                if door.findings.count > findingsBefore {
                    door.record(index, "input: \(seed.name) with \(mutations.map(\.description).joined(separator: "; "))")
                    door.keepInput(bytes, index: index, name: seed.name)
                }
            }
            let id: String, stored: String
            if index % 4 == 3 {
                // The other front door: a file another program puts into the library's folders,
                // read when the library opens. Taken (a row), or named on standard error as not
                // in the library (then moved out, as the line says to).
                let movie = ["mp4", "mov", "mkv", "webm"].contains((seed.name as NSString).pathExtension)
                let folder = home.path("library/" + (movie ? "Videos" : "Photos"))
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                let dropped = folder + "/Dropped \(index)." + (seed.name as NSString).pathExtension
                try Data(bytes).write(to: URL(fileURLWithPath: dropped))
                let run = try door.run(index, ["library", "verify", "--repair"], in: home.url.path, environment: environment)
                if run.stderr.split(separator: "\n").contains(where: { $0.contains(dropped + " is not in the library: ") }) { unlink(dropped) }
                for problem in try FrontDoor.libraryProblems(home.path("library"), scratch: home.url.path) { door.record(index, run, problem) }
                let listed = try door.run(index, ["library", "list", "--json"], in: home.url.path, environment: environment)
                let assets = (try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))) as? [[String: Any]] ?? []
                guard let asset = assets.first(where: { ($0["path"] as? String) == dropped }), let found = asset["id"] as? String else { continue }
                (id, stored) = (found, dropped)
            } else {
                let run = try door.run(index, ["library", "import", input], in: home.url.path, environment: environment)
                for problem in try FrontDoor.libraryProblems(home.path("library"), scratch: home.url.path) { door.record(index, run, problem) }
                guard run.status == 0, let line = run.stdout.split(separator: "\n").first else { continue }
                let fields = line.split(separator: "\t").map(String.init)
                guard fields.count == 2 else { door.record(index, run, "import printed \(line.debugDescription)"); continue }
                (id, stored) = (fields[0], fields[1])
            }
            // A complete item: the library's copy is the file given, byte for byte (a file put
            // into the folders is the library's copy itself, and an MP4 there that a crashed
            // recorder could have left fragmented is finished when the library opens: it is
            // checked by ffprobe at the batch's end instead).
            if index % 4 != 3, (try? Data(contentsOf: URL(fileURLWithPath: stored))) != Data(bytes) { door.record(index, "the library's copy \(stored) differs from the file given") }
            let info = try door.run(index, ["library", "info", id, "--json"], in: home.url.path, environment: environment)
            let object = (try? JSONSerialization.jsonObject(with: Data(info.stdout.utf8))) as? [String: Any]
            guard info.status == 0, let width = object?["width"] as? Int, let height = object?["height"] as? Int else {
                door.record(index, info, "info of an imported item: \(info.stdout.prefix(200))")
                continue
            }
            try door.run(index, ["library", "thumbnail", id, "--size", random.pick(["normal", "x-large"])], in: home.url.path, environment: environment)
            let export = try door.run(index, ["library", "export", id, "--to", home.path("out-\(index)"), "--strip-location"], in: home.url.path, environment: environment)
            for problem in try FrontDoor.libraryProblems(home.path("library"), scratch: home.url.path) { door.record(index, export, problem) }
            let exported = export.status == 0 ? export.stdout.trimmingCharacters(in: .newlines) : nil
            imported.append(FrontDoorItem(index: index, input: "\(seed.name) with \(mutations.map(\.description).joined(separator: "; "))", bytes: bytes,
                                          name: seed.name, path: stored, width: width, height: height, exported: exported))
        }
        try finishBatch()
        print("Front door, mutated files: \(door.summary)")
        #expect(door.findings.isEmpty, "\(door.findings.count) findings:\n\(door.findings.prefix(40).joined(separator: "\n"))")
    }

    /// The batch's items as exiftool and ffprobe read them: each library copy of the format its
    /// name says, at the size the index holds (either way round: a rotation may swap them), and
    /// each export readable with no location left.
    func checkItems(_ items: [FrontDoorItem], door: FrontDoor, exiftool: ExifTool) throws {
        guard !items.isEmpty else { return }
        let paths = items.map(\.path) + items.compactMap(\.exported)
        let result = try spawn([exiftool.url.path, "-j", "-n", "-G", "-a", "-q", "-q", "-FileType", "-ImageWidth", "-ImageHeight", "-*gps*", "-*location*"] + paths)
        let json = ExifTool.quotingHugeNumbers(Data(result.stdout.utf8))
        let objects = (try? JSONSerialization.jsonObject(with: json)) as? [[String: Any]] ?? []
        /// What exiftool read from the file at `path`, if anything.
        func tags(_ path: String) -> [String: Any]? { objects.first { ($0["SourceFile"] as? String) == path } }
        for item in items {
            let findingsBefore = door.findings.count
            defer {
                if door.findings.count > findingsBefore {
                    door.record(item.index, "input: \(item.input)")
                    door.keepInput(item.bytes, index: item.index, name: item.name)
                }
            }
            guard let read = tags(item.path) else { door.record(item.index, "exiftool cannot read the library's copy \(item.path)"); continue }
            if item.path.contains("/Videos/") {
                let probe = try runTool("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", item.path])
                let size = probe.stdout.split(whereSeparator: { $0 == "," || $0 == "\n" }).compactMap { Int($0) }
                if probe.status != 0 || size.count < 2 || Set(size.prefix(2)) != Set([item.width, item.height]) {
                    door.record(item.index, "ffprobe reads the library's copy as \(size) (exit \(probe.status)), the index says \(item.width)×\(item.height)")
                }
            } else {
                let width = read.first { $0.key.hasSuffix(":ImageWidth") }.flatMap { jsonNumber($0.value) }.map { Int($0) }
                let height = read.first { $0.key.hasSuffix(":ImageHeight") }.flatMap { jsonNumber($0.value) }.map { Int($0) }
                // exiftool reads the headers only and gives up on some files a decoder reads
                // whole (a WebP whose VP8L chunk says 0 bytes: libwebp decodes it): then the
                // decoder says.
                if Set([width, height]) != Set([item.width, item.height]) {
                    let decoded = try decodedSize(item.path)
                    if decoded.map({ Set([$0.width, $0.height]) }) != Set([item.width, item.height]) {
                        door.record(item.index, "exiftool reads the library's copy as \(String(describing: width))×\(String(describing: height)), "
                            + "a decoder as \(decoded.map { "\($0.width)×\($0.height)" } ?? "nothing"), the index says \(item.width)×\(item.height)")
                    }
                }
            }
            if let exported = item.exported {
                guard let copy = tags(exported) else { door.record(item.index, "exiftool cannot read the export \(exported)"); continue }
                let location = copy.keys.filter { $0.lowercased().contains("gps") || $0.lowercased().contains("location") }
                if !location.isEmpty { door.record(item.index, "the export with --strip-location still has \(location.sorted())") }
            }
        }
    }

    /// A photo's size as a decoder reads it, decoding it whole: dwebp for WebP, heif-convert's
    /// libheif (heif-info) for HEIF, FFmpeg for JPEG and PNG. Nil when it cannot.
    func decodedSize(_ path: String) throws -> (width: Int, height: Int)? {
        let numbers: [Int]
        if path.hasSuffix(".webp") {
            let result = try runTool("dwebp", [path, "-o", "/dev/null"])
            let text = result.stdout + result.stderr
            guard result.status == 0, let range = text.range(of: "Dimensions:") else { return nil }
            numbers = text[range.upperBound...].prefix(40).split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        } else if path.hasSuffix(".heic") {
            let result = try runTool("heif-info", [path])
            guard result.status == 0, let line = result.stdout.split(separator: "\n").first(where: { $0.hasPrefix("image: ") }) else { return nil }
            numbers = line.dropFirst(7).split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        } else {
            let result = try runTool("ffprobe", ["-v", "error", "-show_entries", "stream=width,height", "-of", "csv=p=0", path])
            guard result.status == 0 else { return nil }
            numbers = result.stdout.split(whereSeparator: { $0 == "," || $0 == "\n" }).compactMap { Int($0) }
        }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }

    @Test("found at the front door: a box type with a NUL, a file name with a newline and an escape, a value with a newline — each message one line, written out, one full stop")
    func controlCharactersInMessages() throws {
        let folder = try TemporaryDirectory()
        var environment = try isolatedEnvironment(folder)
        environment["PINHOLE_LIBRARY"] = folder.path("library")
        // Fuzz/Seeds/heif/photo.heic with its ipco box one byte longer: the next box read is
        // "pma\0", which the message printed raw (a NUL on the terminal) and ended with "..".
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/frontdoor/ipco-one-byte-longer.heic").path
        let heif = try pinhole(["library", "import", fixture], environment: environment)
        #expect(heif.status == 1)
        #expect(heif.stderr == "pinhole: \(fixture) cannot be imported: The HEIF data is damaged or not HEIF: the pma\\x00 box at byte 444 declares 6761 bytes, more than its parent holds.\n",
                "\(heif.stderr.debugDescription)")
        // A name that moves the cursor and colours the terminal, named by a user or a script.
        let name = folder.path("two\nlines \u{1B}[31mred\u{202E}gpj.jpg")
        let missing = try pinhole(["library", "import", name], environment: environment)
        #expect(missing.status == 1)
        #expect(missing.stderr == "pinhole: \(folder.path("two\\nlines \\x1B[31mred\\u{202E}gpj.jpg")) cannot be imported: the file or folder does not exist.\n",
                "\(missing.stderr.debugDescription)")
        let value = try pinhole(["snap", "--format", "gif\n"], environment: environment)
        #expect(value.status == 2)
        #expect(value.stderr == "pinhole: --format must be jpeg, png or heif, not 'gif\\n'. See `pinhole --help`.\n", "\(value.stderr.debugDescription)")
        #expect(try runTool("sqlite3", [folder.path("library/library.sqlite3"), "SELECT COUNT(*) FROM assets"]).stdout == "0\n")
    }

    @Test("found at the front door: a recording that fails before it starts (a wrong --device) says only that, not that it records without sound")
    func recordFailureWithoutSoundServer() throws {
        let folder = try TemporaryDirectory()
        var environment = try isolatedEnvironment(folder)
        environment["PINHOLE_LIBRARY"] = folder.path("library")
        environment["PULSE_SERVER"] = "unix:" + folder.path("nobody-listens")
        let result = try pinhole(["record", "--device", folder.url.path, "--duration", "0.5"], environment: environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "pinhole: Not supported by this camera: \(folder.url.path) is not a video capture device.\n", "\(result.stderr.debugDescription)")
    }

    @Test("found at the front door: verify --repair names a damaged photo another program put into the library's folder, as every opening does")
    func repairNamesRefusedFiles() throws {
        let folder = try TemporaryDirectory()
        var environment = try isolatedEnvironment(folder)
        environment["PINHOLE_LIBRARY"] = folder.path("library")
        #expect(try pinhole(["library", "list"], environment: environment).status == 0)
        // A photo cut short: its first 300 bytes, headers without the picture.
        let photo = try JPEGEncoder().encode(SyntheticImage.photoLike(width: 200, height: 100))
        let dropped = folder.path("library/Photos/Dropped.jpg")
        try Data(photo.prefix(300)).write(to: URL(fileURLWithPath: dropped))
        let repair = try pinhole(["library", "verify", "--repair"], environment: environment)
        #expect(repair.status == 0 && repair.stdout == "verify: index repaired: 0 added, 0 removed\n", "\(repair.stdout) \(repair.stderr)")
        let lines = repair.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("pinhole: \(dropped) is not in the library: ")
                && lines[0].hasSuffix(". Move it out of the folder, or replace it with a good copy."), "\(repair.stderr.debugDescription)")
        // As the line says: moved out, the library and its folders agree.
        unlink(dropped)
        #expect(try pinhole(["library", "verify"], environment: environment).status == 0)
    }

    @Test("found at the front door: pinhole exits with no thumbnail half-written, after an opening or a repair that found movies another program left")
    func noHalfWrittenThumbnails() throws {
        let folder = try TemporaryDirectory()
        var environment = try isolatedEnvironment(folder)
        environment["PINHOLE_LIBRARY"] = folder.path("library")
        #expect(try pinhole(["library", "list"], environment: environment).status == 0)
        // Fragmented MP4s (as a crashed recorder leaves them): the opening finishes each and
        // thumbnails it in the background, which the process used to exit in the middle of.
        for round in 0..<5 {
            for index in 0..<4 {
                let movie = folder.path("library/Videos/Left \(round)-\(index).mp4")
                try makeTestMovie(movie, seconds: 0.4 + Double(index) * 0.04, audio: false, extra: ["-movflags", "frag_keyframe+empty_moov"])
            }
            let run = try pinhole(round == 1 ? ["library", "list"] : ["library", "verify", "--repair"], environment: environment)
            #expect(run.status == 0, "\(run.stderr)")
            let cache = FileManager.default.enumerator(atPath: folder.path(".cache/thumbnails"))?.compactMap { $0 as? String } ?? []
            #expect(!cache.contains { $0.contains(".pinhole-") }, "round \(round): \(cache)")
        }
        #expect(try pinhole(["library", "verify"], environment: environment).status == 0)
    }

    @Test("found at the front door: snap -o naming a FIFO or a device (as /dev/null) exits 6 in one line and writes nothing beside it")
    func snapToDeviceOrPipe() throws {
        let folder = try TemporaryDirectory()
        let environment = try isolatedEnvironment(folder)
        let fifo = folder.path("pipe.jpg"), device = folder.path("null")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A node like /dev/null (character device 1:3), inside the test's folder.
        let made = try runTool("mknod", ["-m", "666", device, "c", "1", "3"])
        try #require(made.status == 0, "\(made.stderr)")
        for target in [fifo, device] {
            let snap = try pinhole(["snap", "--device", "test-back", "--size", "640x480", "-o", target], environment: environment)
            #expect(snap.status == 6, "\(target): \(snap.stdout) \(snap.stderr)")
            #expect(snap.stderr == "pinhole: Cannot save \(target): it is not a regular file. Choose another folder with -o.\n", "\(snap.stderr.debugDescription)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0 != "dev" }.sorted()
        #expect(left == ["null", "pipe.jpg"], "no photo beside them: \(left)")
    }

    @Test("found at the front door: record --audio with no sound server exits 1 saying --audio needs one, not that it records without sound")
    func recordAudioWithoutSoundServer() throws {
        let folder = try TemporaryDirectory()
        var environment = try isolatedEnvironment(folder)
        environment["PINHOLE_LIBRARY"] = folder.path("library")
        environment["PULSE_SERVER"] = "unix:" + folder.path("nobody-listens")
        let result = try pinhole(["record", "--audio", "default", "--duration", "0.5"], environment: environment)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "pinhole: --audio default needs a sound server (PulseAudio or PipeWire), and none answered. Start one, or leave out --audio to record without sound.\n",
                "\(result.stderr.debugDescription)")
        #expect(result.stdout.isEmpty)
        let videos = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("library/Videos"))) ?? []
        #expect(videos.isEmpty, "\(videos)")
    }

    @Test("random argument lists: documented exit codes, one-line messages, no signal, no hang, a sound library")
    func randomArguments() throws {
        let door = FrontDoor(defaultRuns: 250)
        let folder = try TemporaryDirectory()
        var environment = try isolatedEnvironment(folder)
        environment["PINHOLE_LIBRARY"] = folder.path("library")
        // What the paths may name: real files, folders, nothing, a FIFO, a sparse 5-GB "photo".
        let photo = folder.path("photo.jpg"), movie = folder.path("clip.mp4")
        #expect(try pinhole(["snap", "--device", "test-back", "--size", "640x480", "-o", photo], environment: environment).status == 0)
        try makeTestMovie(movie, seconds: 0.4, audio: false)
        try FileManager.default.createDirectory(atPath: folder.path("folder"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path("out"), withIntermediateDirectories: true)
        #expect(mkfifo(folder.path("fifo.jpg"), 0o600) == 0)
        let sparse = try folder.file("sparse.jpg", [0xFF, 0xD8, 0xFF, 0xE0])
        #expect(truncate(sparse.path, 5_000_000_000) == 0)
        // A node like /dev/null inside the test's folder (mknod needs root, as the tests run in CI).
        let device = folder.path("null")
        let devices = try runTool("mknod", ["-m", "666", device, "c", "1", "3"]).status == 0 ? [device] : []
        let unicode = try folder.file("фото 📷.jpg", try folder.read(URL(fileURLWithPath: photo))).path
        let long = folder.path(String(repeating: "d", count: 255) + "/" + String(repeating: "f", count: 255) + ".jpg")
        let paths = FrontDoorArguments.Paths(
            files: [photo, movie, unicode, folder.path("folder"), folder.path("missing.jpg"), folder.path("fifo.jpg"), sparse.path, "/dev/null",
                    "/dev/zero", "", long, folder.path("missing/")],
            folders: [folder.path("out"), folder.path("new-folder"), folder.path("new/deeper"), photo, folder.path("fifo.jpg"), "", long, "out"],
            outputs: [folder.path("out"), folder.path("out/"), folder.path("shot.jpg"), folder.path("shot.png"), folder.path("missing/x.jpg"), photo,
                      folder.path("folder"), folder.path("fifo.jpg"), "", long, "relative.jpg", "clip.webm", "x.heic"] + devices)
        // Items the identifiers may name: a photo and a movie in the library, and an album.
        let added = try pinhole(["library", "import", photo, movie], environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        let ids = added.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
        #expect(ids.count == 2)
        #expect(try pinhole(["library", "album", "create", "Trips"], environment: environment).status == 0)
        let generator = FrontDoorArguments(paths: paths, ids: ids)
        for index in door.indices {
            var random = SeededGenerator(seed: door.seed, index: index)
            let arguments = generator.arguments(&random)
            let run = try door.run(index, arguments, in: folder.url.path, environment: environment)
            for problem in try FrontDoor.libraryProblems(folder.path("library"), scratch: folder.url.path) { door.record(index, run, problem) }
            // Nothing is written beside a pipe or a device named as the output.
            let beside = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("fifo (") || $0.hasPrefix("null (") }
            if !beside.isEmpty { door.record(index, run, "written beside a pipe or device: \(beside)") }
        }
        print("Front door, random arguments: \(door.summary)")
        #expect(door.findings.isEmpty, "\(door.findings.count) findings:\n\(door.findings.prefix(40).joined(separator: "\n"))")
    }
}
