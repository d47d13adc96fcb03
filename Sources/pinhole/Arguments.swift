/// A small command-line parser: `--flag`, `--option VALUE`, `--option=VALUE`, `-o VALUE`,
/// positional arguments, and `--` to end options. Errors are usage errors (exit code 2).
struct Arguments {
    private var remaining: [String]
    private(set) var positionals: [String] = []

    /// Parses `arguments` (without the program and command names).
    init(_ arguments: [String]) {
        remaining = arguments
    }

    /// Whether `names` (e.g. "--json") is present; removes it.
    mutating func flag(_ names: String...) -> Bool {
        var found = false
        remaining.removeAll { argument in
            if names.contains(argument) { found = true; return true }
            return false
        }
        return found
    }

    /// The value of an option (`--name VALUE` or `--name=VALUE`), if given; removes it.
    mutating func option(_ names: String...) throws(CLIError) -> String? {
        try option(names)
    }

    /// An integer option within `range`.
    mutating func integer(_ names: String..., range: ClosedRange<Int>) throws(CLIError) -> Int? {
        guard let text = try option(names) else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .usage(L("%@ must be a whole number from %@ to %@, not '%@'", names[0], String(range.lowerBound), String(range.upperBound), text))
        }
        return value
    }

    /// A number option within `range`.
    mutating func number(_ names: String..., range: ClosedRange<Double>) throws(CLIError) -> Double? {
        guard let text = try option(names) else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw .usage(L("%@ must be a number from %@ to %@, not '%@'", names[0], String(range.lowerBound), String(range.upperBound), text))
        }
        return value
    }

    private mutating func option(_ names: [String]) throws(CLIError) -> String? {
        var index = 0
        var value: String?
        while index < remaining.count {
            let argument = remaining[index]
            if argument == "--" { break }
            if names.contains(argument) {
                guard index + 1 < remaining.count else { throw .usage(L("%@ needs a value", argument)) }
                value = remaining[index + 1]
                remaining.removeSubrange(index...(index + 1))
                continue
            }
            if let name = names.first(where: { argument.hasPrefix($0 + "=") }) {
                value = String(argument.dropFirst(name.count + 1))
                remaining.remove(at: index)
                continue
            }
            index += 1
        }
        return value
    }

    /// Checks that nothing unknown is left; returns the positional arguments.
    mutating func finish(maximumPositionals: Int = 0) throws(CLIError) -> [String] {
        var positionals: [String] = []
        var afterDashes = false
        for argument in remaining {
            if !afterDashes && argument == "--" { afterDashes = true; continue }
            if !afterDashes && argument.hasPrefix("-") && argument != "-" { throw .usage(L("unknown option '%@'", argument)) }
            positionals.append(argument)
        }
        guard positionals.count <= maximumPositionals else {
            throw .usage(L("unexpected argument '%@'", positionals[maximumPositionals]))
        }
        self.positionals = positionals
        return positionals
    }
}
