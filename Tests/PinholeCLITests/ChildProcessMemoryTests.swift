import Glibc
import PinholeTestSupport
import Testing
import TestSupport

/// `ChildProcess`'s peak memory checked against programs of known size, started from this
/// process after it has itself touched 300 MiB: the figure must be the child's own, not the
/// high-water mark a spawned child inherits into `ru_maxrss` at exec. Serialized: each test's
/// parent must not grow by the other's 300 MiB while it runs.
@Suite("ChildProcess: a child's own peak memory", .serialized)
struct ChildProcessMemoryTests {
    /// What this process touches first: a parent far larger than its children.
    static let parentBytes = 300 << 20
    /// How far the reported peak may be from the interpreter's baseline plus the bytes the child
    /// touched: the kernel counts resident pages in per-CPU batches, and the interpreter's own
    /// allocations vary a little from run to run.
    static let margin = 3 << 20

    /// A Python program that writes every page of a `bytes`-byte bytearray, then (with `hold`)
    /// keeps it for a second before exiting.
    static func toucher(bytes: Int, hold: Bool) -> [String] {
        ["/usr/bin/python3", "-c", """
            import sys, time
            n = int(sys.argv[1])
            b = bytearray(n)
            for i in range(0, n, 4096):
                b[i] = 1
            if sys.argv[2] == "1":
                time.sleep(1)
            """, "\(bytes)", hold ? "1" : "0"]
    }

    /// Runs `arguments` to its end and returns how it ended.
    static func run(_ arguments: [String]) throws -> ChildProcess.Exit {
        let scratch = try TemporaryDirectory()
        let child = try ChildProcess(arguments, errorPath: scratch.path("stderr.txt"))
        let exit = try #require(child.wait())
        #expect(exit.status == 0, "\(child.errors)")
        return exit
    }

    @Test("a child that holds 64 MiB reports the interpreter's baseline + 64 MiB, far below its 300 MiB parent's mark")
    func heldMemory() throws {
        let parent = UnsafeMutableRawPointer.allocate(byteCount: Self.parentBytes, alignment: 4096)
        defer { parent.deallocate() }
        memset(parent, 1, Self.parentBytes)
        let parentMark = try #require(ProcessFacts.memory(getpid())).highWater
        #expect(parentMark >= Self.parentBytes)

        let baseline = try Self.run(Self.toucher(bytes: 0, hold: true))
        let touched = try Self.run(Self.toucher(bytes: 64 << 20, hold: true))
        let mebibyte = Double(1 << 20)
        let report = "baseline \(Double(baseline.peakResidentBytes) / mebibyte) MiB, with 64 MiB \(Double(touched.peakResidentBytes) / mebibyte) MiB, "
            + "parent \(Double(parentMark) / mebibyte) MiB, ru_maxrss \(Double(touched.waitMaxResidentBytes) / mebibyte) MiB"
        // Read while the children ran (their ru_maxrss is the parent's, and refused).
        #expect(!baseline.peakIncludesExit && !touched.peakIncludesExit, "\(report)")
        #expect(baseline.peakResidentBytes > 1 << 20 && baseline.peakResidentBytes < 64 << 20, "\(report)")
        #expect(abs(touched.peakResidentBytes - baseline.peakResidentBytes - (64 << 20)) <= Self.margin, "\(report)")
        #expect(touched.peakResidentBytes < parentMark / 2, "\(report)")
        // What the old figure was: the parent's mark, inherited at exec.
        #expect(touched.waitMaxResidentBytes >= Self.parentBytes, "\(report)")
    }

    @Test("a child larger than its parent that exits at once: its ru_maxrss, which it cannot have inherited, is taken, and the peak is right")
    func peakAtExit() throws {
        let parent = UnsafeMutableRawPointer.allocate(byteCount: Self.parentBytes, alignment: 4096)
        defer { parent.deallocate() }
        memset(parent, 1, Self.parentBytes)
        let parentMark = try #require(ProcessFacts.memory(getpid())).highWater
        // Larger than anything the child could inherit, and exiting as soon as it has touched it:
        // the last read while it ran may miss the end, the exit's figure cannot.
        // 256 MiB of headroom for what the suites running beside this one allocate meanwhile.
        let size = (parentMark + (256 << 20)) / (1 << 20) * (1 << 20)
        let baseline = try Self.run(Self.toucher(bytes: 0, hold: true))
        let touched = try Self.run(Self.toucher(bytes: size, hold: false))
        let mebibyte = Double(1 << 20)
        let report = "baseline \(Double(baseline.peakResidentBytes) / mebibyte) MiB, with \(size >> 20) MiB \(Double(touched.peakResidentBytes) / mebibyte) MiB, "
            + "parent \(Double(parentMark) / mebibyte) MiB"
        #expect(touched.peakIncludesExit, "\(report)")
        #expect(abs(touched.peakResidentBytes - baseline.peakResidentBytes - size) <= Self.margin, "\(report)")
    }
}
