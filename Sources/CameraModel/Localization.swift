import Media
import Synchronization

/// Where translated strings come from: the app installs gettext here at start; tests and the
/// model alone use the English text as it is.
public enum Localization {
    /// The installed function, in a class box: a function value kept in the `Mutex` itself and read
    /// with `withLock { $0 }` came back wrapped in two more reabstraction thunks at every read (the
    /// `inout` access converts it from and back to the generic storage's form), so each translation
    /// walked a longer chain than the last: a gallery that had bound a few thousand cells spent
    /// most of its main thread there. A class reference is stored as it is.
    private final class Translator: Sendable {
        /// The translation function.
        let translate: @Sendable (String) -> String
        /// Boxes `translate`.
        init(_ translate: @escaping @Sendable (String) -> String) { self.translate = translate }
    }

    /// The installed translator, if any.
    private static let lookup = Lock<Translator?>(nil)

    /// Sets the translation function (gettext in the app).
    public static func install(_ translate: @escaping @Sendable (String) -> String) { lookup.withLock { $0 = Translator(translate) } }

    /// The translation of `english`, or `english` itself.
    public static func text(_ english: String) -> String { lookup.withLock { $0 }?.translate(english) ?? english }
}

/// Marks a string for translation (xgettext's keyword `L`).
public func L(_ english: String) -> String { Localization.text(english) }
