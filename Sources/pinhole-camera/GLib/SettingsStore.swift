import CameraModel
import CGtk

/// The preferences in GSettings (schema `io.github.pinhole.Camera`), or in memory when the
/// schema is not installed (a build run from the source tree without `scripts/install`).
@MainActor
final class SettingsStore: PreferenceStore {
    /// The schema's ID.
    static let schemaID = "io.github.pinhole.Camera"
    private let settings: UnsafeMutablePointer<GSettings>?
    private let fallback = MemoryPreferences()
    /// GSettings' "changed" signal, as keys.
    private let settingsChanges = Broadcast<String>()

    init() {
        let source = g_settings_schema_source_get_default()
        if let source, let schema = g_settings_schema_source_lookup(source, SettingsStore.schemaID, 1) {
            g_settings_schema_unref(schema)
            settings = g_settings_new(SettingsStore.schemaID)
        } else {
            settings = nil
        }
        if let settings {
            connect(UnsafeMutableRawPointer(settings), "changed") { [settingsChanges] (key: UnsafeMutableRawPointer?) in
                if let key { settingsChanges.send(String(cString: key.assumingMemoryBound(to: CChar.self))) }
            }
        }
    }

    /// The keys that changed: GSettings' (this app, a bound widget, `gsettings set`), or the
    /// in-memory store's.
    var changes: Broadcast<String> { settings == nil ? fallback.changes : settingsChanges }

    /// Binds `property` of `object` to `key` both ways (`g_settings_bind`): the widget shows the
    /// stored value and writes what the user sets. False without the schema (the caller then
    /// reads and writes the in-memory value itself).
    func bind(_ key: String, to object: UnsafeMutableRawPointer, property: String) -> Bool {
        guard let settings else { return false }
        g_settings_bind(settings, key, object, property, G_SETTINGS_BIND_DEFAULT)
        return true
    }

    /// Whether the values are kept across launches.
    var isPersistent: Bool { settings != nil }

    func string(_ key: String) -> String {
        guard let settings, let value = g_settings_get_string(settings, key) else { return fallback.string(key) }
        defer { g_free(value) }
        return String(cString: value)
    }
    func setString(_ key: String, _ value: String) {
        guard let settings else { return fallback.setString(key, value) }
        g_settings_set_string(settings, key, value)
    }
    func bool(_ key: String) -> Bool {
        guard let settings else { return fallback.bool(key) }
        return g_settings_get_boolean(settings, key) != 0
    }
    func setBool(_ key: String, _ value: Bool) {
        guard let settings else { return fallback.setBool(key, value) }
        g_settings_set_boolean(settings, key, value ? 1 : 0)
    }
    func int(_ key: String) -> Int {
        guard let settings else { return fallback.int(key) }
        return Int(g_settings_get_int(settings, key))
    }
    func setInt(_ key: String, _ value: Int) {
        guard let settings else { return fallback.setInt(key, value) }
        g_settings_set_int(settings, key, Int32(value))
    }
}
