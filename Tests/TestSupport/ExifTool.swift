import Foundation
import Testing

/// Runs exiftool (Debian's libimage-exiftool-perl), the independent reader and writer the EXIF
/// tests check Pinhole's files against.
public struct ExifTool {
    /// Where the executable is.
    public let url: URL

    /// Finds exiftool on PATH (or in /usr/bin). When it is missing this records a failure telling
    /// to run scripts/setup and throws, so tests that need it fail instead of being skipped.
    public static func locate(sourceLocation: SourceLocation = #_sourceLocation) throws -> ExifTool {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        let found = directories.map { URL(fileURLWithPath: $0).appendingPathComponent("exiftool") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        let url = try #require(found, "exiftool was not found on PATH: run scripts/setup (it installs libimage-exiftool-perl)",
                               sourceLocation: sourceLocation)
        return ExifTool(url: url)
    }

    /// Runs exiftool with `arguments`; returns its standard output. Throws when it exits non-zero.
    @discardableResult
    public func run(_ arguments: [String]) throws -> Data {
        let result = try spawn([url.path] + arguments)
        guard result.status == 0 else {
            throw ExifToolFailure(arguments: arguments, status: result.status, message: result.stderr)
        }
        return Data(result.stdout.utf8)
    }

    /// The tags exiftool reads from each of `files` (`-j`, plus `options`: numbers with `-n`,
    /// group-prefixed names such as "EXIF:Make" with `-G`), in the order of `files`.
    public func tags(_ files: [URL], options: [String] = ["-n", "-G", "-a"]) throws -> [[String: Any]] {
        let data = ExifTool.quotingHugeNumbers(try run(["-j"] + options + files.map(\.path)))
        let array = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]], "exiftool did not print a JSON array")
        return try files.map { file in
            try #require(array.first { ($0["SourceFile"] as? String) == file.path }, "exiftool printed nothing for \(file.lastPathComponent)")
        }
    }

    /// exiftool's JSON with every unquoted number whose exponent has three digits quoted: exiftool
    /// prints a value as a number whenever it looks like one, so a Matroska UID such as
    /// `74e365` comes out as 74×10³⁶⁵, which no Double holds and JSONSerialization refuses.
    public static func quotingHugeNumbers(_ json: Data) -> Data {
        let text = String(decoding: json, as: UTF8.self)
        let pattern = #"(:\s*|[\[,]\s*)(-?[0-9]+(?:\.[0-9]+)?[eE]\+?[0-9]{3,})(?=\s*[,}\]])"#
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return json }
        let range = NSRange(text.startIndex..., in: text)
        return Data(expression.stringByReplacingMatches(in: text, range: range, withTemplate: "$1\"$2\"").utf8)
    }

    /// The tags of one file; see `tags(_:options:)`.
    public func tags(_ file: URL, options: [String] = ["-n", "-G", "-a"]) throws -> [String: Any] {
        try tags([file], options: options)[0]
    }

    /// Writes tags into `file` in place (`-TAG=VALUE` assignments), without a backup copy.
    public func write(_ file: URL, _ assignments: [String]) throws {
        try run(["-q", "-overwrite_original"] + assignments + [file.path])
    }
}

/// exiftool exited with an error.
public struct ExifToolFailure: Error, CustomStringConvertible {
    /// What it was run with.
    let arguments: [String]
    /// Its exit status.
    let status: Int32
    /// What it printed on standard error.
    let message: String

    /// A one-line summary.
    public var description: String { "exiftool \(arguments.joined(separator: " ")) exited with \(status): \(message)" }
}

/// A fresh directory under the system's temporary directory, removed with everything in it when
/// the value dies.
public final class TemporaryDirectory {
    /// The directory.
    public let url: URL

    /// Creates a directory with a unique name.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pinhole-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Removes the directory and its files.
    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `bytes` to a file called `name` in the directory and returns its URL.
    public func file(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    /// The path of `name` inside the directory (the file need not exist).
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// The bytes of the file called `name` in the directory.
    public func read(_ file: URL) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: file))
    }
}

/// A number from exiftool's JSON, which prints numbers bare and some values as strings.
public func jsonNumber(_ value: Any?) -> Double? {
    switch value {
    case let number as NSNumber: number.doubleValue
    case let string as String: Double(string)
    default: nil
    }
}

/// A value from exiftool's JSON as text: strings as they are, numbers in their shortest form.
public func jsonText(_ value: Any?) -> String? {
    switch value {
    case let string as String: string
    case let number as NSNumber: number.stringValue
    default: nil
    }
}
