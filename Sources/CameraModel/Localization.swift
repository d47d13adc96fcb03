import Synchronization

/// Where translated strings come from: the app installs gettext here at start; tests and the
/// model alone use the English text as it is.
public enum Localization {
    private static let lookup = Mutex<(@Sendable (String) -> String)?>(nil)

    /// Sets the translation function (gettext in the app).
    public static func install(_ translate: @escaping @Sendable (String) -> String) { lookup.withLock { $0 = translate } }

    /// The translation of `english`, or `english` itself.
    public static func text(_ english: String) -> String { lookup.withLock { $0 }?(english) ?? english }
}

/// Marks a string for translation (xgettext's keyword `L`).
public func L(_ english: String) -> String { Localization.text(english) }
