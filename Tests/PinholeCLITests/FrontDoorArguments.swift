import Foundation
import TestSupport

/// Random argument lists for `pinhole`: the real commands, subcommands and options, with values
/// valid and not (numbers out of range, empty, very long, Unicode, control characters, paths
/// that do not exist, folders, /dev/null, a FIFO, a sparse 5-GB file), so every way through the
/// parser and on into the commands is tried. Valid values that take time are kept short (a
/// timer of 0.1 s, three photos at most, a recording always ends after `--duration`), so a run
/// that hangs is a hang and not a 24-hour recording asked for.
struct FrontDoorArguments {
    /// Paths a run may name, all inside the test's folder or harmless (/dev/null).
    struct Paths {
        /// A real photo, a real movie, a folder, a missing path, a FIFO, /dev/null, …
        var files: [String]
        /// Folders, a file where a folder is wanted, a missing folder, /dev/null.
        var folders: [String]
        /// Where a photo or movie may be written: new names, taken names, folders.
        var outputs: [String]
    }

    /// The paths offered.
    let paths: Paths
    /// Identifiers of items in the library, and of none.
    let ids: [String]

    /// Values wrong for any option: empty, blank, dashes, numbers no option takes, Unicode,
    /// control characters, format directives, 5000 characters. None is a valid number in a
    /// range that would make a run long (no "0x10", no "1e2": a 100-s timer is valid).
    static let junk: [String] = [
        "", " ", "-", "--", "---", "-x", "--what", "--json=1", "=", "nan", "inf", "-inf", "1e309", "-1", "-0.5", "99999999999999999999",
        "café", "日本語", "🙂🙂", "\u{202E}gepj.exe", "e\u{301}", "a\nb", "tab\there", "\u{1B}[31mred\u{1B}[0m", "\r", "%@", "%s%n%x",
        "../no-such-folder/x.jpg", "$(false)", "'\"", String(repeating: "x", count: 5000), String(repeating: "é", count: 300),
    ]

    /// An option's name and the values it may be given (valid ones first in spirit, junk mixed in).
    typealias Option = (name: String, values: [String])

    /// `snap`'s options.
    var snapOptions: [Option] {
        [("--device", ["test-front", "test-back", "pinhole-test-camera-back", "no-such-camera", "/dev/video0", "pipewire:9999"] + paths.files),
         ("--position", ["front", "back", "BACK", "side", "external"]),
         ("--size", ["max", "640x480", "1280x720", "123x45", "0x0", "-1x5", "640X480", "x", "99999999999x1", "640x480x2"]),
         ("--format", ["jpeg", "png", "heif", "JPEG", "gif", "webp"]),
         ("--quality", ["1", "50", "100", "0", "101", "-5"]),
         ("--flash", ["off", "on", "auto", "maybe"]),
         ("--timer", ["0", "0.1", "3601", "-1"]),
         ("--count", ["1", "2", "0", "10001"]),
         ("--interval", ["0", "0.05", "86401", "-1"]),
         ("--warmup", ["0", "1", "301", "-1"]),
         ("-o", paths.outputs), ("--output", paths.outputs)]
    }

    /// `record`'s options.
    var recordOptions: [Option] {
        [("--device", ["test-front", "test-back", "no-such-camera", "/dev/video0"] + paths.files),
         ("--size", ["640x480", "320x240", "123x45", "0x0", "x", "1920x1080x1"]),
         ("--fps", ["15", "30", "0", "241", "7"]),
         ("--duration", ["0.5", "0.2", "0.05", "86401", "0"]),
         ("--max-size", ["0.1", "0.05", "1000001"]),
         ("--audio", ["no-such-source", "default"]),
         ("--format", ["mp4", "webm", "mkv", "WEBM"]),
         ("--quality", ["0", "23", "51", "63", "64", "-1"]),
         ("-o", paths.outputs), ("--output", paths.outputs)]
    }

    /// `library list`'s options.
    var listOptions: [Option] {
        [("--type", ["photo", "video", "movie"]), ("--album", ["Trips", "Nope", "", "a\nb"]),
         ("--since", ["2000-01-01", "2026-11-29T14:03", "2026-11-29T14:03:22", "2026-13-45", "yesterday", "0000-00-00"]),
         ("--limit", ["1", "1000000", "0", "1000001"])]
    }

    /// Options that name a file or folder to write: given only paths inside the test's folder
    /// (junk is relative to it too), never /dev/null or another system path, which a run as root
    /// would write beside ("/dev/null (2)": an existing file is never replaced).
    static let writing: Set<String> = ["-o", "--output", "--to"]

    /// A random value for `option`: one of its own most of the time, else junk or a path.
    func value(for option: Option, _ random: inout SeededGenerator) -> String {
        switch random.int(0...9) {
        case 0...6: random.pick(option.values)
        case 7...8: random.pick(FrontDoorArguments.junk)
        default: FrontDoorArguments.writing.contains(option.name) ? random.pick(option.values) : random.pick(paths.files)
        }
    }

    /// Some of `options` with values, some flags, sometimes a stray word, `--`, or an option
    /// without its value at the end.
    func options(_ options: [Option], flags: [String], _ random: inout SeededGenerator) -> [String] {
        var words: [String] = []
        for _ in 0..<random.int(0...4) {
            switch random.int(0...9) {
            case 0...5 where !options.isEmpty:
                let option = random.pick(options)
                if random.chance(0.15) { words.append(option.name + "=" + value(for: option, &random)) } else { words += [option.name, value(for: option, &random)] }
            case 0...7 where !flags.isEmpty: words.append(random.pick(flags))
            case 0...8: words.append(random.pick(FrontDoorArguments.junk))
            default: words.append(random.pick(["--", "-h", "--help", "--bogus", "-"]))
            }
        }
        if random.chance(0.08), let option = options.isEmpty ? nil : random.pick(options) { words.append(option.name) }
        return words
    }

    /// An identifier: of an item in the library, or of none.
    func id(_ random: inout SeededGenerator) -> String {
        random.chance(0.6) && !ids.isEmpty ? random.pick(ids) : random.pick(["nope", "p0000000000000000", "", "v", "p" + String(repeating: "0", count: 500)] + FrontDoorArguments.junk)
    }

    /// A few identifiers (sometimes none).
    func ids(_ random: inout SeededGenerator) -> [String] { (0..<random.int(0...3)).map { _ in id(&random) } }

    /// One random argument list.
    func arguments(_ random: inout SeededGenerator) -> [String] {
        switch random.int(0...19) {
        case 0: return [random.pick(["--help", "-h", "help", "--version", "bogus", "", "SNAP", "snap\n"])] + (random.chance(0.3) ? [random.pick(FrontDoorArguments.junk)] : [])
        case 1...2: return ["devices"] + options([], flags: ["--json", "--help", "--all"], &random)
        case 3...5: return ["snap"] + options(snapOptions, flags: ["--help", "--json"], &random)
        case 6:
            // A recording always ends: the last --duration wins, and it is short.
            return ["record"] + options(recordOptions, flags: ["--no-audio", "--help"], &random) + ["--duration", random.pick(["0.5", "1"])]
        default: return ["library"] + library(&random)
        }
    }

    /// A random `library` command.
    func library(_ random: inout SeededGenerator) -> [String] {
        let sizes: Option = ("--size", ["normal", "large", "x-large", "xx-large", "huge", "LARGE"])
        switch random.int(0...17) {
        case 0: return options(listOptions, flags: ["--json", "--favorites"], &random)
        case 1...2: return ["list"] + options(listOptions, flags: ["--json", "--favorites"], &random)
        case 3...4: return ["info"] + ids(&random) + options([], flags: ["--json"], &random)
        case 5...7: return ["import"] + (0..<random.int(0...3)).map { _ in random.pick(paths.files) } + options([], flags: [], &random)
        case 8...9:
            return ["export"] + ids(&random) + options([("--to", paths.folders)], flags: ["--strip-location"], &random)
        case 10: return [random.pick(["delete", "restore"])] + ids(&random)
        case 11: return ["favorite"] + ids(&random) + options([], flags: ["--off"], &random)
        case 12: return ["thumbnail"] + ids(&random) + options([sizes], flags: [], &random)
        case 13: return ["thumbnails"] + options([sizes], flags: [], &random)
        case 14: return [random.pick(["albums", "verify"])] + options([], flags: ["--repair", "--json"], &random)
        case 15...16:
            let names = ["Trips", "Walks", "", " ", "a\nb", "日本語", String(repeating: "n", count: 2000)]
            var words = ["album", random.pick(["create", "delete", "rename", "add", "remove", "cover", "list", ""])]
            for _ in 0..<random.int(0...3) { words.append(random.chance(0.5) ? random.pick(names) : id(&random)) }
            return words
        default: return [random.pick(["", "LIST", "bogus", "--json", "-h"])] + options(listOptions, flags: [], &random)
        }
    }
}
