/// One line of the results: a stage at a size, our time, one peer's time on the same input, and
/// the check that both produced the same picture.
struct Row {
    /// What is measured, e.g. "YUYV→BGRA".
    var stage: String
    /// The frame size's name, e.g. "1080p".
    var size: String
    /// Our median time in milliseconds (nil for a row that only reports a peer).
    var oursMs: Double?
    /// The BGRA memcpy of the same size in milliseconds, the bandwidth floor (nil when not relevant).
    var memcpyMs: Double?
    /// Who we are compared with, and how it was called.
    var peer: String
    /// The peer's median time in milliseconds (nil when there is no peer or it could not run).
    var peerMs: Double?
    /// The output check against this peer.
    var check: Check
    /// What the reader needs to know to read the numbers right.
    var note: String

    /// Peer time over our time: above 1 we are that many times faster, below 1 slower.
    var ratio: Double? {
        guard let oursMs, let peerMs, oursMs > 0 else { return nil }
        return peerMs / oursMs
    }

    /// Our time over the memcpy floor: 1 would mean converting costs no more than copying.
    var overMemcpy: Double? {
        guard let oursMs, let memcpyMs, memcpyMs > 0 else { return nil }
        return oursMs / memcpyMs
    }
}

/// Number formatting without Foundation's locale machinery.
enum Format {
    /// `value` with exactly `digits` decimals, rounded half away from zero.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        var text = "\(whole)"
        if digits > 0 {
            let digitsText = String(fraction)
            text += "." + String(repeating: "0", count: digits - digitsText.count) + digitsText
        }
        return value < 0 && scaled > 0 ? "-" + text : text
    }

    /// Milliseconds with three significant decimals for small values and fewer for large ones.
    static func ms(_ value: Double?) -> String {
        guard let value else { return "—" }
        return value < 10 ? fixed(value, 3) : value < 100 ? fixed(value, 2) : fixed(value, 1)
    }

    /// A ratio such as "2.41×".
    static func times(_ value: Double?) -> String {
        guard let value else { return "—" }
        return fixed(value, 2) + "×"
    }

    /// A byte count in KiB or MiB.
    static func bytes(_ count: Int) -> String {
        count >= 1 << 20 ? fixed(Double(count) / Double(1 << 20), 1) + " MiB" : fixed(Double(count) / 1024, 0) + " KiB"
    }
}

/// Renders rows as an aligned plain-text table or as a Markdown table.
enum Table {
    /// The column titles, in order.
    static let titles = ["Stage", "Size", "Ours ms", "Ours/memcpy", "Peer", "Peer ms", "Peer/ours", "Check", "Note"]

    /// The cells of one row, in the order of `titles`.
    static func cells(_ row: Row) -> [String] {
        [row.stage, row.size, Format.ms(row.oursMs), Format.times(row.overMemcpy), row.peer, Format.ms(row.peerMs),
         Format.times(row.ratio), row.check.text, row.note]
    }

    /// The table as text: Markdown when `markdown`, otherwise columns padded to line up.
    static func render(_ rows: [Row], markdown: Bool) -> String {
        let body = rows.map(cells)
        if markdown {
            /// One Markdown row, with pipes in cells escaped.
            func line(_ cells: [String]) -> String {
                "| " + cells.map { $0.replacingAll("|", with: "\\|") }.joined(separator: " | ") + " |"
            }
            let numeric: Set<Int> = [2, 3, 5, 6]
            let rule = "|" + titles.indices.map { numeric.contains($0) ? "---:" : "---" }.joined(separator: "|") + "|"
            return ([line(titles), rule] + body.map(line)).joined(separator: "\n")
        }
        var widths = titles.map(\.count)
        for cells in body { for (index, cell) in cells.enumerated() { widths[index] = max(widths[index], cell.count) } }
        /// One text row, cells padded to their column's width (the last is not padded).
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }
        let rule = widths.enumerated().map { index, width in
            String(repeating: "-", count: index == widths.count - 1 ? 4 : width)
        }.joined(separator: "  ")
        return ([line(titles), rule] + body.map(line)).joined(separator: "\n")
    }
}

/// Replacing without Foundation.
extension String {
    /// This string with every `target` replaced by `replacement` (without Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
