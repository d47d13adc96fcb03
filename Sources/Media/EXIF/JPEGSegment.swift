/// One marker segment of a JPEG's header, found by walking the markers from SOI to SOS.
struct JPEGSegment: Sendable, Equatable {
    /// The marker's second byte (0xE1 for APP1, 0xDA for SOS…).
    let marker: UInt8
    /// Index of the segment's first byte (the 0xFF of its marker, after any fill bytes).
    let start: Int
    /// Where the payload is: after the 2-byte length field, up to the end of the segment.
    /// Empty for markers without a length (RSTn, TEM).
    let payload: Range<Int>

    /// Index just past the segment.
    var end: Int { payload.upperBound }

    /// True for an APP1 segment whose payload starts with "Exif\0\0".
    func isExif(in jpeg: [UInt8]) -> Bool {
        marker == 0xE1 && jpeg[payload].starts(with: ExifPayload.header)
    }

    /// The segments of `jpeg` from the one after SOI up to and including SOS (or up to EOI for a
    /// JPEG without image data), every length checked against the end of the data.
    ///
    /// Throws `.corruptData(format: "JPEG", …)` when the data does not start with SOI, a byte
    /// where a marker belongs is not 0xFF, a length is under 2 or runs past the end, or the data
    /// ends before SOS. The entropy-coded data after SOS is not looked at.
    static func header(of jpeg: [UInt8]) throws(MediaError) -> [JPEGSegment] {
        guard jpeg.count >= 2, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else {
            throw corrupt("no start-of-image marker (FF D8) at the start")
        }
        let reader = UntrustedBytes(jpeg, format: "JPEG")
        var segments: [JPEGSegment] = []
        var position = 2
        while true {
            guard position < jpeg.count else {
                throw corrupt("the data ends at byte \(jpeg.count), before the start-of-scan marker (truncated?)")
            }
            guard jpeg[position] == 0xFF else {
                throw corrupt("byte \(position) is 0x\(hex(jpeg[position])) where a marker (0xFF) should start")
            }
            let start = position
            while position < jpeg.count, jpeg[position] == 0xFF { position += 1 }  // fill bytes
            guard position < jpeg.count else {
                throw corrupt("the data ends at byte \(jpeg.count), inside a marker")
            }
            let marker = jpeg[position]
            position += 1
            switch marker {
            case 0x01, 0xD0...0xD7:
                segments.append(JPEGSegment(marker: marker, start: start, payload: position..<position))
                continue
            case 0xD9:
                segments.append(JPEGSegment(marker: marker, start: start, payload: position..<position))
                return segments
            case 0x00, 0xD8:
                throw corrupt("unexpected marker FF \(hex(marker)) at byte \(start) in the header")
            default:
                break
            }
            guard position + 2 <= jpeg.count else {
                throw corrupt("the data ends at byte \(jpeg.count), inside the length of marker FF \(hex(marker)) at byte \(start)")
            }
            let length = Int(try reader.u16(at: position, .bigEndian))
            guard length >= 2 else {
                throw corrupt("marker FF \(hex(marker)) at byte \(start) declares a length of \(length), less than 2")
            }
            guard length <= jpeg.count - position else {
                throw corrupt("marker FF \(hex(marker)) at byte \(start) declares \(length) bytes but only \(jpeg.count - position) remain (truncated?)")
            }
            let segment = try reader.range(at: position, length: length)
            segments.append(JPEGSegment(marker: marker, start: start, payload: (position + 2)..<segment.upperBound))
            position = segment.upperBound
            if marker == 0xDA { return segments }
        }
    }

    /// The error for a structurally damaged JPEG.
    private static func corrupt(_ reason: String) -> MediaError {
        .corruptData(format: "JPEG", reason: reason)
    }
}
