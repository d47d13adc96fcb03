import Foundation
import Glibc
import Media
import PhotoLibrary

/// Imports files and folders into the library (the gallery's Import…, files dropped on the
/// window, `app.import-files`): folders are walked for photos and videos off the main thread,
/// then each file goes through `PhotoLibrary.importFile`, one at a time on the library's actor,
/// which checks it by decoding it and adds it whole or not at all. Progress is told after every
/// file; a cancel stops before the next file (the one being added is finished, so nothing is left
/// half-imported); what happened is said at the end in `ImportReport.messages`. Imports asked for
/// while one runs join it.
@MainActor
public final class LibraryImport {
    /// More files than this show a progress bar (a few finish before one would be seen).
    public static let progressThreshold = 3

    /// Files done so far (added, duplicate or refused) in the running import.
    public private(set) var done = 0
    /// Files found so far for the running import.
    public private(set) var total = 0
    /// Whether an import is running (its folders still being walked, or its files added).
    public var isRunning: Bool { job != nil || walking > 0 }
    /// Whether the running import is large enough to show its progress.
    public var showsProgress: Bool { isRunning && total > LibraryImport.progressThreshold }
    /// Whether a cancel was asked for and the import has not stopped yet.
    public private(set) var isCancelling = false

    /// The progress changed (or the import started or ended): read `done`, `total`, `showsProgress`.
    /// Sent after every file, so a view can follow each step.
    public let progress = Broadcast<Void>()
    /// A line for a toast (the report's messages, in order).
    public let messages = Broadcast<String>()
    /// The import ended, with what it did.
    public let finished = Broadcast<ImportReport>()

    /// Opens the library (or says why it cannot be).
    private let open: @MainActor () async -> Result<PhotoLibrary, LibraryError>
    /// The model's work in flight, which holds the app while an import runs.
    private let work: WorkInFlight
    /// The running import's ticket, from its start to its report.
    private var ticket: WorkInFlight.Ticket?
    /// Files waiting, in order.
    private var queue: [String] = []
    /// What the running import has done.
    private var report = ImportReport()
    /// The task adding the queued files, while it runs.
    private var job: Task<Void, Never>?
    /// Folder walks under way (their files join the queue when they end).
    private var walking = 0
    /// Raised by each cancel, so a walk that ends after it adds nothing.
    private var generation = 0

    /// An importer into the library `open` gives, each import registered in `work`.
    public init(work: WorkInFlight, open: @escaping @MainActor () async -> Result<PhotoLibrary, LibraryError>) {
        self.work = work
        self.open = open
    }

    /// Imports `items`: absolute paths or `file://` URIs of files (any name: each is checked by its
    /// content) and folders (walked for photo and video names, hidden ones skipped).
    public func start(_ items: [String]) {
        guard !items.isEmpty else { return }
        if ticket == nil { ticket = work.begin(.importing) }
        walking += 1
        let asked = generation
        progress.send(())
        Task {
            // Walking a large folder takes a while: off the main thread.
            let found = await Task.detached { ImportSource.find(items) }.value
            walking -= 1
            guard asked == generation else {
                if !isRunning { progress.send(()) }
                return
            }
            report.refused += found.refused
            report.emptyFolders += found.emptyFolders
            queue += found.files
            total += found.files.count + found.refused.count
            done += found.refused.count
            progress.send(())
            if job == nil, let ticket { job = Task { await run(ticket) } }
        }
    }

    /// Stops before the next file; the file being added is finished.
    public func cancel() {
        guard isRunning else { return }
        isCancelling = true
        generation += 1
        report.cancelled = true
        queue.removeAll()
        progress.send(())
        // Only walks were under way: nothing else will end the import.
        if job == nil, let ticket { job = Task { await run(ticket) } }
    }

    /// Cancels and waits until the file being added is finished (the app is quitting).
    public func stop() async {
        guard isRunning else { return }
        cancel()
        await job?.value
    }

    /// Adds the queued files one by one under the import's `ticket`, then reports, unless a
    /// folder is still being walked: its files start this again when found, so one import gives
    /// one report (and ends the ticket).
    private func run(_ ticket: WorkInFlight.Ticket) async {
        assert(!ticket.isEnded, "an import runs outside its work in flight")
        var library: PhotoLibrary?
        if !queue.isEmpty {
            switch await open() {
            case let .success(opened): library = opened
            case let .failure(error):
                report.stopped = CameraWords.translate("the photo library cannot be opened: %@", CameraWords.reason(error))
                queue.removeAll()
            }
        }
        while let library, !queue.isEmpty {
            let path = queue.removeFirst()
            let name = (path as NSString).lastPathComponent
            do throws(LibraryError) {
                // The library is an actor: the check, copy and index run off the main thread.
                _ = try await library.importFile(at: path)
                report.imported += 1
            } catch {
                switch error {
                case .duplicate:
                    report.duplicates.append(name)
                case .unsupportedFile, .cannotRead:
                    report.refused.append(.init(name: name, reason: CameraWords.importReason(error)))
                default:
                    // Not about this file (the library cannot be written): the rest would fail too.
                    report.stopped = CameraWords.importReason(error)
                    queue.removeAll()
                }
            }
            done += 1
            progress.send(())
        }
        job = nil
        if walking == 0 || isCancelling { finish() }
    }

    /// Tells what the import did and gets ready for the next.
    private func finish() {
        let ended = report
        report = ImportReport()
        queue.removeAll()
        job = nil
        done = 0
        total = 0
        isCancelling = false
        ticket?.end()
        ticket = nil
        progress.send(())
        for line in ended.messages { messages.send(line) }
        finished.send(ended)
    }
}

/// What the items given to an import hold: the files to add, in order, and what cannot be.
struct ImportSource: Sendable {
    /// Files to give the library.
    var files: [String] = []
    /// Items that are no file on this computer.
    var refused: [ImportReport.Refusal] = []
    /// Folders without a photo or video.
    var emptyFolders: [String] = []

    /// Finds the files of `items` (paths or file URIs; folders walked, sorted by name).
    static func find(_ items: [String]) -> ImportSource {
        var source = ImportSource()
        var seen = Set<String>()
        for item in items {
            guard let path = localPath(item) else {
                source.refused.append(.init(name: item, reason: L("it is not a file on this computer")))
                continue
            }
            var info = stat()
            if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                let found = walk(path)
                if found.isEmpty { source.emptyFolders.append((path as NSString).lastPathComponent) }
                for file in found where seen.insert(file).inserted { source.files.append(file) }
            } else if seen.insert(path).inserted {
                // Anything else is the library's to check (and to refuse in its words).
                source.files.append(path)
            }
        }
        return source
    }

    /// The path of an absolute path or a `file://` URI (percent-decoded); nil for anything else.
    static func localPath(_ item: String) -> String? {
        if item.hasPrefix("/") { return item }
        guard item.hasPrefix("file://"), let url = URL(string: item), url.isFileURL, url.host == nil || url.host == "" || url.host == "localhost" else { return nil }
        let path = url.path
        return path.isEmpty ? nil : path
    }

    /// The photos and videos in `folder` and its subfolders, by name: hidden files and folders
    /// skipped, links to folders not followed (no loops).
    static func walk(_ folder: String) -> [String] {
        var files: [String] = []
        for name in FileSystem.names(in: folder).sorted() where !name.hasPrefix(".") {
            let path = folder == "/" ? "/" + name : folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                files += walk(path)
            } else if PhotoLibrary.isMediaName(name) {
                files.append(path)
            }
        }
        return files
    }
}
