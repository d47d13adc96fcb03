import CPulse
import Glibc

/// Asks the sound server for its sources and its default source through PulseAudio's
/// asynchronous API, on the caller's thread, with a deadline: the main loop is stepped by hand
/// (`prepare` with the time left, `poll`, `dispatch`), so a server that accepts the connection
/// and then never answers costs `timeout`, not a hang.
enum PulseIntrospection {
    /// One source as the server describes it.
    struct Source: Sendable, Equatable {
        /// The server's name for it.
        var name: String
        /// The name for people.
        var description: String
        /// Whether it records what an output plays (a monitor), rather than a microphone.
        var isMonitor: Bool
        /// Its native rate in Hz.
        var sampleRate: Int
        /// Its native channel count.
        var channelCount: Int
    }

    /// What the server said.
    struct Snapshot: Sendable, Equatable {
        /// Every source, monitors included, in the server's order.
        var sources: [Source]
        /// The server's default source, if it has one.
        var defaultSourceName: String?
    }

    /// The state the C callbacks fill in, reached through their `userdata` pointer.
    private final class Query {
        var failed: Int32?
        var ready = false
        var sources: [Source] = []
        var sourcesDone = false
        var defaultSource: String?
        var serverInfoDone = false

        var isDone: Bool { failed != nil || (sourcesDone && serverInfoDone) }
    }

    /// The server's sources and default source. Throws `.noSoundServer` when nothing answers,
    /// `.soundServerNotResponding` after `timeout`, `.microphoneAccessDenied` when refused.
    static func snapshot(timeout: Duration) throws(CaptureError) -> Snapshot {
        try PulseLibrary.require()
        guard let mainloop = pulse.pa_mainloop_new() else { throw .audioFailed(microphone: "the sound server", reason: "out of memory") }
        defer { pulse.pa_mainloop_free(mainloop) }
        guard let context = pulse.pa_context_new(pulse.pa_mainloop_get_api(mainloop), "Pinhole") else {
            throw .audioFailed(microphone: "the sound server", reason: "out of memory")
        }
        defer { pulse.pa_context_unref(context) }
        let query = Query()
        let userdata = Unmanaged.passUnretained(query).toOpaque()
        pulse.pa_context_set_state_callback(context, { context, userdata in
            let query = Unmanaged<Query>.fromOpaque(userdata!).takeUnretainedValue()
            switch pulse.pa_context_get_state(context) {
            case PA_CONTEXT_READY: query.ready = true
            case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: query.failed = pulse.pa_context_errno(context)
            default: break
            }
        }, userdata)
        defer { pulse.pa_context_set_state_callback(context, nil, nil) }
        // No autospawn: discovery must never start a sound server behind the user's back.
        guard pulse.pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw PulseErrno.error(pulse.pa_context_errno(context), microphone: nil)
        }
        defer { pulse.pa_context_disconnect(context) }

        let deadline = SystemClock.monotonicNanoseconds() + AudioClock.nanoseconds(timeout)
        var asked = false
        while !query.isDone {
            if query.ready && !asked {
                asked = true
                let info = pulse.pa_context_get_server_info(context, { _, info, userdata in
                    let query = Unmanaged<Query>.fromOpaque(userdata!).takeUnretainedValue()
                    query.defaultSource = info?.pointee.default_source_name.map { String(cString: $0) }
                    query.serverInfoDone = true
                }, userdata)
                let list = pulse.pa_context_get_source_info_list(context, { context, info, eol, userdata in
                    let query = Unmanaged<Query>.fromOpaque(userdata!).takeUnretainedValue()
                    if eol != 0 {
                        if eol < 0 { query.failed = pulse.pa_context_errno(context) }
                        query.sourcesDone = true
                        return
                    }
                    guard let info = info?.pointee, let name = info.name else { return }
                    // A monitor names its sink; others hold PA_INVALID_INDEX (a macro Swift cannot import).
                    query.sources.append(Source(name: String(cString: name), description: info.description.map { String(cString: $0) } ?? "",
                                                isMonitor: info.monitor_of_sink != UInt32.max, sampleRate: Int(info.sample_spec.rate),
                                                channelCount: Int(info.sample_spec.channels)))
                }, userdata)
                if let info { pulse.pa_operation_unref(info) }
                if let list { pulse.pa_operation_unref(list) }
                guard info != nil, list != nil else { throw PulseErrno.error(pulse.pa_context_errno(context), microphone: nil) }
            }
            let left = deadline - SystemClock.monotonicNanoseconds()
            guard left > 0 else { throw .soundServerNotResponding(seconds: AudioClock.seconds(timeout)) }
            // Microseconds, rounded up so the last step does not spin.
            guard pulse.pa_mainloop_prepare(mainloop, Int32(clamping: (left + 999) / 1000)) >= 0, pulse.pa_mainloop_poll(mainloop) >= 0,
                  pulse.pa_mainloop_dispatch(mainloop) >= 0
            else { throw .audioFailed(microphone: "the sound server", reason: "PulseAudio's main loop failed") }
        }
        if let failed = query.failed { throw PulseErrno.error(failed, microphone: nil) }
        return Snapshot(sources: query.sources, defaultSourceName: query.defaultSource)
    }
}
