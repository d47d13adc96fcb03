import Media

/// The live-filter stage.
extension Stage {
    /// Each `ImageFilter` on a 1080p BGRA frame, in place, against the 33.3 ms a frame may take at
    /// 30 fps (a preview can afford a filter when it takes a small part of that budget).
    static var filters: Stage {
        Stage(name: "filter", sizes: [.hd1080]) { bench, size in
            bench.progress("filters at \(size.name)")
            let image = try bench.image(size)
            let slots = bench.slots(bytesPerCall: size.pixels * 4)
            let frames = try Frames.copies(of: image, count: slots)
            let kinds: [(String, ImageFilter.Kind)] = [
                ("mono", .mono), ("noir", .noir), ("sepia", .sepia), ("invert", .invert),
                ("adjust b+0.1 c1.2 s1.3", .adjust(brightness: 0.1, contrast: 1.2, saturation: 1.3)),
            ]
            let filters = try kinds.map { try ImageFilter($0.1) }
            let samples = try bench.race(slots: slots, filters.map { filter in { slot in try filter.apply(to: frames[slot]) } })
            let budget = 1000.0 / 30
            return zip(kinds, samples).map { kind, sample in
                Row(stage: "filter \(kind.0)", size: size.name, oursMs: sample.medianMs, memcpyMs: nil,
                    peer: "30 fps frame budget", peerMs: budget, check: .none,
                    note: "in place on BGRA, \(slots) frames rotated (filtering the same frame repeatedly is harmless for timing)")
            }
        }
    }
}
