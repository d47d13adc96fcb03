/// What Pinhole checks of a HEIF file's structure before libheif 1.15 reads it, where libheif
/// does not check: the derived-image references of its items ('dimg' entries of the 'iref'
/// box: a grid's tiles, an overlay's layers), which libheif follows recursively without looking
/// for a loop (a 1.6-KB file whose grid names itself as its own tile took 9 s, tens of
/// thousands of threads and 2 GB, or overflowed the stack with decoding on one thread); and
/// the picture size a grid item declares, which libheif allocates without comparing it to the
/// size the item's properties give (a 1.7-KB file declared a 1.3-gigapixel grid: 2.7 GB; another
/// a 201-megapixel one whose `ispe` said 64×48: 1.6 GB for a "64×48" picture); and
/// where the items' data lie (`iloc`). Found by scripts/fuzz. A camera's HEIF has one level (a
/// grid of coded tiles), a grid its own size, and data inside the file: refusing loops, deep
/// nesting, oversized grids and data past the end loses no real photo.
enum HEIFStructure {
    /// The most derived images stacked on one another (a grid of grids of tiles is 2).
    static let maximumDepth = 4

    /// The top-level `meta` box among the boxes up to the first that does not fit (libheif reads a
    /// file whose later boxes are damaged, so this must find what it finds).
    static func metaBox(_ file: ArraySlice<UInt8>) -> ISOBox? {
        ISOBox.leadingChildren(in: file, range: file.indices).first { $0.name == "meta" }
    }

    /// Throws `.corruptData` when an item's data lie past the end of the file (or of its `idat`),
    /// the file's derivations loop or nest deeper than `maximumDepth`, or a grid declares a
    /// picture over `maximumPixels` (`DecodingLimits`). A file without a `meta` box passes
    /// (libheif judges the rest).
    static func check(_ data: [UInt8], maximumPixels: Int = DecodingLimits.maximumPixels) throws(MediaError) {
        let file = data[...]
        guard let meta = metaBox(file), meta.payload.count >= 4 else { return }
        let boxes = try ISOBox.children(in: file, range: (meta.payload.lowerBound + 4)..<meta.payload.upperBound, format: "HEIF")
        var types: [Int: String] = [:]
        if let iinf = ISOBox.first("iinf", in: boxes) { types = try HEIFItems.infos(iinf, in: file).mapValues(\.type) }
        if let iloc = ISOBox.first("iloc", in: boxes) {
            let locations = try HEIFItems.extents(iloc, in: file, idat: ISOBox.first("idat", in: boxes)?.payload, fileSize: data.count)
            let sizes = try ISOBox.first("iprp", in: boxes).map { iprp throws(MediaError) in try HEIFItems.sizes(iprp, in: file) } ?? [:]
            for (id, type) in types where type == "grid" || type == "iovl" {
                guard let ranges = locations.ranges[id] else { continue }
                try checkCanvas(id, type: type, ranges.flatMap { data[$0] }, size: sizes[id], maximumPixels: maximumPixels)
            }
        }
        try checkDerivations(boxes, in: file, types: types)
    }

    /// Checks the picture size a grid or overlay item declares (its own, which libheif 1.15
    /// allocates without comparing it to the item's `ispe` size: a 1.7-KB file declared a
    /// 20544×65328 grid, another a 16384×12288 one while its `ispe`, which is all a reader
    /// asking for the size sees, said 64×48): within `maximumPixels`, and within `size`, the
    /// item's `ispe`, when it has one (the standard wants the two equal).
    static func checkCanvas(_ id: Int, type: String, _ payload: [UInt8], size: (width: Int, height: Int)? = nil,
                            maximumPixels: Int) throws(MediaError) {
        // grid: version, flags (bit 0: 32-bit sizes), rows − 1, columns − 1, width, height;
        // iovl: version, flags, four 16-bit fill colour channels, width, height, layer offsets.
        let width = payload.count > 1 && payload[1] & 1 == 1 ? 4 : 2
        let start = type == "grid" ? 4 : 10
        let bytes = payload[...]
        guard let columns = UntrustedBytes.bigEndian(bytes, at: start, count: width),
              let rows = UntrustedBytes.bigEndian(bytes, at: start + width, count: width) else {
            throw HEIFItems.corrupt("\(type) item \(id) is \(payload.count) bytes, too short for its size")
        }
        try DecodingLimits.check(width: columns, height: rows, maximumPixels: maximumPixels)
        if let size, columns > size.width || rows > size.height {
            throw HEIFItems.corrupt("\(type) item \(id) declares \(columns)×\(rows) while its ispe says \(size.width)×\(size.height)")
        }
    }

    /// Checks that the 'dimg' references among `boxes` (the `meta` box's) neither loop nor nest
    /// deeper than `maximumDepth`, and that a grid's tiles (`types` by item) are no canvases of
    /// their own (a grid or an overlay as a tile: each tile would allocate its whole canvas).
    static func checkDerivations(_ boxes: [ISOBox], in file: ArraySlice<UInt8>, types: [Int: String] = [:]) throws(MediaError) {
        guard let iref = ISOBox.first("iref", in: boxes), iref.payload.count >= 4 else { return }
        // A full box: version 0 numbers items with 16 bits, version 1 with 32.
        let width = file[iref.payload.lowerBound] == 0 ? 2 : 4
        var derivedFrom: [Int: [Int]] = [:]
        for reference in try ISOBox.children(in: file, range: (iref.payload.lowerBound + 4)..<iref.payload.upperBound, format: "HEIF")
        where reference.name == "dimg" {
            let body = reference.payload
            guard let from = UntrustedBytes.bigEndian(file, at: body.lowerBound, count: width),
                  let count = UntrustedBytes.bigEndian(file, at: body.lowerBound + width, count: 2) else {
                throw HEIFItems.corrupt("a derived image's reference at byte \(reference.start) is cut short")
            }
            var inputs: [Int] = []
            for index in 0..<count {
                let offset = body.lowerBound + width + 2 + index * width
                guard offset + width <= body.upperBound, let input = UntrustedBytes.bigEndian(file, at: offset, count: width) else {
                    throw HEIFItems.corrupt("a derived image's reference at byte \(reference.start) names more images than it holds")
                }
                inputs.append(input)
            }
            if types[from] == "grid", let canvas = inputs.first(where: { types[$0] == "grid" || types[$0] == "iovl" }) {
                throw HEIFItems.corrupt("grid \(from) has \(types[canvas] ?? "") \(canvas) as a tile")
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
                        throw HEIFItems.corrupt("derived images are nested more than \(maximumDepth) deep")
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
                    throw HEIFItems.corrupt("image \(input) is derived from itself (through \(path.map { String($0.item) }.joined(separator: " → ")))")
                }
                guard path.count < maximumDepth else {
                    throw HEIFItems.corrupt("derived images are nested more than \(maximumDepth) deep")
                }
                path.append((input, 0))
                onPath.insert(input)
            }
        }
    }
}
