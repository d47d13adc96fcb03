/// A seeded pseudo-random generator (SplitMix64): one seed, one sequence, on every machine and
/// toolchain (the standard library's generator is neither seedable nor stable). The tests that
/// make random inputs or actions use it: the EXIF and location fuzz tests, the front-door test
/// and the app's monkey.
public struct SeededGenerator: RandomNumberGenerator {
    /// The generator's state.
    private var state: UInt64

    /// A generator whose sequence is decided by `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator for run `index` of the sequence `seed`: each run has its own, so one run can be
    /// replayed alone exactly as it ran among the others.
    public init(seed: UInt64, index: Int) {
        state = seed ^ (UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15)
        _ = next()
    }

    /// The next 64 pseudo-random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A whole number in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }

    /// True with probability `chance`.
    public mutating func chance(_ chance: Double) -> Bool { Double.random(in: 0..<1, using: &self) < chance }

    /// One of `items` (not empty).
    public mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
}
