/// How the stored pixels must be turned to be seen upright: EXIF tag 0x0112 (Orientation).
///
/// Raw values are the tag's values. Case names follow `CGImagePropertyOrientation`; the doc
/// comments give exiftool's names. Orientation is metadata only: Pinhole never rotates pixels
/// when it saves a photo, viewers apply the tag.
public enum ExifOrientation: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 1, "Horizontal (normal)": the stored image is upright.
    case up = 1
    /// 2, "Mirror horizontal": flipped left to right.
    case upMirrored = 2
    /// 3, "Rotate 180": upside down.
    case down = 3
    /// 4, "Mirror vertical": flipped top to bottom (mirrored, then turned 180°).
    case downMirrored = 4
    /// 5, "Mirror horizontal and rotate 270 CW".
    case leftMirrored = 5
    /// 6, "Rotate 90 CW": the stored image must turn 90° clockwise to be upright.
    case right = 6
    /// 7, "Mirror horizontal and rotate 90 CW".
    case rightMirrored = 7
    /// 8, "Rotate 270 CW": the stored image must turn 270° clockwise (90° counter-clockwise).
    case left = 8

    /// The orientation of a stored image that must be rotated `degrees` clockwise to be upright
    /// (as AVFoundation's `videoRotationAngle`), after mirroring left to right when `mirrored`
    /// (a front camera's selfie preview): 0→1, 90→6, 180→3, 270→8; mirrored 0→2, 90→7, 180→4, 270→5.
    ///
    /// Negative angles and angles of a full turn or more are brought into 0..<360 first (−90 is 270).
    /// Throws `.invalidMetadata` when the angle is not a multiple of 90°.
    public init(clockwiseRotation degrees: Int, mirrored: Bool = false) throws(MediaError) {
        guard degrees % 90 == 0 else {
            throw .invalidMetadata("a rotation of \(degrees)° is not a multiple of 90°, so no EXIF orientation describes it")
        }
        let quarterTurns = ((degrees / 90) % 4 + 4) % 4
        let plain: [ExifOrientation] = [.up, .right, .down, .left]
        let flipped: [ExifOrientation] = [.upMirrored, .rightMirrored, .downMirrored, .leftMirrored]
        self = (mirrored ? flipped : plain)[quarterTurns]
    }

    /// The floating-point form of `init(clockwiseRotation:mirrored:)`, for angles such as
    /// AVFoundation's `CGFloat` ones. Throws `.invalidMetadata` for angles that are not a whole
    /// multiple of 90°, infinite or NaN.
    public init(clockwiseRotation degrees: Double, mirrored: Bool = false) throws(MediaError) {
        guard degrees.isFinite, degrees.rounded() == degrees, abs(degrees) <= Double(Int32.max) else {
            throw .invalidMetadata("a rotation of \(degrees)° is not a whole multiple of 90°, so no EXIF orientation describes it")
        }
        try self.init(clockwiseRotation: Int(degrees), mirrored: mirrored)
    }

    /// The clockwise rotation, in degrees (0, 90, 180 or 270), that makes the stored image upright
    /// once it has been mirrored left to right when `isMirrored`: the inverse of the initialiser.
    public var clockwiseRotation: Int {
        switch self {
        case .up, .upMirrored: 0
        case .right, .rightMirrored: 90
        case .down, .downMirrored: 180
        case .left, .leftMirrored: 270
        }
    }

    /// True when the stored image is mirrored (orientations 2, 4, 5 and 7).
    public var isMirrored: Bool {
        switch self {
        case .upMirrored, .downMirrored, .leftMirrored, .rightMirrored: true
        case .up, .down, .left, .right: false
        }
    }

    /// True when showing the image upright swaps its width and height (orientations 5 to 8).
    public var swapsWidthAndHeight: Bool { clockwiseRotation % 180 != 0 }

    /// exiftool's name for the value, e.g. "Rotate 90 CW".
    public var description: String {
        switch self {
        case .up: "Horizontal (normal)"
        case .upMirrored: "Mirror horizontal"
        case .down: "Rotate 180"
        case .downMirrored: "Mirror vertical"
        case .leftMirrored: "Mirror horizontal and rotate 270 CW"
        case .right: "Rotate 90 CW"
        case .rightMirrored: "Mirror horizontal and rotate 90 CW"
        case .left: "Rotate 270 CW"
        }
    }
}
