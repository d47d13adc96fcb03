import Foundation
import Testing

/// The PhotoLibrary module's source files, read from the package this test was built from.
private func librarySources() throws -> [(name: String, lines: [String])] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let folder = root.appendingPathComponent("Sources/PhotoLibrary")
    let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
    var files: [(String, [String])] = []
    for case let name as String in enumerator where name.hasSuffix(".swift") {
        let text = try String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8)
        files.append((name, text.components(separatedBy: "\n")))
    }
    return files.sorted { $0.0 < $1.0 }
}

/// What changes the library's files or index: SQL that writes, a write transaction, a file
/// moved, linked or removed, a file written into place, a Trash move, a movie finished.
private let changePatterns = [
    #""[^"]*\b(INSERT|UPDATE|DELETE FROM|ALTER TABLE|CREATE TABLE|CREATE INDEX|DROP |PRAGMA user_version =)"#,
    #"^\s*(INSERT|UPDATE|DELETE FROM|ALTER TABLE|CREATE TABLE|CREATE INDEX)\b"#,
    #"\.transaction\b"#,
    #"\b(unlink|rename|renameat|renameat2|link|linkat|rmdir|symlink)\("#,
    #"\bAtomicFile\.(write|copy|place)\("#,
    #"\bfinishIfAbandoned\("#,
    #"\.(trash|putBack|takeBack|erase|forget|restore)\(_?\s*[a-z"]"#,
]

/// A declaration that opens a function's body.
private let declaration = #"^\s*(@\w+(\([^)]*\))?\s+)*((public|private|internal|fileprivate|package|static|nonisolated|mutating|override|final)\s+)*(func\s+\w+|init\??\s*[(<]|deinit\b)"#

@Suite("The library's choke point for changes")
struct ChokePointTests {
    @Test("every function in PhotoLibrary that changes the library's files or index takes the lock's token (so it runs inside LibraryLock.held), and only the lock makes one")
    func everyChangeHoldsTheLock() throws {
        let change = try changePatterns.map { try Regex($0) }
        let opening = try Regex(declaration)
        var sites = 0
        var bypasses: [String] = []
        // Not the library's files or index: the thumbnail cache (Thumbnails/) is the freedesktop
        // cache shared with file managers, whose files any program writes and removes at any
        // time; export (+Export) writes only where its caller asked, copies of assets read there.
        let outside = ["PhotoLibrary+Export.swift"]
        for (name, lines) in try librarySources() where !name.hasPrefix("Thumbnails/") && !outside.contains(name) {
            var signature = ""
            var collecting = false
            for (number, raw) in lines.enumerated() {
                let code = raw.components(separatedBy: "//").first ?? raw
                if code.contains(opening) {
                    signature = code
                    collecting = !code.contains("{")
                } else if collecting {
                    signature += code
                    collecting = !code.contains("{")
                }
                if name != "LibraryLock.swift", code.contains("Held(") { bypasses.append("\(name):\(number + 1): makes a token outside LibraryLock") }
                guard change.contains(where: { code.contains($0) }) else { continue }
                if raw.contains("// outside the library:") { continue }
                sites += 1
                if !signature.contains("Held") {
                    bypasses.append("\(name):\(number + 1): \(raw.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(sites >= 30, "the scan finds the library's changes (\(sites) found): a pattern no longer matches the code")
        #expect(bypasses.isEmpty, "changes outside the lock:\n\(bypasses.joined(separator: "\n"))")
    }
}
