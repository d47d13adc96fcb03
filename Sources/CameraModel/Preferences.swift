/// Where the app keeps what the user chose (GSettings in the app; a dictionary in tests).
/// Keys are the GSettings schema's keys.
@MainActor
public protocol PreferenceStore: AnyObject {
    /// The string stored under `key`.
    func string(_ key: String) -> String
    /// Stores a string.
    func setString(_ key: String, _ value: String)
    /// The boolean stored under `key`.
    func bool(_ key: String) -> Bool
    /// Stores a boolean.
    func setBool(_ key: String, _ value: Bool)
    /// The integer stored under `key`.
    func int(_ key: String) -> Int
    /// Stores an integer.
    func setInt(_ key: String, _ value: Int)
    /// The key of every value that changed, whoever changed it (the app, a bound widget,
    /// `gsettings set` in a terminal): the model follows it.
    var changes: Broadcast<String> { get }
}

/// The preference keys (the GSettings schema `io.github.pinhole.Camera` has one key each).
public enum PreferenceKey {
    /// The unique ID of the camera used last.
    public static let lastCamera = "last-camera"
    /// "photo" or "video".
    public static let mode = "mode"
    /// "off", "on" or "auto".
    public static let flash = "flash"
    /// Self-timer seconds: 0, 3, 5 or 10.
    public static let countdown = "countdown"
    /// Rule-of-thirds grid shown.
    public static let grid = "grid"
    /// The live filter: "none", "mono", "noir", "sepia", "invert".
    public static let filter = "filter"
    /// Front cameras' preview mirrored.
    public static let mirrorFront = "mirror-front"
    /// The shutter sound plays.
    public static let shutterSound = "shutter-sound"
    /// A photo is shown with Cancel / Save before it is saved.
    public static let askBeforeSaving = "ask-before-saving"
    /// Photos taken by a burst.
    public static let burstCount = "burst-count"
    /// Photo size "WxH", or "" for the largest.
    public static let photoSize = "photo-size"
    /// Video size "WxH", or "" for the default (largest up to 1080p).
    public static let videoSize = "video-size"
    /// The microphone's ID, or "" for the default.
    public static let microphone = "microphone"
}

/// Preferences kept in memory (tests, and the app when its schema is not installed).
@MainActor
public final class MemoryPreferences: PreferenceStore {
    private var values: [String: Any]

    /// The schema's defaults, changed by `overrides`.
    public init(_ overrides: [String: Any] = [:]) {
        values = [PreferenceKey.lastCamera: "", PreferenceKey.mode: "photo", PreferenceKey.flash: "off", PreferenceKey.countdown: 0,
                  PreferenceKey.grid: false, PreferenceKey.filter: "none", PreferenceKey.mirrorFront: true,
                  PreferenceKey.shutterSound: true, PreferenceKey.askBeforeSaving: false, PreferenceKey.burstCount: 5,
                  PreferenceKey.photoSize: "", PreferenceKey.videoSize: "", PreferenceKey.microphone: ""]
        values.merge(overrides) { $1 }
    }

    /// Keys whose value was set.
    public let changes = Broadcast<String>()

    public func string(_ key: String) -> String { values[key] as? String ?? "" }
    public func setString(_ key: String, _ value: String) { set(key, value) }
    public func bool(_ key: String) -> Bool { values[key] as? Bool ?? false }
    public func setBool(_ key: String, _ value: Bool) { set(key, value) }
    public func int(_ key: String) -> Int { values[key] as? Int ?? 0 }
    public func setInt(_ key: String, _ value: Int) { set(key, value) }

    /// Stores `value` and says so.
    private func set(_ key: String, _ value: Any) {
        values[key] = value
        changes.send(key)
    }
}
