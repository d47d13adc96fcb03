/// Location properties cut out of an XMP packet (RDF/XML) byte for byte: each property that
/// `LocationMetadata` calls a location — an element with everything inside it, or an attribute —
/// is overwritten with spaces, so the packet keeps its length (HEIF items and MP4 boxes keep
/// their offsets) and every other byte, the rest of the metadata included, stays as it was.
///
/// The packet is read by a small scanner of its own rather than an XML library: FoundationXML's
/// XMLDocument (libxml2) would re-serialise the whole packet (prefixes, spacing, order) and
/// processes DTDs, which a file's packet must not get to use. The scanner follows elements,
/// attributes, namespace declarations, comments, processing instructions and CDATA, and refuses
/// anything else (a DTD, an entity declaration, UTF-16, an unbalanced tag): such a packet is
/// replaced whole by an empty one of the same length, since what it says cannot be known.
enum XMPLocation {
    /// An empty XMP packet, written in place of one that cannot be read.
    static let emptyPacket = Array("<?xpacket begin=\"\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"/><?xpacket end=\"w\"?>".utf8)

    /// The deepest nesting followed; real packets are under 20 deep.
    static let maximumDepth = 512

    /// Why a packet could not be followed (said only inside Media: the packet is then replaced).
    struct Unreadable: Error {
        /// What was wrong, for tests.
        let reason: String
    }

    /// `packet` without its location, the same length; nil when it has none. A packet that cannot
    /// be read is replaced by `emptyPacket` padded with spaces (or by spaces when shorter).
    static func removingLocation(from packet: [UInt8]) -> [UInt8]? {
        do {
            let ranges = try locationRanges(in: packet)
            guard !ranges.isEmpty else { return nil }
            var out = packet
            for range in ranges { out.replaceSubrange(range, with: repeatElement(0x20, count: range.count)) }
            // Belt and braces: the result must read back, and hold no location.
            guard (try? locationRanges(in: out))?.isEmpty == true else { return blank(length: packet.count) }
            return out
        } catch {
            return blank(length: packet.count)
        }
    }

    /// An empty packet padded with spaces to `length` bytes.
    static func blank(length: Int) -> [UInt8] {
        guard length >= emptyPacket.count else { return [UInt8](repeating: 0x20, count: length) }
        return emptyPacket + [UInt8](repeating: 0x20, count: length - emptyPacket.count)
    }

    /// The byte ranges of `packet` that hold location properties, in order and not overlapping:
    /// whole elements (start tag to end tag), and attributes with the whitespace before them.
    static func locationRanges(in packet: [UInt8]) throws(Unreadable) -> [Range<Int>] {
        var scanner = Scanner(bytes: packet)
        return try scanner.run()
    }

    /// The state of one pass over a packet.
    private struct Scanner {
        /// An element whose end tag is still to come.
        struct Open {
            /// Its qualified name as written.
            let name: ArraySlice<UInt8>
            /// Where its start tag begins.
            let start: Int
            /// True when it is a location property (its whole span goes).
            let isLocation: Bool
        }

        /// A namespace declaration in scope.
        struct Binding {
            /// The prefix ("" for the default namespace).
            let prefix: String
            /// The namespace URI.
            let uri: String
            /// The depth of the element that declared it.
            let depth: Int
        }

        /// The packet.
        let bytes: [UInt8]
        /// Where the scan is.
        var position = 0
        /// The elements open at `position`, outermost first.
        var open: [Open] = []
        /// The namespace declarations in scope (the `xml` prefix is always bound).
        var bindings: [Binding] = [Binding(prefix: "xml", uri: "http://www.w3.org/XML/1998/namespace", depth: 0)]
        /// The location properties found so far.
        var ranges: [Range<Int>] = []
        /// How many open elements are location properties (inside one, nothing more is recorded).
        var removing = 0
        /// Whether the root element has begun (a second one is an error).
        var sawRoot = false

        /// A scanner at the start of `bytes`.
        init(bytes: [UInt8]) { self.bytes = bytes }

        /// Scans the whole packet; returns the location properties' ranges.
        mutating func run() throws(Unreadable) -> [Range<Int>] {
            guard !bytes.contains(0) else { throw Unreadable(reason: "NUL bytes (UTF-16 or binary)") }
            while let next = index(of: 0x3C, from: position) {  // "<"
                position = next
                if starts(with: "<?") {
                    position = try end(of: "?>", from: position + 2)
                } else if starts(with: "<!--") {
                    position = try end(of: "-->", from: position + 4)
                } else if starts(with: "<![CDATA[") {
                    guard !open.isEmpty else { throw Unreadable(reason: "CDATA outside the root") }
                    position = try end(of: "]]>", from: position + 9)
                } else if starts(with: "<!") {
                    throw Unreadable(reason: "a DTD or declaration")
                } else if starts(with: "</") {
                    try endTag()
                } else {
                    try startTag()
                }
            }
            guard open.isEmpty, sawRoot else { throw Unreadable(reason: "the root element is not closed") }
            return ranges
        }

        /// Reads `<name attributes… >` or `… />` at `position`.
        mutating func startTag() throws(Unreadable) {
            let start = position
            position += 1
            let name = try readName()
            var attributes: [(name: ArraySlice<UInt8>, span: Range<Int>, value: ArraySlice<UInt8>)] = []
            var empty = false
            while true {
                let before = position
                skipSpace()
                guard position < bytes.count else { throw Unreadable(reason: "a start tag runs to the end") }
                if bytes[position] == 0x3E { position += 1; break }  // ">"
                if starts(with: "/>") { position += 2; empty = true; break }
                guard position > before else { throw Unreadable(reason: "no space before an attribute") }
                let attribute = try readName()
                skipSpace()
                guard position < bytes.count, bytes[position] == 0x3D else { throw Unreadable(reason: "an attribute without a value") }  // "="
                position += 1
                skipSpace()
                guard position < bytes.count, bytes[position] == 0x22 || bytes[position] == 0x27 else { throw Unreadable(reason: "an unquoted attribute") }
                let quote = bytes[position]
                guard let close = index(of: quote, from: position + 1) else { throw Unreadable(reason: "an attribute value runs to the end") }
                let value = bytes[(position + 1)..<close]
                guard !value.contains(0x3C) else { throw Unreadable(reason: "'<' in an attribute value") }
                position = close + 1
                attributes.append((attribute, before..<position, value))
            }
            guard !sawRoot || !open.isEmpty else { throw Unreadable(reason: "a second root element") }
            sawRoot = true
            let depth = open.count + 1
            guard depth <= XMPLocation.maximumDepth else { throw Unreadable(reason: "nested too deep") }
            for attribute in attributes {
                let text = String(decoding: attribute.name, as: UTF8.self)
                if text == "xmlns" {
                    bindings.append(Binding(prefix: "", uri: String(decoding: attribute.value, as: UTF8.self), depth: depth))
                } else if text.hasPrefix("xmlns:") {
                    bindings.append(Binding(prefix: String(text.dropFirst(6)), uri: String(decoding: attribute.value, as: UTF8.self), depth: depth))
                }
            }
            let (namespace, local) = try resolve(name, isAttribute: false)
            let isLocation = removing == 0 && LocationMetadata.isLocationProperty(namespace: namespace, name: local)
            if removing == 0 && !isLocation {
                for attribute in attributes {
                    let text = String(decoding: attribute.name, as: UTF8.self)
                    guard text != "xmlns", !text.hasPrefix("xmlns:"), text.contains(":") else { continue }
                    let (attributeNamespace, attributeLocal) = try resolve(attribute.name, isAttribute: true)
                    if LocationMetadata.isLocationProperty(namespace: attributeNamespace, name: attributeLocal) { ranges.append(attribute.span) }
                }
            }
            if empty {
                if isLocation { ranges.append(start..<position) }
                bindings.removeAll { $0.depth >= depth }
            } else {
                open.append(Open(name: name, start: start, isLocation: isLocation))
                if isLocation { removing += 1 }
            }
        }

        /// Reads `</name>` at `position` and closes the element it ends.
        mutating func endTag() throws(Unreadable) {
            position += 2
            let name = try readName()
            skipSpace()
            guard position < bytes.count, bytes[position] == 0x3E else { throw Unreadable(reason: "an end tag without '>'") }
            position += 1
            guard let element = open.popLast(), element.name.elementsEqual(name) else { throw Unreadable(reason: "an end tag that closes nothing open") }
            bindings.removeAll { $0.depth > open.count }
            if element.isLocation {
                removing -= 1
                ranges.append(element.start..<position)
            }
        }

        /// The namespace and local name of a qualified name; an unbound prefix is an error.
        func resolve(_ name: ArraySlice<UInt8>, isAttribute: Bool) throws(Unreadable) -> (String, String) {
            let text = String(decoding: name, as: UTF8.self)
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let (prefix, local) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : ("", text)
            if prefix.isEmpty && isAttribute { return ("", local) }
            guard let binding = bindings.last(where: { $0.prefix == prefix }) else {
                if prefix.isEmpty { return ("", local) }
                throw Unreadable(reason: "the prefix \(prefix) is not declared")
            }
            return (binding.uri, local)
        }

        /// Reads a name (up to space, "/", ">" or "="); an empty one is an error.
        mutating func readName() throws(Unreadable) -> ArraySlice<UInt8> {
            let start = position
            while position < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, 0x2F, 0x3E, 0x3D, 0x3C, 0x22, 0x27].contains(bytes[position]) { position += 1 }
            guard position > start else { throw Unreadable(reason: "a tag or attribute without a name") }
            return bytes[start..<position]
        }

        /// Moves past XML whitespace.
        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        }

        /// True when the bytes at `position` spell `text`.
        func starts(with text: String) -> Bool {
            let pattern = Array(text.utf8)
            return position <= bytes.count - pattern.count && bytes[position..<(position + pattern.count)].elementsEqual(pattern)
        }

        /// The index of the first `byte` at or after `from`.
        func index(of byte: UInt8, from: Int) -> Int? {
            guard from < bytes.count else { return nil }
            return bytes[from...].firstIndex(of: byte)
        }

        /// The index just past the first `terminator` at or after `from`.
        func end(of terminator: String, from: Int) throws(Unreadable) -> Int {
            let pattern = Array(terminator.utf8)
            var index = from
            while let candidate = self.index(of: pattern[0], from: index) {
                if candidate <= bytes.count - pattern.count, bytes[candidate..<(candidate + pattern.count)].elementsEqual(pattern) {
                    return candidate + pattern.count
                }
                index = candidate + 1
            }
            throw Unreadable(reason: "\(terminator) never comes")
        }
    }
}
