/// A file in the library's folders that the library could not take as it is, found when it
/// brought its index up to date with the folders (opening, `synchronize()`): a photo that does
/// not decode is not indexed; a movie whose boxes cannot be walked is indexed but left as it is
/// (never finished nor rewritten). Programs say so, so that people find the file.
public struct SkippedFile: Sendable, Equatable {
    /// What the library did with the file.
    public enum Treatment: Sendable, Equatable {
        /// Not indexed: it does not read as a photo or video (or could not be read at all).
        case notIndexed
        /// Indexed, but left as it is: its structure cannot be walked, so a crashed recording in
        /// it could not be finished (it plays as far as its player can read it).
        case leftAsItIs
    }

    /// The file's path.
    public let path: String
    /// What the library did with it.
    public let treatment: Treatment
    /// Why: `.unsupportedFile` with its `UnsupportedReason`, or `.cannotRead`.
    public let problem: LibraryError

    /// A skipped file as given.
    public init(path: String, treatment: Treatment, problem: LibraryError) {
        self.path = path
        self.treatment = treatment
        self.problem = problem
    }
}
