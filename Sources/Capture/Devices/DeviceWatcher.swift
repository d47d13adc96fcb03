import Glibc
import Media
import Synchronization

/// A camera appearing or going away while the program runs.
public enum DeviceEvent: Sendable {
    /// A camera was plugged in (or its driver bound).
    case connected(CaptureDevice)
    /// A camera was unplugged; its unique ID and name.
    case disconnected(uniqueID: String, name: String)
}

extension CaptureDevice.DiscoverySession {
    /// Connect and disconnect events from now on, for the cameras this discovery matches.
    ///
    /// V4L2 nodes are watched with inotify on /dev (creation, removal, and the permission change
    /// udev makes after creating a node), so /dev is not rescanned and no camera is opened until
    /// a node changes; the watching thread also wakes every 200 ms, to see whether the stream
    /// was ended, whether the virtual test camera was simulated unplugged or plugged, and whether
    /// PipeWire's registry gained or lost a camera node. End
    /// the stream (stop iterating) to stop watching.
    public func deviceEvents() -> AsyncStream<DeviceEvent> {
        let discovery = self
        return DeviceWatcher.events { discovery.devices }
    }
}

/// Watches /dev for video nodes, PipeWire's camera nodes and the virtual camera registry, and turns changes into events.
final class DeviceWatcher: Sendable {
    /// The cameras watched, as they are now (a discovery's, or a test's own pair).
    private let listing: @Sendable () -> [CaptureDevice]
    private let continuation: AsyncStream<DeviceEvent>.Continuation
    private let cancelled = Atomic<Bool>(false)
    private let known = Lock<[String: CaptureDevice]>([:])
    /// The virtual cameras' generation when watching began, read before `known` is filled: a
    /// change made before the thread first runs is still seen (and one in between only rescans).
    private let startGeneration: Int
    /// PipeWire's camera list when watching began, read likewise.
    private let startPipeWire: PipeWireCameras.ChangeToken?
    /// The inotify descriptor watching /dev (-1 without one), set up before `known` is filled, so
    /// a node that goes or comes before the thread first runs is still seen; the thread closes it.
    private let inotify: Int32

    /// Connect and disconnect events from now on for the cameras `listing` gives, watched on a
    /// thread of their own until the stream is no longer iterated.
    static func events(of listing: @escaping @Sendable () -> [CaptureDevice]) -> AsyncStream<DeviceEvent> {
        let (stream, continuation) = AsyncStream<DeviceEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let watcher = DeviceWatcher(listing: listing, continuation: continuation)
        continuation.onTermination = { _ in watcher.cancel() }
        watcher.start()
        return stream
    }

    /// A watcher of the cameras `listing` gives, reporting to `continuation` once started.
    init(listing: @escaping @Sendable () -> [CaptureDevice], continuation: AsyncStream<DeviceEvent>.Continuation) {
        self.listing = listing
        self.continuation = continuation
        startGeneration = VirtualCamera.generation
        startPipeWire = PipeWireCameras.changeToken
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if fd >= 0 { _ = inotify_add_watch(fd, DeviceScanner.devDirectory, UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM)) }
        inotify = fd
        known.withLock { known in
            for device in listing() { known[device.uniqueID] = device }
        }
    }

    /// Starts the watching thread.
    func start() {
        let thread = StreamingThread.start { [self] in run() }
        pthread_detach(thread)
    }

    /// Stops watching (the thread notices within its poll interval).
    func cancel() { cancelled.store(true, ordering: .releasing) }

    private func run() {
        let fd = inotify
        defer { if fd >= 0 { close(fd) } }
        var virtualGeneration = startGeneration
        // A second look a second after a change: a node that could not be described at the first
        // (its driver still binding, the camera reopened by a session) is found then.
        var followUp: ContinuousClock.Instant?
        var pipeWire = startPipeWire
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !cancelled.load(ordering: .acquiring) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, fd >= 0 ? 1 : 0, 200)
            var changed = false
            if ready > 0 {
                // Drain the queue. A removed node is reported at once (a quick replug must still
                // read as unplug + plug); a new or changed node means "rescan".
                var removed: [String] = []
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    buffer.withUnsafeBytes { raw in
                        var offset = 0
                        while offset + MemoryLayout<inotify_event>.size <= count {
                            let mask = raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                            let length = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                            let nameStart = offset + MemoryLayout<inotify_event>.size
                            let name = String(decoding: raw[nameStart..<min(count, nameStart + length)].prefix { $0 != 0 }, as: UTF8.self)
                            if name.hasPrefix("video") {
                                if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 { removed.append("\(DeviceScanner.devDirectory)/\(name)") }
                                changed = true
                            }
                            offset = nameStart + length
                        }
                    }
                }
                if !removed.isEmpty { report(removedPaths: removed) }
                // udev creates links and sets permissions in bursts: let them settle.
                if changed { usleep(100_000) }
            }
            let generation = VirtualCamera.generation
            if generation != virtualGeneration {
                virtualGeneration = generation
                changed = true
            }
            // PipeWire's registry (watched by its own thread loop) added or removed a camera node.
            let token = PipeWireCameras.changeToken
            if token != pipeWire {
                pipeWire = token
                changed = true
            }
            if changed {
                rescan()
                followUp = .now + .seconds(1)
            } else if let due = followUp, .now >= due {
                followUp = nil
                rescan()
            }
        }
        continuation.finish()
    }

    /// Reports the known cameras whose nodes were removed.
    private func report(removedPaths: [String]) {
        let events = known.withLock { known -> [DeviceEvent] in
            let gone = known.values.filter { device in device.path.map(removedPaths.contains) ?? false }
            for device in gone { known[device.uniqueID] = nil }
            return gone.map { .disconnected(uniqueID: $0.uniqueID, name: $0.localizedName) }
        }
        for event in events { continuation.yield(event) }
    }

    /// Compares the cameras now with the ones known, and reports the difference.
    private func rescan() {
        let now = listing().filter(\.isConnected)
        let events = known.withLock { known -> [DeviceEvent] in
            var events: [DeviceEvent] = []
            let ids = Set(now.map(\.uniqueID))
            for (id, device) in known where !ids.contains(id) {
                events.append(.disconnected(uniqueID: id, name: device.localizedName))
                known[id] = nil
            }
            for device in now where known[device.uniqueID] == nil {
                events.append(.connected(device))
                known[device.uniqueID] = device
            }
            return events
        }
        for event in events { continuation.yield(event) }
    }
}
