/// Thumbnails kept for a grid, free of GTK: at most `limit` of them, the oldest loaded let go
/// first (a 10,000-item library would otherwise keep every thumbnail it ever scrolled past).
/// Every operation costs O(1) amortised: the order keeps stale entries, skipped when reached,
/// instead of searching for a removed key.
public struct ThumbnailCache<Value> {
    /// The most values kept.
    public let limit: Int
    /// The values by key, each with the serial number of its insertion.
    private var values: [String: (value: Value, serial: Int)] = [:]
    /// Keys in insertion order with their serial numbers (an entry whose serial no longer
    /// matches its key's is stale); entries before `head` are gone.
    private var order: [(key: String, serial: Int)] = []
    /// The first live position in `order`.
    private var head = 0
    /// The next insertion's serial number.
    private var nextSerial = 0

    /// An empty cache holding at most `limit` values.
    public init(limit: Int) {
        precondition(limit > 0, "a thumbnail cache holds at least one thumbnail")
        self.limit = limit
    }

    /// The value kept for `key`.
    public subscript(key: String) -> Value? { values[key]?.value }

    /// How many values are kept.
    public var count: Int { values.count }

    /// The keys of the values kept, in no particular order.
    public var keys: [String] { Array(values.keys) }

    /// Keeps `value` for `key` (replacing any value it had) and lets the oldest go while there
    /// are more than `limit`: the values let go, oldest first, for the caller to release (the
    /// replaced one among them).
    public mutating func insert(_ value: Value, for key: String) -> [Value] {
        var released: [Value] = []
        if let old = values[key] { released.append(old.value) }
        values[key] = (value, nextSerial)
        order.append((key, nextSerial))
        nextSerial += 1
        while values.count > limit, head < order.count {
            let entry = order[head]
            head += 1
            if let kept = values[entry.key], kept.serial == entry.serial {
                values[entry.key] = nil
                released.append(kept.value)
            }
        }
        compact()
        return released
    }

    /// Lets the value for `key` go, returning it for the caller to release.
    public mutating func remove(_ key: String) -> Value? {
        let removed = values.removeValue(forKey: key)?.value
        compact()
        return removed
    }

    /// Every value, for the caller to release (the cache is empty after).
    public mutating func removeAll() -> [Value] {
        let all = values.values.map(\.value)
        values.removeAll()
        order.removeAll()
        head = 0
        return all
    }

    /// Drops the order's dead entries once they are most of it, so it stays within twice the
    /// live count (plus a small slack).
    private mutating func compact() {
        guard order.count > 64, order.count > 2 * values.count else { return }
        order = order[head...].filter { values[$0.key]?.serial == $0.serial }
        head = 0
    }
}

/// The thumbnails a grid asked for and has not loaded yet, in the order its cells were bound
/// (the grid binds the cells it shows first, top to bottom). A fast scroll binds and rebinds
/// cells faster than thumbnails load: the loaders take the next item whose cell still shows it,
/// and the others are dropped unasked, so the work is bounded by what can be seen.
public struct ThumbnailQueue<Item> {
    /// Items wanted, by key.
    private var wanted: [String: Item] = [:]
    /// The same keys in the order they were first wanted.
    private var order: [String] = []
    /// The position in `order` of the next key to look at.
    private var head = 0

    /// An empty queue.
    public init() {}

    /// Whether nothing is wanted.
    public var isEmpty: Bool { wanted.isEmpty }

    /// Asks for `item`'s thumbnail (its place in the order is where it was first asked for).
    public mutating func want(_ item: Item, key: String) {
        if wanted.updateValue(item, forKey: key) == nil { order.append(key) }
    }

    /// The next wanted item, in the order asked, for which `stillWanted` holds (a cell still
    /// shows it, it is not loaded yet); the items passed over are dropped. Nil when none is left.
    public mutating func next(where stillWanted: (String) -> Bool) -> Item? {
        defer {
            // Let go of the part of the order already looked at, once it is most of it.
            if head > 256, head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
        }
        while head < order.count {
            let key = order[head]
            head += 1
            guard let item = wanted.removeValue(forKey: key) else { continue }
            if stillWanted(key) { return item }
        }
        return nil
    }
}
