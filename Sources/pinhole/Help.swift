/// The `--help` pages, laid out here so that translators get one description at a time: the
/// options and their values (`--size WxH`) are printed as typed, in a column of their own.
enum Help {
    /// One option (or subcommand) and what it does.
    struct Row {
        /// As typed: "--size WxH".
        var usage: String
        /// Translated; several lines continue under the first.
        var text: String?
        /// Whether the description starts on the next line (for a long `usage`).
        var below = false

        init(_ usage: String, _ text: String? = nil, below: Bool = false) {
            self.usage = usage
            self.text = text
            self.below = below
        }
    }

    /// The rows, indented by two, descriptions in a column `width` past the indent (or three
    /// spaces after a `usage` too wide for it).
    static func rows(_ rows: [Row], width: Int) -> String {
        let margin = String(repeating: " ", count: 2 + width)
        return rows.map { row in
            let head = "  " + row.usage
            guard let text = row.text else { return head }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let first: String
            if row.below {
                first = head + "\n" + margin + lines[0]
            } else if row.usage.count < width {
                first = head + String(repeating: " ", count: width - row.usage.count) + lines[0]
            } else {
                first = head + "   " + lines[0]
            }
            return ([first] + lines.dropFirst().map { margin + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// A whole page: usage line, description, the rows, and the exit codes.
    static func page(_ usage: String, _ about: String, _ rows: [Row], width: Int) -> String {
        [usage, about, self.rows(rows, width: width), ExitCode.help].joined(separator: "\n\n")
    }
}
