@testable import CameraModel
import PhotoLibrary
import Testing
import TestSupport

/// How views follow the models: `observe` redraws a view from what it read, once per turn of
/// changes, and never after its subscription ends; `Broadcast` hands each event to every live
/// subscriber in order.
@MainActor
@Suite("Observing the models")
struct ObservingTests {
    /// A model over a new, empty library folder.
    func model() throws -> (CameraModel, TemporaryDirectory) {
        let folder = try TemporaryDirectory()
        return (CameraModel(preferences: MemoryPreferences(), library: LibraryLocation(folder: folder.path("library"))), folder)
    }

    @Test("two views watch one model; changes made together redraw each once; what a view did not read does not redraw it")
    func twoViews() async throws {
        let (model, _) = try model()
        var flashRuns = 0, gridRuns = 0
        let flashView = observe { _ = model.flash; flashRuns += 1 }
        let gridView = observe { _ = model.showsGrid; gridRuns += 1 }
        #expect(flashRuns == 1 && gridRuns == 1, "each view draws once when it starts watching")
        model.setFlash(.on)
        model.setFlash(.auto)
        await CameraModelTests.nextTurns()
        #expect(flashRuns == 2 && gridRuns == 1)
        model.setGrid(true)
        await CameraModelTests.nextTurns()
        #expect(flashRuns == 2 && gridRuns == 2)
        flashView.cancel()
        gridView.cancel()
    }

    @Test("a cancelled or released subscription is never called again")
    func stopWatching() async throws {
        let (model, _) = try model()
        var cancelledRuns = 0, releasedRuns = 0
        let cancelled = observe { _ = model.countdown; cancelledRuns += 1 }
        var released: Subscription? = observe { _ = model.countdown; releasedRuns += 1 }
        #expect(released != nil)
        cancelled.cancel()
        released = nil
        model.setCountdown(3)
        await CameraModelTests.nextTurns()
        #expect(cancelledRuns == 1 && releasedRuns == 1 && cancelled.isCancelled)
    }

    @Test("a subscription made in a view's list is cancelled with the list; a broadcast calls live subscribers in order")
    func broadcast() {
        let events = Broadcast<Int>()
        var heard: [String] = []
        var bag: [Subscription] = []
        events.subscribe { heard.append("a\($0)") }.store(in: &bag)
        let second = events.subscribe { heard.append("b\($0)") }
        events.send(1)
        second.cancel()
        events.send(2)
        #expect(events.subscriberCount == 1)
        bag.cancelAll()
        events.send(3)
        #expect(heard == ["a1", "b1", "a2"] && events.subscriberCount == 0 && bag.isEmpty)
    }

    @Test("the screen flash and the suspend inhibition are state a view observes; a discarded photo is an event")
    func stateAndEvents() async throws {
        let (model, _) = try model()
        var flashes: [Bool] = []
        let screen = observe { flashes.append(model.isScreenFlashOn) }
        model.isScreenFlashOn = true
        await CameraModelTests.nextTurns()
        model.isScreenFlashOn = false
        await CameraModelTests.nextTurns()
        #expect(flashes == [false, true, false])
        screen.cancel()
        var events: [CameraEvent] = []
        let listening = model.events.subscribe { events.append($0) }
        model.holdForConfirmation([0xFF, 0xD8, 0xFF, 0xD9])
        model.discardPendingPhoto()
        #expect(events == [.photoDiscarded])
        listening.cancel()
    }
}
