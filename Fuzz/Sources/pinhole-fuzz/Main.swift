import CFuzzer
import Glibc

/// The target this run fuzzes, from PINHOLE_FUZZ_TARGET (scripts/fuzz sets it): set once in
/// `main`, before libFuzzer calls `fuzzOne` from this thread.
nonisolated(unsafe) private var chosen: FuzzTarget?

/// libFuzzer's callback: one input through the chosen target.
private func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    chosen?.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// The program's entry point, under the name SwiftPM gives an executable's `main`: picks the
/// target, then hands the command line (libFuzzer's flags and corpus folders) to libFuzzer.
@_cdecl("pinhole_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    let name = getenv("PINHOLE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    if name == "--list" {
        say("pinhole-fuzz: targets: \(FuzzTarget.all.map(\.name).joined(separator: " "))")
        for target in FuzzTarget.all { say("pinhole-fuzz:   \(target.name): \(target.summary)") }
        return 0
    }
    guard let target = FuzzTarget.all.first(where: { $0.name == name }) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        say("pinhole-fuzz: set PINHOLE_FUZZ_TARGET to one of: \(names) (scripts/fuzz does)")
        return 2
    }
    chosen = target
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
}

/// Writes a line to standard error.
func say(_ line: String) {
    let text = line + "\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
}
