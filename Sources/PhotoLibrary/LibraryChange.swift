/// What changed in the library between two looks at it.
public struct LibraryChange: Sendable, Equatable {
    /// Assets that appeared.
    public let inserted: [String]
    /// Assets that went away (deleted, trashed, or their file removed).
    public let removed: [String]
    /// Assets whose file, favourite mark or albums changed.
    public let changed: [String]

    /// A change as given.
    public init(inserted: [String], removed: [String], changed: [String]) {
        self.inserted = inserted
        self.removed = removed
        self.changed = changed
    }
}
