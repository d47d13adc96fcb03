internal import CMediaLoader
import Glibc

/// Where a movie keeps a location, and how it is removed.
///
/// MP4 and MOV: user-data boxes (©xyz, 3GPP's loci; in `moov` and in each track), QuickTime
/// `meta` keys (com.apple.quicktime.location.*) and item-list entries, and XMP (the top-level
/// `uuid` box, QuickTime's `XMP_`). The file is copied byte for byte and the copy edited in place
/// without changing any length: a location box becomes `free` space, a `meta` box is written
/// again without its location keys and followed by a `free` box for the bytes it lost, XMP
/// properties become spaces. So no chunk offset moves, and the streams and every other box stay.
///
/// Matroska and WebM: their tags, as FFmpeg reads them; the file is copied into a new container
/// without the location tags (streams copied, not re-encoded).
enum MovieLocation {
    /// The most bytes of `moov` (or a top-level `meta` or XMP box) read into memory: 256 MiB.
    static let maximumMetadata = 256 << 20
    /// The uuid that marks an XMP box (BE7ACFCB-97A9-42E8-9C71-999491E3AFAC).
    static let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]

    /// True when the movie at `path` has a location anywhere.
    static func containsLocation(path: String) throws(MediaError) -> Bool {
        let head = try FileBytes.read(path: path, limit: 64, truncating: true)
        switch MovieKind(sniffing: head) {
        case .mp4, .mov:
            let file = try RegularFile(path: path)
            return try withExtendedLifetime(file) { () throws(MediaError) in try !boxEdits(file.descriptor, path: path).isEmpty }
        case .webm, .matroska:
            return try tagsHoldLocation(path)
        case nil:
            throw .corruptData(format: "movie", reason: "it is not an MP4, MOV, WebM or MKV file")
        }
    }

    /// Copies the movie at `source` to `path` (or the first free "name (n).ext") without location.
    static func copyWithoutLocation(from source: String, to path: String) throws(MediaError) -> String {
        let head = try FileBytes.read(path: source, limit: 64, truncating: true)
        guard let kind = MovieKind(sniffing: head) else { throw .corruptData(format: "movie", reason: "it is not an MP4, MOV, WebM or MKV file") }
        guard kind == .mp4 || kind == .mov else {
            return try MovieRemuxer.copyWithoutLocation(from: source, to: path, dropping: LocationMetadata.isLocationKey)
        }
        let (folder, name) = AtomicFile.split(path)
        let copy = try AtomicFile.copy(from: source, to: "\(folder)/.\(name).\(getpid()).private.tmp")
        defer { unlink(copy) }
        let fd = try openCopy(copy)
        defer { close(fd) }
        for edit in try boxEdits(fd, path: copy) {
            var done = 0
            while done < edit.replacement.count {
                let put = edit.replacement.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(edit.range.lowerBound + done)) }
                if put < 0, errno == EINTR { continue }
                guard put > 0 else { throw AtomicFile.failure(copy, errno) }
                done += put
            }
        }
        guard try boxEdits(fd, path: copy).isEmpty else {
            throw .corruptData(format: "movie", reason: "the location could not be removed from every place it is kept")
        }
        guard fsync(fd) == 0 else { throw AtomicFile.failure(copy, errno) }
        return try AtomicFile.place(copy, at: path)
    }

    /// The same-length edits that remove the location from the MP4 or MOV open as `fd`.
    private static func boxEdits(_ fd: Int32, path: String) throws(MediaError) -> [LocationEdit] {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw AtomicFile.failure(path, errno) }
        let size = Int(info.st_size)
        let reader = UntrustedBytes(descriptor: fd, size: size, path: path, format: "movie")
        var edits: [LocationEdit] = []
        var position = 0
        while size - position >= 8 {
            let header = try reader.read(position..<(position + min(32, size - position)))
            guard var length = UntrustedBytes.bigEndian(header[...], at: 0, count: 4) else { break }
            let type = Array(header[4..<8])
            if length == 1 {
                guard let large = UntrustedBytes.bigEndian(header[...], at: 8, count: 8) else { throw corrupt("a 64-bit box size is malformed") }
                length = large
            } else if length == 0 {
                length = size - position
            }
            guard length >= 8, length <= size - position else { throw corrupt("the \(String(decoding: type, as: UTF8.self)) box at byte \(position) runs past the end") }
            if ["moov", "meta", "uuid"].contains(String(decoding: type, as: UTF8.self)) {
                guard length <= maximumMetadata else { throw .unsupported("removing the location from a movie whose metadata is over \(maximumMetadata >> 20) MiB") }
                let bytes = try reader.read(position..<(position + length))
                edits += try self.edits(inBoxes: bytes[...], range: 0..<bytes.count, parent: "file").map {
                    LocationEdit(range: ($0.range.lowerBound + position)..<($0.range.upperBound + position), replacement: $0.replacement)
                }
            }
            position += length
        }
        return edits
    }

    /// The edits for the boxes in `range` of `bytes`, children of a `parent` box.
    private static func edits(inBoxes bytes: ArraySlice<UInt8>, range: Range<Int>, parent: String) throws(MediaError) -> [LocationEdit] {
        var edits: [LocationEdit] = []
        for box in try ISOBox.children(in: bytes, range: range, format: "movie") {
            switch box.name {
            case "moov", "trak", "udta":
                edits += try self.edits(inBoxes: bytes, range: box.payload, parent: box.name)
            case "meta":
                if let edit = try metaEdit(box, in: bytes) { edits.append(edit) }
            case "uuid" where bytes[(box.payload.lowerBound - 16)..<box.payload.lowerBound].elementsEqual(xmpUUID):
                if let clean = XMPLocation.removingLocation(from: Array(bytes[box.payload])) { edits.append(LocationEdit(range: box.payload, replacement: clean)) }
            case "XMP_" where parent == "udta":
                if let clean = XMPLocation.removingLocation(from: Array(bytes[box.payload])) { edits.append(LocationEdit(range: box.payload, replacement: clean)) }
            default:
                if parent == "udta", LocationMetadata.movieBoxes.contains(box.type) { edits.append(freed(box, in: bytes)) }
            }
        }
        return edits
    }

    /// `box` turned into a `free` box of the same size, its contents zeroed.
    private static func freed(_ box: ISOBox, in bytes: ArraySlice<UInt8>) -> LocationEdit {
        let header = Array(bytes[box.start..<(box.start + 4)]) + Array("free".utf8) + Array(bytes[(box.start + 8)..<box.payload.lowerBound])
        return LocationEdit(range: box.range, replacement: header + [UInt8](repeating: 0, count: box.payload.count))
    }

    /// A `meta` box without its location keys and items (QuickTime's `keys` + `ilst`, or an item
    /// list of ©xyz), followed by a `free` box as long as the bytes it lost; nil when it has none.
    private static func metaEdit(_ meta: ISOBox, in bytes: ArraySlice<UInt8>) throws(MediaError) -> LocationEdit? {
        // ISO's meta is a full box (4 bytes of version and flags before its children); QuickTime's is not.
        let isFull = meta.payload.count >= 12 && bytes[(meta.payload.lowerBound + 8)..<(meta.payload.lowerBound + 12)].elementsEqual(Array("hdlr".utf8))
        let start = meta.payload.lowerBound + (isFull ? 4 : 0)
        let children = try ISOBox.children(in: bytes, range: start..<meta.payload.upperBound, format: "movie")
        var keyNames: [String] = []
        if let keys = ISOBox.first("keys", in: children) {
            guard let count = UntrustedBytes.bigEndian(bytes, at: keys.payload.lowerBound + 4, count: 4) else { throw corrupt("the keys box is too short") }
            var position = keys.payload.lowerBound + 8
            for _ in 0..<min(count, keys.payload.count / 8) {
                guard let size = UntrustedBytes.bigEndian(bytes, at: position, count: 4), size >= 8, size <= keys.payload.upperBound - position else {
                    throw corrupt("a key runs past the end of the keys box")
                }
                keyNames.append(String(decoding: bytes[(position + 8)..<(position + size)], as: UTF8.self))
                position += size
            }
        }
        let removedKeys = Set(keyNames.indices.filter { LocationMetadata.isLocationKey(keyNames[$0]) }.map { $0 + 1 })
        var items: [ISOBox] = []
        var droppedItem = false
        let ilst = ISOBox.first("ilst", in: children)
        if let ilst {
            for item in try ISOBox.children(in: bytes, range: ilst.payload, format: "movie") {
                let index = UntrustedBytes.bigEndian(item.type[...], at: 0, count: 4) ?? 0
                if removedKeys.contains(index) || LocationMetadata.movieBoxes.contains(item.type) { droppedItem = true } else { items.append(item) }
            }
        }
        guard !removedKeys.isEmpty || droppedItem else { return nil }
        /// The new index of key `index` once the removed keys are gone.
        func renumbered(_ index: Int) -> Int { index - removedKeys.filter { $0 < index }.count }
        var body = Array(bytes[meta.payload.lowerBound..<start])
        for child in children {
            switch child.name {
            case "keys" where !removedKeys.isEmpty:
                var entries: [UInt8] = []
                var position = child.payload.lowerBound + 8
                for (offset, _) in keyNames.enumerated() {
                    let size = UntrustedBytes.bigEndian(bytes, at: position, count: 4) ?? 8
                    if !removedKeys.contains(offset + 1) { entries += bytes[position..<(position + size)] }
                    position += size
                }
                let payload = Array(bytes[child.payload.lowerBound..<(child.payload.lowerBound + 4)]) + BigEndian.bytes(keyNames.count - removedKeys.count, count: 4) + entries
                body += BigEndian.bytes(payload.count + 8, count: 4) + Array("keys".utf8) + payload
            case "ilst":
                var payload: [UInt8] = []
                for item in items {
                    let index = UntrustedBytes.bigEndian(item.type[...], at: 0, count: 4) ?? 0
                    let type = keyNames.isEmpty || index == 0 || index > keyNames.count ? item.type : BigEndian.bytes(renumbered(index), count: 4)
                    payload += BigEndian.bytes(item.payload.count + 8, count: 4) + type + bytes[item.payload]
                }
                body += BigEndian.bytes(payload.count + 8, count: 4) + Array("ilst".utf8) + payload
            default:
                body += bytes[child.range]
            }
        }
        let rebuilt = BigEndian.bytes(body.count + 8, count: 4) + Array("meta".utf8) + body
        let spare = meta.range.count - rebuilt.count
        guard spare >= 8 else { throw corrupt("the meta box cannot be rewritten in its own space") }
        return LocationEdit(range: meta.range, replacement: rebuilt + BigEndian.bytes(spare, count: 4) + Array("free".utf8) + [UInt8](repeating: 0, count: spare - 8))
    }

    /// True when a Matroska or WebM file's container or stream tags hold a location (FFmpeg reads them).
    private static func tagsHoldLocation(_ path: String) throws(MediaError) -> Bool {
        try FFmpegLibrary.require()
        FFmpegLog.enter()
        defer { FFmpegLog.leave() }
        // FFmpeg opens the checked file through its descriptor: never a FIFO or a device.
        let file = try RegularFile(path: path)
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let status = withExtendedLifetime(file) { ffmpeg.avformat_open_input(&opened, file.descriptorPath, nil, nil) }
        guard status >= 0, let context = opened else { throw .corruptData(format: "movie", reason: MovieFile.message(status)) }
        defer { ffmpeg.avformat_close_input(&opened) }
        var dictionaries = [context.pointee.metadata]
        for index in 0..<Int(context.pointee.nb_streams) { dictionaries.append(context.pointee.streams[index]?.pointee.metadata) }
        for dictionary in dictionaries {
            var entry: UnsafeMutablePointer<AVDictionaryEntry>?
            while let next = ffmpeg.av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
                entry = next
                if let key = next.pointee.key, LocationMetadata.isLocationKey(String(cString: key)) { return true }
            }
        }
        return false
    }

    /// Opens the temporary copy `copyWithoutLocation` has just made, to edit it in place.
    private static func openCopy(_ path: String) throws(MediaError) -> Int32 {
        let fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, failure: FileFailure(errno: errno)) }
        return fd
    }

    /// The error for a damaged movie structure.
    private static func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: "movie", reason: reason)
    }
}
