import PhotoLibrary

/// What `pinhole-camera` was asked on its command line: to open the camera window, or to let a
/// person choose items from the library for another program (`--pick`), whose paths go to
/// standard output, one per line (as `zenity --file-selection` does).
public enum LaunchRequest: Equatable, Sendable {
    /// Open (or present) the camera window.
    case camera
    /// Open a picker over the library.
    case pick(PickRequest)
    /// Print `text` (the usage) and exit 0.
    case help(String)
    /// The arguments are wrong: print `message` and exit 2.
    case invalid(String)

    /// The exit status of a picker the person cancelled (what zenity and kdialog use).
    public static let cancelledStatus: Int32 = 1
    /// The exit status for arguments that are wrong.
    public static let usageStatus: Int32 = 2

    /// Reads the arguments after the program's name.
    public static func parse(_ arguments: [String]) -> LaunchRequest {
        var pick = false, multiple = false
        var mediaType: Asset.MediaType?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--pick": pick = true
            case "--multiple": multiple = true
            case _ where argument == "--type" || argument.hasPrefix("--type="):
                let value = argument == "--type" ? remaining.popFirst() : String(argument.dropFirst("--type=".count))
                switch value {
                case "photo": mediaType = .photo
                case "video": mediaType = .video
                default: return .invalid(CameraWords.translate("--type takes photo or video, not “%@”.", value ?? ""))
                }
            case "-h", "--help": return .help(usage)
            default: return .invalid(CameraWords.translate("Unknown option “%@”; see pinhole-camera --help.", argument))
            }
        }
        if !pick, multiple || mediaType != nil {
            return .invalid(CameraWords.translate("--multiple and --type go with --pick."))
        }
        return pick ? .pick(PickRequest(multiple: multiple, mediaType: mediaType)) : .camera
    }

    /// The help text.
    public static var usage: String {
        // One literal with \n: xgettext reads Swift as C, and C has no multi-line strings.
        CameraWords.translate("Usage: pinhole-camera [--pick [--multiple] [--type photo|video]]\n\nWithout options, opens the camera (or shows the window already open).\n\n  --pick          let a person choose from the photo library; prints each chosen\n                  file's path on its own line, and exits 1 when cancelled\n  --multiple      allow choosing more than one item\n  --type KIND     offer only photos or only videos\n  -h, --help      show this help\n")
    }
}

/// A picker's options: one item or several, and of which kind.
public struct PickRequest: Equatable, Sendable {
    /// Whether several items may be chosen.
    public var multiple: Bool
    /// The only kind offered; nil offers photos and videos.
    public var mediaType: Asset.MediaType?

    /// A picker for one item, or `multiple`, of `mediaType` (nil for both kinds).
    public init(multiple: Bool = false, mediaType: Asset.MediaType? = nil) {
        self.multiple = multiple
        self.mediaType = mediaType
    }

    /// The picker window's title.
    public var title: String {
        switch (mediaType, multiple) {
        case (.photo?, false): return CameraWords.translate("Choose a Photo")
        case (.photo?, true): return CameraWords.translate("Choose Photos")
        case (.video?, false): return CameraWords.translate("Choose a Video")
        case (.video?, true): return CameraWords.translate("Choose Videos")
        case (_, false): return CameraWords.translate("Choose a Photo or Video")
        case (_, true): return CameraWords.translate("Choose Photos or Videos")
        }
    }

    /// What a picker prints for the chosen items: their paths, one per line.
    public static func output(for paths: [String]) -> String {
        paths.map { $0 + "\n" }.joined()
    }
}
