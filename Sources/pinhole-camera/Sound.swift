import CCanberra

/// The freedesktop "camera-shutter" event sound through libcanberra (PulseAudio or PipeWire);
/// without a sound server it fails quietly in a few milliseconds.
@MainActor
final class ShutterSound {
    private var context: OpaquePointer?

    init() {
        var made: OpaquePointer?
        if ca_context_create(&made) == 0 { context = made }
    }

    /// Plays the shutter sound.
    func play() {
        guard let context else { return }
        var properties: OpaquePointer?
        guard ca_proplist_create(&properties) == 0, let properties else { return }
        defer { ca_proplist_destroy(properties) }
        ca_proplist_sets(properties, CA_PROP_EVENT_ID, "camera-shutter")
        ca_proplist_sets(properties, CA_PROP_EVENT_DESCRIPTION, "Photo taken")
        ca_context_play_full(context, 0, properties, nil, nil)
    }
}
