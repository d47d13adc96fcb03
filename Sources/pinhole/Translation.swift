import CGettext
import Glibc

/// The command's words for people, through gettext: the domain "pinhole", shared with the app
/// (one .po per language, po/). Machine-readable output (paths, --json, tab-separated lines)
/// never goes through here.
enum Translation {
    static let domain = "pinhole"

    /// Takes the locale from the environment and binds the domain. Called first thing in main.
    static func install() {
        setlocale(LC_ALL, "")
        // Numbers keep the C form ("3.5", never "3,5") whatever the language: C libraries the
        // command uses (FFmpeg's options and metadata among them) print and parse them.
        setlocale(LC_NUMERIC, "C")
        bindtextdomain(domain, localeFolder)
        bind_textdomain_codeset(domain, "UTF-8")
        textdomain(domain)
    }

    /// Where the compiled translations are: $PINHOLE_LOCALEDIR; else, run from a source tree's
    /// build (SOURCE/.build/…/pinhole), SOURCE/.build/locale (`scripts/translations build
    /// .build/locale` makes it); else, installed, PREFIX/share/locale next to PREFIX/bin/pinhole.
    static var localeFolder: String {
        if let folder = getenv("PINHOLE_LOCALEDIR"), folder.pointee != 0 { return String(cString: folder) }
        let executable = executablePath
        if let range = executable.range(of: "/.build/") {
            let source = String(executable[..<range.lowerBound])
            if access(source + "/Package.swift", F_OK) == 0, access(source + "/po", F_OK) == 0 { return source + "/.build/locale" }
        }
        var parts = executable.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(min(2, parts.count))
        return parts.joined(separator: "/") + "/share/locale"
    }

    /// This program's own path (/proc/self/exe), or the usual installed one.
    private static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "/usr/local/bin/pinhole" }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The translation of `english`, or `english` itself.
    static func text(_ english: String) -> String {
        // gettext returns the msgid's own pointer when there is no translation: read it inside the call.
        english.withCString { msgid in
            guard let translated = dgettext(domain, msgid), translated != UnsafeMutablePointer(mutating: msgid) else { return english }
            return String(cString: translated)
        }
    }
}

/// Marks a string for translation (xgettext's keyword `L`, as in the app) and returns it
/// translated, each `%@` replaced by the next of `values`, in order. Values are inserted as they
/// are: a `%@` inside a value (a file name) stays.
func L(_ english: String, _ values: String...) -> String {
    let pieces = Translation.text(english).components(separatedBy: "%@")
    var result = pieces[0]
    for (index, piece) in pieces.dropFirst().enumerated() {
        result += (index < values.count ? values[index] : "%@") + piece
    }
    return result
}
