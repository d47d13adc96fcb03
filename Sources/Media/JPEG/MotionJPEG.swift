
/// Turns a camera's Motion-JPEG frame into a standalone JPEG file.
///
/// Many webcams leave the Huffman tables (DHT) out of their frames and rely on the standard
/// tables of the JPEG specification (Annex K); decoders of files do not all assume them.
/// The standard tables are taken once from libjpeg-turbo's own output (it writes exactly
/// those when not optimising) and inserted before the first SOF when a frame has none.
public enum MotionJPEG {
    private static let standardTables = Lock<[UInt8]?>(nil)

    /// `frame` as a standalone JPEG: unchanged when it has Huffman tables, else with the
    /// standard ones inserted before its frame header.
    public static func standalone(_ frame: [UInt8]) throws(MediaError) -> [UInt8] {
        let segments = try JPEGSegment.header(of: frame)
        if segments.contains(where: { $0.marker == 0xC4 }) { return frame }
        guard let sof = segments.first(where: { (0xC0...0xCF).contains($0.marker) && $0.marker != 0xC4 && $0.marker != 0xC8 && $0.marker != 0xCC }) else {
            throw .corruptData(format: "JPEG", reason: "no frame header (SOF) before the scan")
        }
        let tables = try huffmanTables()
        return Array(frame[..<sof.start]) + tables + Array(frame[sof.start...])
    }

    /// True when the frame carries its own Huffman tables.
    public static func hasHuffmanTables(_ frame: [UInt8]) throws(MediaError) -> Bool {
        try JPEGSegment.header(of: frame).contains { $0.marker == 0xC4 }
    }

    /// The DHT segments (markers included) libjpeg-turbo writes for a colour image.
    static func huffmanTables() throws(MediaError) -> [UInt8] {
        if let cached = standardTables.withLock({ $0 }) { return cached }
        let sample = try PixelBuffer(format: .bgra, width: 16, height: 16)
        for index in 0..<(16 * 16 * 4) { sample.baseAddress.storeBytes(of: UInt8(truncatingIfNeeded: index &* 37), toByteOffset: index, as: UInt8.self) }
        let jpeg = try JPEGEncoder().encode(sample, quality: 75, subsampling: .s422)
        let tables = try JPEGSegment.header(of: jpeg).filter { $0.marker == 0xC4 }.flatMap { jpeg[$0.start..<$0.end] }
        guard !tables.isEmpty else { throw .encoderFailed(format: "JPEG", reason: "libjpeg-turbo wrote no Huffman tables") }
        standardTables.withLock { $0 = tables }
        return tables
    }
}
