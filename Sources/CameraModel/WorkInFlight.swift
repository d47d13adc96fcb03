/// The one registry of work between a user's action and its result on disk that quitting must
/// not cut: a photo from the shutter press to its fsync, a recording from its start to the
/// indexed movie, an import, a Save As, and the camera's own shutdown. Every such path in the app
/// begins a `Ticket` here *synchronously*, in the same main-actor turn as the action that asked
/// for it (so a quit that arrives next already sees it), and ends it when the file is safe; the
/// functions that write into the library take the ticket as a parameter, so none can run outside
/// it (a source-scanning test holds the app to this).
///
/// While any ticket is open the registry is busy, and `onBusyChange` tells the application, which
/// holds itself (`g_application_hold`) so that it keeps running with no window; quitting hides the
/// windows at once, and the process exits when the last ticket ends and GApplication's last hold
/// goes — no nested main loop. `drained()` waits for that moment from inside the model.
@MainActor
public final class WorkInFlight {
    /// What a ticket is for (for the journal and the tests).
    public enum Kind: String, Sendable, CaseIterable {
        /// A shutter press (after its self-timer): the capture or burst and each photo's save.
        case photo
        /// A photo the person confirmed ("Save Picture"), or one kept at quit, being saved.
        case save
        /// A recording, from its start until its movie is indexed.
        case recording
        /// An import of files and folders.
        case importing
        /// A Save As copy being written.
        case export
        /// A shutter asked for from outside while the camera starts (`take-photo` from a script).
        case waitingShutter
        /// The camera being let go and everything above finishing, when the window goes or the app quits.
        case shutDown
    }

    /// One piece of work in flight; it ends once (later calls do nothing).
    @MainActor
    public final class Ticket {
        /// What it is for.
        public let kind: Kind
        /// The registry it belongs to.
        private weak var registry: WorkInFlight?
        /// Whether `end()` has run.
        public private(set) var isEnded = false

        /// A ticket of `registry`, already counted there.
        fileprivate init(kind: Kind, registry: WorkInFlight) {
            self.kind = kind
            self.registry = registry
        }

        /// The work is done (its file fsynced, or it failed and said so): the registry forgets it.
        public func end() {
            guard !isEnded else { return }
            isEnded = true
            registry?.finished(kind)
        }
    }

    /// Open tickets by kind.
    public private(set) var running: [Kind: Int] = [:]
    /// How many tickets are open.
    public var count: Int { running.values.reduce(0, +) }
    /// Whether any work is in flight.
    public var isBusy: Bool { count > 0 }
    /// Told true when the first ticket opens and false when the last one ends (the application
    /// holds and releases itself).
    public var onBusyChange: (Bool) -> Void = { _ in }
    /// Tickets ever begun, by kind (tests read it: every shutter path registers).
    public private(set) var begun: [Kind: Int] = [:]
    /// Callers of `drained(besides:)` waiting, each until no more than its number of tickets is open.
    private var waiters: [(besides: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// An empty registry.
    public init() {}

    /// Registers work of `kind` now; the caller ends the ticket when its file is safe.
    public func begin(_ kind: Kind) -> Ticket {
        let wasBusy = isBusy
        running[kind, default: 0] += 1
        begun[kind, default: 0] += 1
        if !wasBusy { onBusyChange(true) }
        return Ticket(kind: kind, registry: self)
    }

    /// Registers work of `kind` now and runs `body` with its ticket in a task, ending the ticket
    /// when `body` returns.
    @discardableResult
    public func start(_ kind: Kind, _ body: @escaping @MainActor (Ticket) async -> Void) -> Task<Void, Never> {
        let ticket = begin(kind)
        return Task { @MainActor in
            await body(ticket)
            ticket.end()
        }
    }

    /// Returns once no more than `besides` tickets are open (at once when so): 0 waits for all
    /// work to end; a caller holding a ticket of its own passes 1.
    public func drained(besides: Int = 0) async {
        guard count > besides else { return }
        await withCheckedContinuation { waiters.append((besides, $0)) }
    }

    /// A ticket of `kind` ended.
    private func finished(_ kind: Kind) {
        guard let ofKind = running[kind], ofKind > 0 else { return }
        running[kind] = ofKind > 1 ? ofKind - 1 : nil
        let open = count
        let ready = waiters.filter { $0.besides >= open }
        waiters.removeAll { $0.besides >= open }
        for waiter in ready { waiter.continuation.resume() }
        if open == 0 { onBusyChange(false) }
    }
}
