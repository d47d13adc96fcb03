/// How the device is held, as its accelerometer (iio-sensor-proxy) reports it.
public enum DeviceOrientation: String, Sendable, CaseIterable {
    /// The natural orientation (a laptop open on a desk; a phone upright).
    case normal
    /// Upside down.
    case bottomUp = "bottom-up"
    /// Turned a quarter clockwise: its left edge is up.
    case leftUp = "left-up"
    /// Turned a quarter counter-clockwise: its right edge is up.
    case rightUp = "right-up"
    /// Flat, or no reading yet.
    case undefined

    /// How far the device is turned clockwise from its natural orientation (nil when undefined).
    public var clockwiseDegrees: Int? {
        switch self {
        case .normal: 0
        case .leftUp: 90
        case .bottomUp: 180
        case .rightUp: 270
        case .undefined: nil
        }
    }
}
