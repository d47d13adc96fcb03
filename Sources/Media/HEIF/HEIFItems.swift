/// A HEIF file's items as its `meta` box lists them (`iinf`) and places them (`iloc`), read
/// without libheif: for location removal (`HEIFLocation`) and the checks before decoding
/// (`HEIFStructure`).
enum HEIFItems {
    /// What `iinf` says of an item.
    struct Info: Equatable {
        /// The item type ("hvc1", "grid", "Exif", "mime", …; "mime" for infe versions 0 and 1).
        let type: String
        /// A mime item's content type and content encoding (empty when none).
        let contentType: String
        let encoding: String
    }

    /// The items listed by `iinf`, by item ID.
    static func infos(_ iinf: ISOBox, in file: ArraySlice<UInt8>) throws(MediaError) -> [Int: Info] {
        guard let version = UntrustedBytes.bigEndian(file, at: iinf.payload.lowerBound, count: 1) else { throw corrupt("the iinf box is empty") }
        let entries = iinf.payload.lowerBound + 4 + (version == 0 ? 2 : 4)
        guard entries <= iinf.payload.upperBound else { throw corrupt("the iinf box is too short") }
        var items: [Int: Info] = [:]
        for infe in try ISOBox.children(in: file, range: entries..<iinf.payload.upperBound, format: "HEIF") where infe.name == "infe" {
            let body = file[infe.payload]
            guard let entryVersion = UntrustedBytes.bigEndian(body, at: body.startIndex, count: 1) else { throw corrupt("an infe box is empty") }
            var position = body.startIndex + 4
            let idSize = entryVersion == 3 ? 4 : 2
            guard let id = UntrustedBytes.bigEndian(body, at: position, count: idSize) else { throw corrupt("an infe box is too short") }
            position += idSize + 2  // item_protection_index
            var type = "mime"
            if entryVersion >= 2 {
                guard position + 4 <= body.endIndex else { throw corrupt("item \(id)'s infe box is too short") }
                type = String(decoding: body[position..<(position + 4)], as: UTF8.self)
                position += 4
            }
            // Versions 2 and 3: name, content type, encoding; 0 and 1: the same three.
            let strings = body[min(position, body.endIndex)...].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            // Item IDs are unique: a second description would let libheif and these checks each
            // take a different one (a grid libheif decoded, checked here as Exif: 1.2 GB, 7.5 s).
            guard items[id] == nil else { throw corrupt("item \(id) is described twice (infe)") }
            items[id] = Info(type: type, contentType: strings.count > 1 ? strings[1] : "", encoding: strings.count > 2 ? strings[2] : "")
        }
        return items
    }

    /// Where each item's bytes are in the file, extent by extent, from `iloc` (checked to lie
    /// inside the file, or its `idat`); items built from other items' data (construction method
    /// 2) are listed apart, and items in other files (a data reference) not at all.
    static func extents(_ iloc: ISOBox, in file: ArraySlice<UInt8>, idat: Range<Int>?, fileSize: Int) throws(MediaError)
        -> (ranges: [Int: [Range<Int>]], builtFromOthers: Set<Int>) {
        let body = file[iloc.payload]
        guard let version = UntrustedBytes.bigEndian(body, at: body.startIndex, count: 1), version <= 2,
              let sizes = UntrustedBytes.bigEndian(body, at: body.startIndex + 4, count: 2) else { throw corrupt("the iloc box is too short or of an unknown version") }
        let offsetSize = sizes >> 12, lengthSize = sizes >> 8 & 0xF, baseSize = sizes >> 4 & 0xF
        let indexSize = version >= 1 ? sizes & 0xF : 0
        guard [0, 4, 8].contains(offsetSize), [0, 4, 8].contains(lengthSize), [0, 4, 8].contains(baseSize), [0, 4, 8].contains(indexSize) else {
            throw corrupt("the iloc box's field sizes are not 0, 4 or 8")
        }
        var position = body.startIndex + 6
        /// Reads the next `count`-byte field.
        func field(_ count: Int) throws(MediaError) -> Int {
            guard let value = UntrustedBytes.bigEndian(body, at: position, count: count) else { throw corrupt("the iloc box ends inside an item") }
            position += count
            return value
        }
        let itemCount = try field(version < 2 ? 2 : 4)
        var result: [Int: [Range<Int>]] = [:]
        var builtFromOthers: Set<Int> = []
        for _ in 0..<min(itemCount, body.count) {
            let id = try field(version < 2 ? 2 : 4)
            let method = version >= 1 ? try field(2) & 0xF : 0
            let reference = try field(2)
            let base = try field(baseSize)
            let extentCount = try field(2)
            // Extents whose fields are all 0 bytes wide read nothing: one is the whole data from
            // the base on; more say nothing new, and 4 KB of items listing 65,535 each cost seconds.
            if indexSize + offsetSize + lengthSize == 0, extentCount > 1 {
                throw corrupt("item \(id) lists \(extentCount) extents in fields 0 bytes wide")
            }
            var ranges: [Range<Int>] = []
            for _ in 0..<extentCount {
                if indexSize > 0 { _ = try field(indexSize) }
                let offset = try field(offsetSize), length = try field(lengthSize)
                guard reference == 0 else { continue }
                let (origin, limit): (Int, Int)
                switch method {
                case 0: (origin, limit) = (0, fileSize)
                case 1:
                    guard let idat else { throw corrupt("item \(id) is stored in an idat box the file does not have") }
                    (origin, limit) = (idat.lowerBound, idat.upperBound)
                default:
                    builtFromOthers.insert(id)
                    continue
                }
                guard let start = checkedSum(origin, base, offset), start <= limit else { throw corrupt("item \(id) starts past the end of its data") }
                let end = length == 0 ? limit : checkedSum(start, length)
                guard let end, end <= limit else { throw corrupt("item \(id) runs past the end of its data") }
                ranges.append(start..<end)
            }
            if reference == 0, !builtFromOthers.contains(id) { result[id] = ranges }
        }
        return (result, builtFromOthers)
    }

    /// The size each item's `ispe` property gives (`iprp`: the properties in `ipco`, numbered
    /// from 1, and which belong to which item in `ipma`), by item ID; items without one are left
    /// out. Associations naming no property are skipped, as libheif skips them.
    static func sizes(_ iprp: ISOBox, in file: ArraySlice<UInt8>) throws(MediaError) -> [Int: (width: Int, height: Int)] {
        let boxes = try ISOBox.children(in: file, range: iprp.payload, format: "HEIF")
        guard let ipco = ISOBox.first("ipco", in: boxes) else { return [:] }
        let properties = try ISOBox.children(in: file, range: ipco.payload, format: "HEIF")
        var result: [Int: (width: Int, height: Int)] = [:]
        for ipma in boxes where ipma.name == "ipma" {
            let body = file[ipma.payload]
            var position = body.startIndex
            /// Reads the next `count`-byte field.
            func field(_ count: Int) throws(MediaError) -> Int {
                guard let value = UntrustedBytes.bigEndian(body, at: position, count: count) else { throw corrupt("the ipma box ends inside an item") }
                position += count
                return value
            }
            let version = try field(1)
            let flags = try field(3)
            let entries = try field(4)
            for _ in 0..<min(entries, body.count) {
                let id = try field(version < 1 ? 2 : 4)
                for _ in 0..<(try field(1)) {
                    // The top bit says whether the property is essential; the rest, its index.
                    let index = try field(flags & 1 == 1 ? 2 : 1) & (flags & 1 == 1 ? 0x7FFF : 0x7F)
                    guard index >= 1, index <= properties.count, properties[index - 1].name == "ispe" else { continue }
                    let ispe = properties[index - 1].payload
                    guard let width = UntrustedBytes.bigEndian(file, at: ispe.lowerBound + 4, count: 4),
                          let height = UntrustedBytes.bigEndian(file, at: ispe.lowerBound + 8, count: 4),
                          ispe.lowerBound + 12 <= ispe.upperBound else {
                        throw corrupt("item \(id)'s ispe property is too short")
                    }
                    result[id] = (width, height)
                }
            }
        }
        return result
    }

    /// The error for a damaged HEIF structure.
    static func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: "HEIF", reason: reason)
    }
}
