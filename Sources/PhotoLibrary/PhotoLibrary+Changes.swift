import Foundation
import Glibc
import Media

/// The change stream: the library's own changes at once, other Pinhole processes' through the
/// index (`PRAGMA data_version`), other programs' through the folders — watched with inotify
/// (`LibraryWatcher`), or polled when inotify cannot be set up, which `changeTracking` and the
/// stream say.
extension PhotoLibrary {
    /// Changes from now on: inserted, removed and changed asset identifiers, including changes
    /// made by other processes (`pinhole snap` in a terminal shows up in an open gallery) and
    /// files other programs add to or remove from the folders (indexed once complete: closed
    /// after writing or moved in). When those cannot be watched as they happen, the stream's
    /// first element (and any later one, if watching stops working) carries the `tracking`
    /// that says so, with no identifiers.
    public func changes() -> AsyncStream<LibraryChange> {
        let (stream, continuation) = AsyncStream<LibraryChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        nextObserver += 1
        let key = nextObserver
        observers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(key) } }
        if watcher == nil {
            snapshot = (try? currentSnapshot()) ?? [:]
            lastDataVersion = dataVersion()
            startWatching()
        }
        if let tracking = changeTracking, tracking != .live {
            continuation.yield(LibraryChange(inserted: [], removed: [], changed: [], tracking: tracking))
        }
        return stream
    }

    /// Makes inotify fail as it would at its limits, for the next start of watching (the
    /// fallback to polling, tested without exhausting the machine's inotify for everyone).
    @_spi(Testing) public func simulateWatchFailure(_ failure: ChangeTracking.Failure?) {
        simulatedWatchFailure = failure
    }

    private func removeObserver(_ key: Int) {
        observers[key] = nil
        if observers.isEmpty { stopWatching() }
    }

    /// Watches with inotify, or (and says why) polls.
    private func startWatching() {
        lastFolderTime = folderTime()
        let started = simulatedWatchFailure.map { .failure($0) } ?? LibraryWatcher.start(location)
        switch started {
        case let .success(folders):
            folderWatcher = folders
            changeTracking = .live
            watcher = Task { [weak self] in
                for await events in folders.events { await self?.apply(events) }
                await self?.watchEnded(folders)
            }
        case let .failure(failure):
            changeTracking = .polling(because: failure)
            watcher = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    await self?.checkForChanges()
                }
            }
        }
    }

    private func stopWatching() {
        watcher?.cancel()
        watcher = nil
        folderWatcher?.stop()
        folderWatcher = nil
        changeTracking = nil
    }

    /// Acts on what inotify saw: the files named looked at again (or all of them, when events
    /// were lost), the index's version compared; observers told of any difference.
    private func apply(_ events: WatchEvents) {
        var look = false
        if events.rescan {
            if let changes = try? PhotoLibrary.reconcile(database, location, lock) { prepareInBackground(changes.changed) }
            look = true
        } else if !events.paths.isEmpty {
            if let changes = try? PhotoLibrary.reconcile(database, location, lock, only: events.paths) { prepareInBackground(changes.changed) }
            look = true
        }
        if events.index {
            let version = dataVersion()
            if version != lastDataVersion {
                lastDataVersion = version
                look = true
            }
        }
        if look { publish() }
        if events.lostFolder { restartWatching() }
    }

    /// The watcher's thread ended on its own (an inotify error): poll from now on, and say so.
    private func watchEnded(_ ended: LibraryWatcher) {
        guard folderWatcher === ended else { return }
        restartWatching()
    }

    /// A folder's watch ended (the folder was removed or moved away) or the watcher failed:
    /// watches again where the folders are now, or falls back to polling, telling observers.
    private func restartWatching() {
        guard !observers.isEmpty else { return }
        let before = changeTracking
        stopWatching()
        startWatching()
        if let tracking = changeTracking, tracking != before, tracking != .live {
            let change = LibraryChange(inserted: [], removed: [], changed: [], tracking: tracking)
            for continuation in observers.values { continuation.yield(change) }
        }
    }

    /// Polling (when inotify cannot be used): looks for changes by other processes and
    /// programs, and publishes any.
    private func checkForChanges() {
        let folder = folderTime(), version = dataVersion()
        guard folder != lastFolderTime || version != lastDataVersion else { return }
        if folder != lastFolderTime {
            lastFolderTime = folder
            if let changes = try? PhotoLibrary.reconcile(database, location, lock) { prepareInBackground(changes.changed) }
        }
        lastDataVersion = version
        publish()
    }

    /// Compares the index with the last snapshot and tells observers what changed.
    func publish() {
        guard !observers.isEmpty, let now = try? currentSnapshot() else { return }
        let inserted = now.keys.filter { snapshot[$0] == nil }.sorted()
        let removed = snapshot.keys.filter { now[$0] == nil }.sorted()
        let changed = now.keys.filter { snapshot[$0] != nil && snapshot[$0] != now[$0] }.sorted()
        snapshot = now
        guard !inserted.isEmpty || !removed.isEmpty || !changed.isEmpty else { return }
        let change = LibraryChange(inserted: inserted, removed: removed, changed: changed)
        for continuation in observers.values { continuation.yield(change) }
    }

    /// Every asset with what can change about it.
    private func currentSnapshot() throws(LibraryError) -> [String: String] {
        var result: [String: String] = [:]
        for row in try database.query("SELECT id, path, favorite, mtime FROM assets") {
            if let id = row[0].text { result[id] = "\(row[1].text ?? "")|\(row[2].integer ?? 0)|\(row[3].real ?? 0)" }
        }
        for row in try database.query("SELECT asset, album FROM album_assets") {
            if let id = row[0].text, result[id] != nil { result[id]! += "|a\(row[1].integer ?? 0)" }
        }
        return result
    }

    /// SQLite's data_version: changes when another connection commits.
    private func dataVersion() -> Int64 {
        (try? database.query("PRAGMA data_version").first?.first?.integer) ?? 0
    }

    /// The folders' modification times (they change when files are added or removed), kept apart:
    /// summed into one Double, a change of a few milliseconds was lost to rounding.
    private func folderTime() -> [Double] {
        [PhotoLibrary.modificationTime(of: location.photos) ?? 0, PhotoLibrary.modificationTime(of: location.videos) ?? 0]
    }
}
