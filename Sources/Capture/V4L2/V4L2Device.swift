import CV4L2
import Glibc
#if DEBUG
import Synchronization

/// Faults tests inject into the V4L2 layer, to see what the library does when a driver misbehaves
/// (debug builds only; `VividTests` sets them inside the VM). Each fires once, then clears.
enum V4L2TestFaults {
    /// The next VIDIOC_QBUF fails with EINVAL, as if the driver would not take a buffer back.
    static let failNextQueue = Atomic<Bool>(false)
    /// The next dequeued buffer has an index far beyond the buffers there are.
    static let badIndexNext = Atomic<Bool>(false)
    /// The next VIDIOC_S_PARM fails with EINVAL, as if the driver refused the frame rate.
    static let refuseFrameInterval = Atomic<Bool>(false)

    /// Whether `fault` is set, clearing it.
    static func fire(_ fault: borrowing Atomic<Bool>) -> Bool {
        fault.exchange(false, ordering: .acquiringAndReleasing)
    }
}
#endif

/// Where a device's ioctls go: the kernel (`pinhole_ioctl`), or a stand-in that answers as a
/// driver might, anything included (the `v4l2` fuzz target's). Every ioctl of a `V4L2Device`
/// goes through it but the control values' get and set (made in C, by `pinhole_v4l2_get_control`
/// and `_set_control`); `mmap` and `poll` go to the kernel.
struct V4L2Driver: Sendable {
    /// Runs `request` with `argument` on `fd`: 0, or -1 with `errno` set.
    let ioctl: @Sendable (_ fd: Int32, _ request: UInt, _ argument: UnsafeMutableRawPointer) -> Int32

    /// The kernel's driver for the node.
    static let kernel = V4L2Driver { pinhole_ioctl($0, $1, $2) }
}

/// An open V4L2 node, with typed methods in place of raw ioctls.
///
/// Ownership: the device owns its file descriptor and its mmap'd buffers; closing (deinit)
/// unmaps and closes. Streaming calls (buffers, formats) come from one thread at a time (the
/// session's queue, or its streaming thread while it runs); control ioctls may come from any
/// thread, as the kernel serialises them (`BackendReference` guards the backend's side).
///
/// Single- or multi-planar: `capabilities()` decides which API the streaming calls speak
/// (`V4L2_BUF_TYPE_VIDEO_CAPTURE`, or `_MPLANE` for nodes that offer only that, as SoC cameras
/// do). Until it is called, the device speaks the single-planar API.
final class V4L2Device {
    /// The node's path, e.g. /dev/video0.
    let path: String
    /// The open file descriptor (non-blocking).
    let fd: Int32
    /// Where the ioctls go (the kernel's driver, but in the fuzz target).
    let driver: V4L2Driver
    /// The mapped buffers: one address range each, holding its memory planes in order, each
    /// plane starting on a page at `planeOffsets[p]` (one plane at 0 for single-planar buffers).
    private var mappings: [(pointer: UnsafeMutableRawPointer, length: Int, planeOffsets: [Int], planeLengths: [Int])] = []
    /// Whether streaming calls use the multi-planar API (set by `capabilities()`).
    private(set) var isMultiplanar = false
    /// The `v4l2_plane` array multi-planar buffer calls fill, allocated once so that a frame
    /// allocates nothing.
    private let planeScratch: UnsafeMutablePointer<v4l2_plane>
    /// How many `v4l2_plane`s the scratch array holds (VIDEO_MAX_PLANES).
    private static let maxPlanes = Int(PINHOLE_V4L2_MAX_PLANES)

    /// Opens `path` for streaming. Errors: access denied (with the group to join), busy, gone.
    /// `driver` answers the ioctls that describe the node and set its format (the kernel's; the
    /// fuzz target's stands in for a driver returning anything).
    init(path: String, driver: V4L2Driver = .kernel) throws(CaptureError) {
        let fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw V4L2Errno.error("open", path: path) }
        self.path = path
        self.fd = fd
        self.driver = driver
        planeScratch = .allocate(capacity: V4L2Device.maxPlanes)
        planeScratch.initialize(repeating: v4l2_plane(), count: V4L2Device.maxPlanes)
    }

    deinit {
        unmapBuffers()
        close(fd)
        planeScratch.deallocate()
    }

    /// The buffer type of the streaming calls: single- or multi-planar video capture.
    var bufferType: UInt32 {
        isMultiplanar ? V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue : V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
    }

    /// A buffer description for buffer `index` (or none yet, for DQBUF) of the streaming type;
    /// multi-planar ones point at the zeroed plane scratch array.
    private func bufferRequest(index: Int = 0) -> v4l2_buffer {
        var buffer = v4l2_buffer()
        buffer.index = UInt32(index)
        buffer.type = bufferType
        buffer.memory = V4L2_MEMORY_MMAP.rawValue
        if isMultiplanar {
            planeScratch.update(repeating: v4l2_plane(), count: V4L2Device.maxPlanes)
            pinhole_v4l2_buffer_set_planes(&buffer, planeScratch, UInt32(V4L2Device.maxPlanes))
        }
        return buffer
    }

    /// Runs one ioctl, mapping failure to a `CaptureError`.
    private func control<T>(_ request: UInt, _ name: String, _ argument: inout T) throws(CaptureError) {
        guard withUnsafeMutablePointer(to: &argument, { driver.ioctl(fd, request, UnsafeMutableRawPointer($0)) }) == 0 else {
            throw V4L2Errno.error(name, path: path)
        }
    }

    /// Runs one ioctl, returning errno instead of throwing (for enumerations that end in EINVAL).
    private func attempt<T>(_ request: UInt, _ argument: inout T) -> Int32 {
        withUnsafeMutablePointer(to: &argument) { driver.ioctl(fd, request, UnsafeMutableRawPointer($0)) } == 0 ? 0 : errno
    }

    // MARK: - Capabilities and formats

    /// VIDIOC_QUERYCAP; also chooses the single- or multi-planar API for the calls that follow.
    func capabilities() throws(CaptureError) -> V4L2Capabilities {
        var caps = v4l2_capability()
        try control(PINHOLE_VIDIOC_QUERYCAP, "VIDIOC_QUERYCAP", &caps)
        let deviceCaps = caps.capabilities & UInt32(V4L2_CAP_DEVICE_CAPS) != 0 ? caps.device_caps : caps.capabilities
        let result = V4L2Capabilities(driver: cString(caps.driver), card: cString(caps.card), busInfo: cString(caps.bus_info), deviceCaps: deviceCaps)
        isMultiplanar = result.isMultiplanar
        return result
    }

    /// The pixel formats of the capture queue (fourCC, description, compressed?).
    func pixelFormats() -> [(fourCC: UInt32, description: String, compressed: Bool)] {
        var result: [(UInt32, String, Bool)] = []
        for index in 0..<256 {
            var description = v4l2_fmtdesc()
            description.index = UInt32(index)
            description.type = bufferType
            guard attempt(PINHOLE_VIDIOC_ENUM_FMT, &description) == 0 else { break }
            result.append((description.pixelformat, cString(description.description), description.flags & UInt32(V4L2_FMT_FLAG_COMPRESSED) != 0))
        }
        return result
    }

    /// The frame sizes offered for `fourCC`.
    func frameSizes(fourCC: UInt32) -> [V4L2FrameSize] {
        var result: [V4L2FrameSize] = []
        for index in 0..<512 {
            var size = v4l2_frmsizeenum()
            size.index = UInt32(index)
            size.pixel_format = fourCC
            guard attempt(PINHOLE_VIDIOC_ENUM_FRAMESIZES, &size) == 0 else { break }
            if size.type == V4L2_FRMSIZE_TYPE_DISCRETE.rawValue {
                result.append(.discrete(width: Int(size.discrete.width), height: Int(size.discrete.height)))
            } else {
                let s = size.stepwise
                result.append(.stepwise(minWidth: Int(s.min_width), maxWidth: Int(s.max_width), stepWidth: Int(max(1, s.step_width)),
                                        minHeight: Int(s.min_height), maxHeight: Int(s.max_height), stepHeight: Int(max(1, s.step_height))))
                break
            }
        }
        return result
    }

    /// The frame intervals offered for `fourCC` at `width`×`height` (stepwise ranges give their ends).
    func frameIntervals(fourCC: UInt32, width: Int, height: Int) -> [FrameInterval] {
        var result: [FrameInterval] = []
        for index in 0..<128 {
            var interval = v4l2_frmivalenum()
            interval.index = UInt32(index)
            interval.pixel_format = fourCC
            interval.width = UInt32(width)
            interval.height = UInt32(height)
            guard attempt(PINHOLE_VIDIOC_ENUM_FRAMEINTERVALS, &interval) == 0 else { break }
            if interval.type == V4L2_FRMIVAL_TYPE_DISCRETE.rawValue {
                result.append(FrameInterval(numerator: Int(interval.discrete.numerator), denominator: Int(interval.discrete.denominator)))
            } else {
                let s = interval.stepwise
                result.append(FrameInterval(numerator: Int(s.min.numerator), denominator: Int(s.min.denominator)))
                result.append(FrameInterval(numerator: Int(s.max.numerator), denominator: Int(s.max.denominator)))
                break
            }
        }
        return result.filter { $0.numerator > 0 && $0.denominator > 0 }
    }

    /// VIDIOC_G_FMT.
    func format() throws(CaptureError) -> V4L2PixFormat {
        var format = v4l2_format()
        format.type = bufferType
        try control(PINHOLE_VIDIOC_G_FMT, "VIDIOC_G_FMT", &format)
        return isMultiplanar ? V4L2PixFormat(multiplanar: format) : V4L2PixFormat(format.fmt.pix)
    }

    /// VIDIOC_S_FMT: asks for a format; the driver answers with what it set (which may differ).
    func setFormat(fourCC: UInt32, width: Int, height: Int) throws(CaptureError) -> V4L2PixFormat {
        var format = v4l2_format()
        format.type = bufferType
        if isMultiplanar {
            pinhole_v4l2_set_pix_mp(&format, fourCC, UInt32(width), UInt32(height))
            try control(PINHOLE_VIDIOC_S_FMT, "VIDIOC_S_FMT", &format)
            return V4L2PixFormat(multiplanar: format)
        }
        format.fmt.pix.pixelformat = fourCC
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        try control(PINHOLE_VIDIOC_S_FMT, "VIDIOC_S_FMT", &format)
        return V4L2PixFormat(format.fmt.pix)
    }

    /// VIDIOC_G_PARM: the frame interval the driver runs at (nil when it does not say).
    func frameInterval() -> FrameInterval? {
        var parameters = v4l2_streamparm()
        parameters.type = bufferType
        guard attempt(PINHOLE_VIDIOC_G_PARM, &parameters) == 0 else { return nil }
        return V4L2Device.interval(parameters.parm.capture.timeperframe)
    }

    /// VIDIOC_S_PARM: asks for a frame interval and returns the one the driver then runs at, read
    /// back with G_PARM: the request, the nearest it offers, or (when it refused, or cannot set a
    /// rate) the one it had. Nil only when the driver tells no frame interval at all.
    func setFrameInterval(_ interval: FrameInterval) -> FrameInterval? {
        var parameters = v4l2_streamparm()
        parameters.type = bufferType
        guard attempt(PINHOLE_VIDIOC_G_PARM, &parameters) == 0 else { return nil }
        let before = V4L2Device.interval(parameters.parm.capture.timeperframe)
        guard parameters.parm.capture.capability & UInt32(V4L2_CAP_TIMEPERFRAME) != 0 else { return before }
        parameters.parm.capture.timeperframe = v4l2_fract(numerator: UInt32(interval.numerator), denominator: UInt32(interval.denominator))
        var refused = false
        #if DEBUG
        refused = V4L2TestFaults.fire(V4L2TestFaults.refuseFrameInterval)
        #endif
        if refused || attempt(PINHOLE_VIDIOC_S_PARM, &parameters) != 0 { return frameInterval() ?? before }
        return frameInterval() ?? V4L2Device.interval(parameters.parm.capture.timeperframe) ?? before
    }

    /// A driver's fraction as an interval; nil for a zero (unset) one.
    private static func interval(_ fraction: v4l2_fract) -> FrameInterval? {
        guard fraction.numerator > 0, fraction.denominator > 0 else { return nil }
        return FrameInterval(numerator: Int(fraction.numerator), denominator: Int(fraction.denominator))
    }

    // MARK: - Controls

    /// Every control, with menus, skipping class headers and disabled ones.
    func controls() -> [V4L2ControlInfo] {
        var result: [V4L2ControlInfo] = []
        var query = v4l2_query_ext_ctrl()
        query.id = UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND)
        for _ in 0..<1024 {
            guard attempt(PINHOLE_VIDIOC_QUERY_EXT_CTRL, &query) == 0 else { break }
            defer { query.id |= UInt32(V4L2_CTRL_FLAG_NEXT_CTRL) | UInt32(V4L2_CTRL_FLAG_NEXT_COMPOUND) }
            let type = query.type
            guard type != V4L2_CTRL_TYPE_CTRL_CLASS.rawValue, query.flags & UInt32(V4L2_CTRL_FLAG_DISABLED) == 0,
                  query.nr_of_dims == 0 else { continue }
            var menu: [(Int64, String)] = []
            // A menu's range as the driver gives it: a damaged one (maximum below minimum, or a
            // span past Int64) lists no entries rather than trapping.
            let span = query.maximum.subtractingReportingOverflow(query.minimum)
            if type == V4L2_CTRL_TYPE_MENU.rawValue || type == V4L2_CTRL_TYPE_INTEGER_MENU.rawValue, !span.overflow, (0..<256).contains(span.partialValue) {
                for index in query.minimum...query.maximum {
                    var item = v4l2_querymenu()
                    item.id = query.id
                    item.index = UInt32(truncatingIfNeeded: index)
                    guard attempt(PINHOLE_VIDIOC_QUERYMENU, &item) == 0 else { continue }
                    menu.append((index, type == V4L2_CTRL_TYPE_MENU.rawValue ? cString(item.name) : String(item.value)))
                }
            }
            result.append(V4L2ControlInfo(id: query.id, type: type, name: cString(query.name), minimum: query.minimum, maximum: query.maximum,
                                          step: query.step, defaultValue: query.default_value, flags: query.flags, menu: menu))
        }
        return result
    }

    /// The current value of control `id`.
    func value(of id: UInt32, is64Bit: Bool = false) throws(CaptureError) -> Int64 {
        var value: Int64 = 0
        guard pinhole_v4l2_get_control(fd, id, is64Bit ? 1 : 0, &value) == 0 else { throw V4L2Errno.error("VIDIOC_G_EXT_CTRLS", path: path) }
        return value
    }

    /// Sets control `id`.
    func setValue(_ value: Int64, of id: UInt32, is64Bit: Bool = false) throws(CaptureError) {
        guard pinhole_v4l2_set_control(fd, id, is64Bit ? 1 : 0, value) == 0 else { throw V4L2Errno.error("VIDIOC_S_EXT_CTRLS", path: path) }
    }

    // MARK: - Buffers and streaming

    /// Requests `count` mmap buffers, maps them all and returns how many the driver gave.
    func allocateBuffers(count: Int) throws(CaptureError) -> Int {
        unmapBuffers()
        var request = v4l2_requestbuffers()
        request.count = UInt32(count)
        request.type = bufferType
        request.memory = V4L2_MEMORY_MMAP.rawValue
        try control(PINHOLE_VIDIOC_REQBUFS, "VIDIOC_REQBUFS", &request)
        guard request.count > 0 else { throw .streamFailed(device: path, reason: "the driver gave no buffers") }
        guard request.count <= VIDEO_MAX_FRAME else {
            throw .streamFailed(device: path, reason: "the driver gave \(request.count) buffers, more than V4L2 allows (\(VIDEO_MAX_FRAME))")
        }
        for index in 0..<Int(request.count) {
            var buffer = bufferRequest(index: index)
            try control(PINHOLE_VIDIOC_QUERYBUF, "VIDIOC_QUERYBUF", &buffer)
            do throws(CaptureError) {
                mappings.append(isMultiplanar ? try mapPlanes(of: buffer) : try mapSingle(buffer))
            } catch {
                unmapBuffers()
                throw error
            }
        }
        return mappings.count
    }

    /// Maps a single-planar buffer that QUERYBUF described.
    private func mapSingle(_ buffer: v4l2_buffer) throws(CaptureError) -> (UnsafeMutableRawPointer, Int, [Int], [Int]) {
        var buffer = buffer
        let length = Int(buffer.length)
        let pointer = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(pinhole_v4l2_buffer_offset(&buffer)))
        guard let pointer, pointer != MAP_FAILED else { throw V4L2Errno.error("mmap", path: path) }
        return (pointer, length, [0], [length])
    }

    /// Maps the planes of a multi-planar buffer that QUERYBUF described (into the plane scratch
    /// array) side by side in one reserved address range, each on its own pages: so the planes of
    /// a format like NV12M, in separate driver buffers, read as one frame with plane offsets,
    /// without copying.
    private func mapPlanes(of buffer: v4l2_buffer) throws(CaptureError) -> (UnsafeMutableRawPointer, Int, [Int], [Int]) {
        let count = Int(buffer.length)
        guard (1...V4L2Device.maxPlanes).contains(count) else {
            throw .streamFailed(device: path, reason: "the driver described a buffer with \(count) planes")
        }
        let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        let lengths = (0..<count).map { Int(planeScratch[$0].length) }
        let memOffsets = (0..<count).map { pinhole_v4l2_plane_offset(planeScratch + $0) }
        var offsets: [Int] = []
        var total = 0
        for length in lengths {
            offsets.append(total)
            total += (length + page - 1) / page * page
        }
        guard lengths.allSatisfy({ $0 > 0 }),
              let reserved = mmap(nil, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), reserved != MAP_FAILED else {
            throw V4L2Errno.error("mmap", path: path, code: lengths.allSatisfy { $0 > 0 } ? errno : EINVAL)
        }
        for plane in 0..<count {
            let at = reserved + offsets[plane]
            let mapped = mmap(at, lengths[plane], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, off_t(memOffsets[plane]))
            guard mapped == at else {
                let error = V4L2Errno.error("mmap", path: path)
                munmap(reserved, total)
                throw error
            }
        }
        return (reserved, total, offsets, lengths)
    }

    /// Unmaps every buffer and frees them in the driver (REQBUFS 0).
    func unmapBuffers() {
        guard !mappings.isEmpty else { return }
        for mapping in mappings { munmap(mapping.pointer, mapping.length) }
        mappings.removeAll()
        var request = v4l2_requestbuffers()
        request.type = bufferType
        request.memory = V4L2_MEMORY_MMAP.rawValue
        _ = attempt(PINHOLE_VIDIOC_REQBUFS, &request)
    }

    /// The mapped memory of buffer `index` (all its planes, for a multi-planar one).
    func memory(ofBuffer index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: mappings[index].pointer, count: mappings[index].length)
    }

    /// Where each memory plane of buffer `index` starts in `memory(ofBuffer:)`, and its length.
    func planes(ofBuffer index: Int) -> [(offset: Int, length: Int)] {
        Array(zip(mappings[index].planeOffsets, mappings[index].planeLengths))
    }

    /// Gives buffer `index` to the driver to fill.
    func queueBuffer(_ index: Int) throws(CaptureError) {
        var buffer = bufferRequest(index: index)
        #if DEBUG
        if V4L2TestFaults.fire(V4L2TestFaults.failNextQueue) { throw V4L2Errno.error("VIDIOC_QBUF", path: path, code: EINVAL) }
        #endif
        try control(PINHOLE_VIDIOC_QBUF, "VIDIOC_QBUF", &buffer)
    }

    /// Takes a filled buffer back, or nil when none is ready (EAGAIN).
    func dequeueBuffer() throws(CaptureError) -> V4L2DequeuedBuffer? {
        var buffer = bufferRequest()
        guard driver.ioctl(fd, PINHOLE_VIDIOC_DQBUF, &buffer) == 0 else {
            if errno == EAGAIN { return nil }
            throw V4L2Errno.error("VIDIOC_DQBUF", path: path)
        }
        let nanoseconds = Int64(buffer.timestamp.tv_sec) * 1_000_000_000 + Int64(buffer.timestamp.tv_usec) * 1000
        #if DEBUG
        if V4L2TestFaults.fire(V4L2TestFaults.badIndexNext) { buffer.index += 1000 }
        #endif
        var bytesUsed = Int(buffer.bytesused)
        var dataOffsets = SIMD4<UInt32>.zero
        if isMultiplanar {
            // For multi-planar buffers, each plane says how much it holds and where its data starts.
            bytesUsed = Int(planeScratch[0].bytesused)
            for plane in 0..<min(4, Int(buffer.length), V4L2Device.maxPlanes) { dataOffsets[plane] = planeScratch[plane].data_offset }
        }
        return V4L2DequeuedBuffer(index: Int(buffer.index), bytesUsed: bytesUsed, sequence: buffer.sequence,
                                  timestampNanoseconds: nanoseconds, hasError: buffer.flags & UInt32(V4L2_BUF_FLAG_ERROR) != 0,
                                  dataOffsets: dataOffsets)
    }

    /// VIDIOC_STREAMON. Unplug, busy and permission errors keep their meaning; anything else is
    /// the camera refusing to start (drivers answer EINVAL, EIO, ENOMEM… for a failing sensor).
    func streamOn() throws(CaptureError) {
        var type = Int32(bufferType)
        guard withUnsafeMutablePointer(to: &type, { driver.ioctl(fd, PINHOLE_VIDIOC_STREAMON, UnsafeMutableRawPointer($0)) }) == 0 else {
            let code = errno
            switch V4L2Errno.error("VIDIOC_STREAMON", path: path, code: code) {
            case let error where [ENODEV, ENXIO, EBUSY, EACCES, EPERM].contains(code): throw error
            default:
                throw .streamFailed(device: path, reason: "the camera refused to start streaming (\(String(cString: strerror(code))))")
            }
        }
    }

    /// VIDIOC_STREAMOFF (errors ignored: used when stopping, including after an unplug).
    func streamOff() {
        var type = Int32(bufferType)
        _ = attempt(PINHOLE_VIDIOC_STREAMOFF, &type)
    }

    // MARK: - Events

    /// Subscribes to events of `type` (V4L2_EVENT_*), for control `id` where the type needs one.
    func subscribe(event type: UInt32, id: UInt32 = 0) throws(CaptureError) {
        var subscription = v4l2_event_subscription()
        subscription.type = type
        subscription.id = id
        try control(PINHOLE_VIDIOC_SUBSCRIBE_EVENT, "VIDIOC_SUBSCRIBE_EVENT", &subscription)
    }

    /// Takes the next pending event, or nil when none is pending.
    func dequeueEvent() -> V4L2Event? {
        var event = v4l2_event()
        guard attempt(PINHOLE_VIDIOC_DQEVENT, &event) == 0 else { return nil }
        switch event.type {
        case UInt32(V4L2_EVENT_SOURCE_CHANGE):
            return .sourceChanged
        default:
            return .other(type: event.type)
        }
    }

    /// Waits up to `milliseconds` for a frame, an event or an error.
    func poll(milliseconds: Int32) -> V4L2PollResult {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN | POLLPRI), revents: 0)
        let result = Glibc.poll(&descriptor, 1, milliseconds)
        if result == 0 || (result < 0 && errno == EINTR) { return .timeout }
        if result < 0 { return .error }
        let events = Int32(descriptor.revents)
        if events & Int32(POLLHUP) != 0 || events & Int32(POLLNVAL) != 0 { return .hangup }
        if events & Int32(POLLERR) != 0 { return .error }
        if events & Int32(POLLIN) != 0 { return .frameReady }
        return .event
    }
}

extension V4L2PixFormat {
    /// Reads the interesting fields of a `v4l2_pix_format`.
    init(_ pix: v4l2_pix_format) {
        self.init(fourCC: pix.pixelformat, width: Int(pix.width), height: Int(pix.height), bytesPerLine: Int(pix.bytesperline),
                  sizeImage: Int(pix.sizeimage), quantization: pix.quantization,
                  memoryPlanes: [V4L2PlaneFormat(bytesPerLine: Int(pix.bytesperline), sizeImage: Int(pix.sizeimage))])
    }

    /// Reads the interesting fields of a multi-planar format (`fmt.pix_mp`).
    init(multiplanar format: v4l2_format) {
        var format = format
        var fourCC: UInt32 = 0, width: UInt32 = 0, height: UInt32 = 0, quantization: UInt32 = 0
        let count = pinhole_v4l2_get_pix_mp(&format, &fourCC, &width, &height, &quantization)
        let planes = (0..<count).map { index -> V4L2PlaneFormat in
            var bytesPerLine: UInt32 = 0, sizeImage: UInt32 = 0
            pinhole_v4l2_pix_mp_plane(&format, index, &bytesPerLine, &sizeImage)
            return V4L2PlaneFormat(bytesPerLine: Int(bytesPerLine), sizeImage: Int(sizeImage))
        }
        self.init(fourCC: fourCC, width: Int(width), height: Int(height), bytesPerLine: planes.first?.bytesPerLine ?? 0,
                  sizeImage: planes.first?.sizeImage ?? 0, quantization: quantization, memoryPlanes: planes)
    }
}
