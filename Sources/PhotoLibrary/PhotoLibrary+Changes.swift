import Foundation
import Glibc
import Media

/// The change stream: the library's own changes, other processes' and other programs'.
extension PhotoLibrary {
    /// Changes from now on: inserted, removed and changed asset identifiers, including changes
    /// made by other processes (`pinhole snap` in a terminal shows up in an open gallery) and
    /// files other programs add to or remove from the folder. Checked four times a second.
    public func changes() -> AsyncStream<LibraryChange> {
        let (stream, continuation) = AsyncStream<LibraryChange>.makeStream(bufferingPolicy: .bufferingNewest(64))
        nextObserver += 1
        let key = nextObserver
        observers[key] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(key) } }
        if watcher == nil {
            snapshot = (try? currentSnapshot()) ?? [:]
            lastDataVersion = dataVersion()
            lastFolderTime = folderTime()
            watcher = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    await self?.checkForChanges()
                }
            }
        }
        return stream
    }

    private func removeObserver(_ key: Int) {
        observers[key] = nil
        if observers.isEmpty {
            watcher?.cancel()
            watcher = nil
        }
    }

    /// Looks for changes by other processes and programs, and publishes any.
    private func checkForChanges() {
        let folder = folderTime(), version = dataVersion()
        guard folder != lastFolderTime || version != lastDataVersion else { return }
        if folder != lastFolderTime {
            lastFolderTime = folder
            if let changes = try? PhotoLibrary.reconcile(database, location) { prepareInBackground(changes.changed) }
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
