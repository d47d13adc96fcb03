/// The derived-image references of a HEIF file ('dimg' entries of its 'iref' box: a grid's
/// tiles, an overlay's layers), read without libheif. libheif 1.15 follows them recursively
/// when it decodes and never checks for a loop: a 1.6-KB file whose grid names itself as its
/// own tile took 9 s, tens of thousands of threads and 2 GB, or overflowed the stack with
/// decoding on one thread (found by scripts/fuzz). A camera's HEIF has one level (a grid of
/// coded tiles); refusing loops and deep nesting loses no real photo.
enum HEIFDerivations {
    /// The most derived images stacked on one another (a grid of grids of tiles is 2).
    static let maximumDepth = 4

    /// The top-level `meta` box, walking boxes until it or one that does not fit (libheif reads
    /// a file whose later boxes are damaged, so this must find what it finds).
    static func metaBox(_ file: ArraySlice<UInt8>) -> ISOBox? {
        var position = file.startIndex
        while file.endIndex - position >= 8 {
            guard let boxes = try? ISOBox.children(in: file, range: position..<min(file.endIndex, position + headerRoom(file, at: position)), format: "HEIF"),
                  let box = boxes.first else { return nil }
            if box.name == "meta" { return box }
            position = box.range.upperBound
        }
        return nil
    }

    /// The bytes the box at `position` declares (its 32- or 64-bit size; 0: to the end), or 0 when unreadable.
    private static func headerRoom(_ file: ArraySlice<UInt8>, at position: Int) -> Int {
        guard let size = UntrustedBytes.bigEndian(file, at: position, count: 4) else { return 0 }
        if size == 0 { return file.endIndex - position }
        if size == 1 { return UntrustedBytes.bigEndian(file, at: position + 8, count: 8) ?? 0 }
        return size
    }

    /// Throws `.corruptData` when the file's derivations loop, or nest deeper than `maximumDepth`.
    /// A file without a `meta` box or without references passes (libheif judges the rest).
    static func check(_ data: [UInt8]) throws(MediaError) {
        let file = data[...]
        guard let meta = metaBox(file), meta.payload.count >= 4 else { return }
        let boxes = try ISOBox.children(in: file, range: (meta.payload.lowerBound + 4)..<meta.payload.upperBound, format: "HEIF")
        guard let iref = ISOBox.first("iref", in: boxes), iref.payload.count >= 4 else { return }
        // A full box: version 0 numbers items with 16 bits, version 1 with 32.
        let width = file[iref.payload.lowerBound] == 0 ? 2 : 4
        var derivedFrom: [Int: [Int]] = [:]
        for reference in try ISOBox.children(in: file, range: (iref.payload.lowerBound + 4)..<iref.payload.upperBound, format: "HEIF")
        where reference.name == "dimg" {
            let body = reference.payload
            guard let from = UntrustedBytes.bigEndian(file, at: body.lowerBound, count: width),
                  let count = UntrustedBytes.bigEndian(file, at: body.lowerBound + width, count: 2) else {
                throw .corruptData(format: "HEIF", reason: "a derived image's reference at byte \(reference.start) is cut short")
            }
            var inputs: [Int] = []
            for index in 0..<count {
                let offset = body.lowerBound + width + 2 + index * width
                guard offset + width <= body.upperBound, let input = UntrustedBytes.bigEndian(file, at: offset, count: width) else {
                    throw .corruptData(format: "HEIF", reason: "a derived image's reference at byte \(reference.start) names more images than it holds")
                }
                inputs.append(input)
            }
            derivedFrom[from, default: []] += inputs
        }
        // Depth-first from every derived image, the path kept: an image met again on its own
        // path is a loop. Each image's level (1: derived from coded images only) is reckoned
        // once, when its inputs are done, so this is linear in the references.
        var level: [Int: Int] = [:]
        for root in derivedFrom.keys where level[root] == nil {
            var path: [(item: Int, next: Int)] = [(root, 0)]
            var onPath: Set<Int> = [root]
            while let (item, next) = path.last {
                let inputs = derivedFrom[item] ?? []
                guard next < inputs.count else {
                    let below = inputs.compactMap { level[$0] }.max() ?? 0
                    guard below < maximumDepth else {
                        throw .corruptData(format: "HEIF", reason: "derived images are nested more than \(maximumDepth) deep")
                    }
                    level[item] = below + 1
                    path.removeLast()
                    onPath.remove(item)
                    continue
                }
                path[path.count - 1].next += 1
                let input = inputs[next]
                guard derivedFrom[input] != nil, level[input] == nil else { continue }
                guard !onPath.contains(input) else {
                    throw .corruptData(format: "HEIF", reason: "image \(input) is derived from itself (through \(path.map { String($0.item) }.joined(separator: " → ")))")
                }
                guard path.count < maximumDepth else {
                    throw .corruptData(format: "HEIF", reason: "derived images are nested more than \(maximumDepth) deep")
                }
                path.append((input, 0))
                onPath.insert(input)
            }
        }
    }
}
