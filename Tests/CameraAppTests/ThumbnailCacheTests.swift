import CameraModel
import Testing

/// The gallery's thumbnails without a display: at most the limit kept, the oldest let go first
/// and handed back to be released exactly once; loading in the order cells were bound, skipping
/// what no cell shows any more.
@Suite("The gallery's thumbnail cache and queue, without a display")
struct ThumbnailCacheTests {
    @Test("at most the limit kept; the oldest loaded let go first, each handed back once to be released")
    func evictsOldest() {
        var cache = ThumbnailCache<Int>(limit: 3)
        var released: [Int] = []
        for value in 1...5 { released += cache.insert(value, for: "k\(value)") }
        #expect(released == [1, 2] && cache.count == 3)
        #expect(cache["k1"] == nil && cache["k3"] == 3 && cache["k5"] == 5)
        #expect(cache.remove("k4") == 4 && cache.remove("k4") == nil)
        released += cache.insert(6, for: "k6")
        #expect(released == [1, 2], "room was made by the removal")
        released += cache.insert(7, for: "k7")
        #expect(released == [1, 2, 3] && Set(cache.keys) == ["k5", "k6", "k7"])
    }

    @Test("a key loaded again replaces its value (the old one handed back) and counts as newest")
    func replaces() {
        var cache = ThumbnailCache<Int>(limit: 2)
        _ = cache.insert(1, for: "a")
        _ = cache.insert(2, for: "b")
        #expect(cache.insert(10, for: "a") == [1])
        #expect(cache.insert(3, for: "c") == [2], "b was the oldest once a was loaded again")
        #expect(cache["a"] == 10 && cache["c"] == 3)
    }

    @Test("scrolling 10,000 items through a 600-thumbnail cache keeps 600, releases the rest once each, and keeps its bookkeeping small")
    func longScroll() {
        var cache = ThumbnailCache<Int>(limit: 600)
        var released = 0
        var seen = Set<Int>()
        for value in 0..<10_000 {
            for old in cache.insert(value, for: "item\(value)") {
                released += 1
                #expect(seen.insert(old).inserted, "\(old) released twice")
            }
            // A splice removes an item now and then.
            if value % 7 == 0, let gone = cache.remove("item\(value - 3)") { released += 1; seen.insert(gone) }
        }
        #expect(cache.count == 600 && released + cache.count == 10_000)
        #expect(cache.removeAll().count == 600 && cache.count == 0)
    }

    @Test("the queue hands out items in the order asked, skips those no longer wanted, and asks once per key")
    func queueOrder() {
        var queue = ThumbnailQueue<String>()
        for key in ["a", "b", "c", "b", "d"] { queue.want(key.uppercased(), key: key) }
        let unbound: Set = ["b"]
        #expect(queue.next { !unbound.contains($0) } == "A")
        #expect(queue.next { !unbound.contains($0) } == "C", "b's cell shows something else now: skipped")
        #expect(queue.next { _ in true } == "D")
        #expect(queue.next { _ in true } == nil && queue.isEmpty)
        queue.want("B", key: "b")
        #expect(queue.next { _ in true } == "B", "wanted again after it was dropped")
    }
}
