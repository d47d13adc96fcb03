import Observation

/// What a view holds while it watches a model: cancelled by `cancel()` or when released, after
/// which the view is never called again. A widget keeps its subscriptions in one array and
/// cancels them all when it goes (`[Subscription].cancelAll()`), so nothing it registered can
/// call into a freed widget.
@MainActor
public final class Subscription {
    /// What stops the watching (nil once stopped).
    private var stop: (@MainActor () -> Void)?

    /// A subscription that runs `stop` once, when cancelled or released.
    init(stop: @escaping @MainActor () -> Void) {
        self.stop = stop
    }

    /// Stops the watching; later calls do nothing.
    public func cancel() {
        let stop = self.stop
        self.stop = nil
        stop?()
    }

    /// Whether `cancel()` has run.
    public var isCancelled: Bool { stop == nil }

    /// Keeps the subscription in `bag` (a widget's list, cancelled together).
    public func store(in bag: inout [Subscription]) {
        bag.append(self)
    }

    isolated deinit {
        cancel()
    }
}

extension [Subscription] {
    /// Cancels every subscription in the list and empties it.
    @MainActor
    public mutating func cancelAll() {
        for subscription in self { subscription.cancel() }
        removeAll()
    }
}

/// Runs `update` now, and again whenever observable state it read last time changes (`@Observable`
/// models: `CameraModel`, `GalleryModel`), until the returned subscription is cancelled or
/// released. Changes made in one main-actor turn cause one re-run, in a later turn: a view reads
/// what it shows and is redrawn only when that changed, with no list of what to watch to keep in
/// step with the code.
@MainActor
public func observe(_ update: @escaping @MainActor () -> Void) -> Subscription {
    let tracker = ObservationTracker(update)
    tracker.run()
    return Subscription { tracker.update = nil }
}

/// The loop behind `observe`: `withObservationTracking` calls its `onChange` once, before the
/// first change, so each run registers anew for what it read this time.
@MainActor
private final class ObservationTracker {
    /// The view's update; nil once its subscription ended.
    var update: (@MainActor () -> Void)?

    init(_ update: @escaping @MainActor () -> Void) {
        self.update = update
    }

    /// Runs the update while recording what it reads.
    func run() {
        guard let update else { return }
        withObservationTracking(update) { [weak self] in
            // Called once, inside the first change's `willSet`, before the new value is stored:
            // the update runs in a later turn, when that change (and any made with it) is complete.
            Task { @MainActor [weak self] in self?.run() }
        }
    }
}

/// Events of one kind that any number of views can follow (a toast to show, items spliced into
/// a list), each through its own subscription. State a view draws is observed instead
/// (`observe`); this is for what happens once and is not kept.
@MainActor
public final class Broadcast<Value> {
    /// The handlers by subscription number, called in the order they subscribed.
    private var handlers: [(key: Int, handler: @MainActor (Value) -> Void)] = []
    /// The next subscription's number.
    private var nextKey = 0

    /// A broadcast with no one listening.
    public init() {}

    /// Calls `handler` with every value sent from now until the subscription ends.
    public func subscribe(_ handler: @escaping @MainActor (Value) -> Void) -> Subscription {
        let key = nextKey
        nextKey += 1
        handlers.append((key, handler))
        return Subscription { [weak self] in self?.handlers.removeAll { $0.key == key } }
    }

    /// How many subscriptions are live.
    public var subscriberCount: Int { handlers.count }

    /// Calls every live handler with `value` (a handler that subscribes or cancels meanwhile
    /// takes effect from the next value).
    public func send(_ value: Value) {
        for (_, handler) in handlers { handler(value) }
    }
}
