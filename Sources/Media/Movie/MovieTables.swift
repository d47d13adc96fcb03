/// What Pinhole checks of an MP4 or MOV file's sample tables before FFmpeg opens it: FFmpeg 5.1's
/// mov demuxer allocates entries for every sample a table declares before it reads them, and a
/// 4.2-KB file whose 40-byte `trun` declared 83,886,080 samples had it allocate 2.1 GB in
/// `avformat_open_input` (found by scripts/fuzz). A table that declares more entries than its
/// box holds is damage, refused with the box's name. So is a track without its header (`tkhd`):
/// with one, FFmpeg spent 1 to 3 s on 2.7-to-6-KB fragmented files that, repaired, took 0.1 s.
/// Boxes are walked as FFmpeg reads them, a box overrunning its parent cut to it (`children`).
enum MovieTables {
    /// The largest `moov` or `moof` read whole for the check (a longer one is left to FFmpeg).
    static let largestBox = 64 << 20
    /// The most boxes looked at along the file's top level, so a damaged file cannot keep this busy.
    static let mostBoxes = 1_000_000

    /// `check` for an MP4 or MOV file (`kind`, when the caller sniffed it already, else by the
    /// file's first bytes); other files pass. Call it before every `avformat_open_input` of a
    /// file Pinhole did not just write.
    static func checkIfISO(_ file: RegularFile, kind known: MovieKind? = nil) throws(MediaError) {
        var kind = known
        if kind == nil { kind = MovieKind(sniffing: try file.read(upTo: 64)) }
        if kind == .mp4 || kind == .mov { try check(file) }
    }

    /// Throws `.corruptData` when a sample table of the file declares more entries than its box
    /// holds (or, for a `trun` without per-sample fields, more samples than the file has bytes).
    static func check(_ file: RegularFile) throws(MediaError) {
        var offset = 0
        for _ in 0..<mostBoxes {
            let header = try file.read(upTo: 16, at: offset)
            guard header.count >= 8, let declared = UntrustedBytes.bigEndian(header[...], at: 0, count: 4) else { return }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var size = declared, headerSize = 8
            if declared == 1 {
                guard let large = UntrustedBytes.bigEndian(header[...], at: 8, count: 8) else { return }
                size = large
                headerSize = 16
            } else if declared == 0 {
                size = file.size - offset
            }
            guard size >= headerSize, let end = checkedSum(offset, size) else { return }  // FFmpeg's to judge
            if type == "moov" || type == "moof", size <= largestBox {
                let box = try file.read(upTo: size, at: offset)
                try checkContainer(box[...], range: headerSize..<box.count, fileSize: file.size)
            }
            offset = end
        }
    }

    /// The containers walked down to the tables.
    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "moof", "traf", "edts"]

    /// The boxes in `range` of `bytes` as FFmpeg's mov demuxer reads them: a box that claims more
    /// than its parent has left is cut to what is left (FFmpeg reads it so, rather than stopping:
    /// a `traf` 8 bytes longer than its `moof` hid a 2.1-GB `trun` from a walk that stopped).
    static func children(in bytes: ArraySlice<UInt8>, range: Range<Int>) -> [ISOBox] {
        ISOBox.leadingChildren(in: bytes, range: range, cuttingOverruns: true)
    }

    /// Walks the boxes in `range` of `bytes` (`children`), checking each table and going into
    /// containers.
    private static func checkContainer(_ bytes: ArraySlice<UInt8>, range: Range<Int>, fileSize: Int) throws(MediaError) {
        for box in children(in: bytes, range: range) {
            if box.name == "trak", !children(in: bytes, range: box.payload).contains(where: { $0.name == "tkhd" }) {
                throw .corruptData(format: "movie", reason: "a track (trak box) has no track header (tkhd)")
            }
            if containers.contains(box.name) {
                try checkContainer(bytes, range: box.payload, fileSize: fileSize)
            } else {
                try checkTable(box, in: bytes, fileSize: fileSize)
            }
        }
    }

    /// Checks one table: its entry count against the bytes after its count.
    private static func checkTable(_ box: ISOBox, in bytes: ArraySlice<UInt8>, fileSize: Int) throws(MediaError) {
        let body = box.payload
        /// The big-endian value of `width` bytes at `at` bytes into the box's body.
        func value(_ at: Int, _ width: Int) -> Int? {
            body.count >= at + width ? UntrustedBytes.bigEndian(bytes, at: body.lowerBound + at, count: width) : nil
        }
        let entries: Int, entrySize: Int, tableStart: Int
        switch box.name {
        case "stts", "ctts", "co64":
            guard let count = value(4, 4) else { return }
            (entries, entrySize, tableStart) = (count, 8, 8)
        case "stsc":
            guard let count = value(4, 4) else { return }
            (entries, entrySize, tableStart) = (count, 12, 8)
        case "stss", "stco":
            guard let count = value(4, 4) else { return }
            (entries, entrySize, tableStart) = (count, 4, 8)
        case "stsz":
            guard let sampleSize = value(4, 4), let count = value(8, 4) else { return }
            (entries, entrySize, tableStart) = (count, sampleSize == 0 ? 4 : 0, 12)
        case "trun":
            guard let flags = value(0, 4).map({ $0 & 0xFF_FFFF }), let count = value(4, 4) else { return }
            let perSample = 4 * (flags & 0xF00).nonzeroBitCount
            let start = 8 + (flags & 0x1 != 0 ? 4 : 0) + (flags & 0x4 != 0 ? 4 : 0)
            guard perSample > 0 else {
                guard count <= fileSize else {
                    throw .corruptData(format: "movie", reason: "a trun box declares \(count) samples, more than the \(fileSize)-byte file could hold")
                }
                return
            }
            (entries, entrySize, tableStart) = (count, perSample, start)
        default:
            return
        }
        guard entrySize > 0 else { return }
        let room = max(0, body.count - tableStart) / entrySize
        guard entries <= room else {
            throw .corruptData(format: "movie", reason: "a \(box.name) box of \(box.range.count) bytes declares \(entries) entries, room for \(room)")
        }
    }
}
