import Media

/// How the library follows changes made outside it (other processes, other programs), as a UI
/// may want to say: at once through inotify, or by looking four times a second because inotify
/// could not be set up.
public enum ChangeTracking: Sendable, Equatable, CustomStringConvertible {
    /// inotify watches the photos and videos folders and the index: changes arrive as they happen.
    case live
    /// inotify could not be set up: the folders and the index are checked four times a second.
    case polling(because: Failure)

    /// Why inotify could not be set up.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The user's inotify instances are used up (the fs.inotify.max_user_instances limit),
        /// or the process's open files.
        case tooManyInstances
        /// The user's inotify watches are used up (the fs.inotify.max_user_watches limit).
        case tooManyWatches
        /// A folder could not be watched (removed, not readable, …).
        case folder(path: String, failure: FileFailure)
        /// Another system error.
        case system(errno: Int32)

        /// A one-line explanation for people.
        public var description: String {
            switch self {
            case .tooManyInstances: "no more inotify instances may be opened (fs.inotify.max_user_instances)"
            case .tooManyWatches: "no more inotify watches may be added (fs.inotify.max_user_watches)"
            case let .folder(path, failure): "\(path) cannot be watched: \(failure)"
            case let .system(code): "inotify failed (error \(code))"
            }
        }
    }

    /// A one-line explanation for people.
    public var description: String {
        switch self {
        case .live: "Changes made by other programs appear at once."
        case let .polling(failure): "Changes made by other programs are checked four times a second: \(failure)."
        }
    }
}
