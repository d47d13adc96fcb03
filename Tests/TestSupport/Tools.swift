import Foundation
import Testing

/// What an external program printed and how it ended.
public struct ToolResult {
    /// The exit status.
    public var status: Int32
    /// Standard output.
    public var stdout: String
    /// Standard error.
    public var stderr: String

    /// A result as given.
    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs an independent tool (exiftool, pngcheck, heif-info, …) found on PATH. A missing tool is
/// a failure, not a skip: the tests exist to have files checked by programs we did not write.
public func runTool(_ name: String, _ arguments: [String]) throws -> ToolResult {
    let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
    guard let executable = paths.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        Issue.record("\(name) is not installed; run scripts/setup")
        throw CocoaError(.fileNoSuchFile)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
}

/// CRC-32 as PNG uses it, for crafting test files by hand.
public func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// A PNG chunk with its length and CRC.
public func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let body = Array(type.utf8) + data
    return be(UInt32(data.count)) + body + be(crc32(body))
}

/// A tiny, valid-looking PNG whose header claims `width`×`height` (a decompression bomb when large).
public func pngHeaderOnly(width: UInt32, height: UInt32) -> [UInt8] {
    func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    let ihdr = be(width) + be(height) + [8, 6, 0, 0, 0]
    // An IDAT holding a few bytes of a zlib stream of zeros: enough to start inflating.
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + pngChunk("IHDR", ihdr)
        + pngChunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x18, 0x05, 0x00]) + pngChunk("IEND", [])
}

/// Deterministic pseudo-random bytes.
public func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}
