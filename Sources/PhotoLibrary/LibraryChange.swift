/// What changed in the library between two looks at it.
public struct LibraryChange: Sendable, Equatable {
    /// Assets that appeared.
    public let inserted: [String]
    /// Assets that went away (deleted, trashed, or their file removed).
    public let removed: [String]
    /// Assets whose file, favourite mark or albums changed.
    public let changed: [String]
    /// How changes made outside the library are followed, when that is news: set (with no
    /// identifiers) when they cannot be watched as they happen and are polled instead.
    public let tracking: ChangeTracking?

    /// A change as given.
    public init(inserted: [String], removed: [String], changed: [String], tracking: ChangeTracking? = nil) {
        self.inserted = inserted
        self.removed = removed
        self.changed = changed
        self.tracking = tracking
    }
}
