import CV4L2

/// Identifies a camera control. The values are V4L2's control IDs, so every control a driver
/// offers can be named, and the common ones have names here.
public struct ControlID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The V4L2 control ID.
    public let rawValue: UInt32

    /// Wraps a V4L2 control ID.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    private init(_ value: Int32) { rawValue = UInt32(value) }

    /// Brightness.
    public static let brightness = ControlID(V4L2_CID_BRIGHTNESS)
    /// Contrast.
    public static let contrast = ControlID(V4L2_CID_CONTRAST)
    /// Saturation.
    public static let saturation = ControlID(V4L2_CID_SATURATION)
    /// Sharpness.
    public static let sharpness = ControlID(V4L2_CID_SHARPNESS)
    /// Automatic white balance on/off.
    public static let autoWhiteBalance = ControlID(V4L2_CID_AUTO_WHITE_BALANCE)
    /// White balance temperature in kelvin.
    public static let whiteBalanceTemperature = ControlID(V4L2_CID_WHITE_BALANCE_TEMPERATURE)
    /// Power-line frequency (menu: disabled, 50 Hz, 60 Hz, auto).
    public static let powerLineFrequency = ControlID(V4L2_CID_POWER_LINE_FREQUENCY)
    /// Exposure mode (menu: auto, manual, shutter priority, aperture priority).
    public static let exposureMode = ControlID(V4L2_CID_EXPOSURE_AUTO)
    /// Exposure time in units of 100 µs.
    public static let exposureTime = ControlID(V4L2_CID_EXPOSURE_ABSOLUTE)
    /// Exposure bias (EV compensation) in driver units.
    public static let exposureBias = ControlID(V4L2_CID_AUTO_EXPOSURE_BIAS)
    /// Continuous autofocus on/off.
    public static let continuousAutoFocus = ControlID(V4L2_CID_FOCUS_AUTO)
    /// Manual focus position.
    public static let focusPosition = ControlID(V4L2_CID_FOCUS_ABSOLUTE)
    /// One-shot autofocus (a button).
    public static let autoFocusStart = ControlID(V4L2_CID_AUTO_FOCUS_START)
    /// Zoom position.
    public static let zoom = ControlID(V4L2_CID_ZOOM_ABSOLUTE)
    /// Flash LED mode (menu: none, flash, torch).
    public static let flashLEDMode = ControlID(V4L2_CID_FLASH_LED_MODE)
    /// Fire the flash (a button).
    public static let flashStrobe = ControlID(V4L2_CID_FLASH_STROBE)
    /// Torch intensity.
    public static let torchIntensity = ControlID(V4L2_CID_FLASH_TORCH_INTENSITY)
    /// Where the camera faces (read-only menu: front, back, external), from drivers that know.
    public static let cameraOrientation = ControlID(V4L2_CID_CAMERA_ORIENTATION)
    /// How the sensor is mounted: degrees counter-clockwise to rotate images upright (read-only).
    public static let sensorRotation = ControlID(V4L2_CID_CAMERA_SENSOR_ROTATION)

    /// The name of a well-known control, or its hexadecimal ID.
    public var description: String {
        let names: [ControlID: String] = [
            .brightness: "brightness", .contrast: "contrast", .saturation: "saturation", .sharpness: "sharpness",
            .autoWhiteBalance: "auto white balance", .whiteBalanceTemperature: "white balance temperature",
            .powerLineFrequency: "power line frequency", .exposureMode: "exposure mode", .exposureTime: "exposure time",
            .exposureBias: "exposure bias", .continuousAutoFocus: "continuous autofocus", .focusPosition: "focus position",
            .autoFocusStart: "autofocus start", .zoom: "zoom", .flashLEDMode: "flash LED mode", .flashStrobe: "flash strobe",
            .torchIntensity: "torch intensity", .cameraOrientation: "camera orientation", .sensorRotation: "sensor rotation",
        ]
        return names[self] ?? "0x" + String(rawValue, radix: 16)
    }
}

/// A control a camera offers, with its range and menu.
public struct DeviceControl: Sendable, Equatable, Identifiable {
    /// The kind of value.
    public enum Kind: String, Sendable, Equatable {
        /// An integer in a range with a step.
        case integer
        /// On or off.
        case boolean
        /// One of named entries.
        case menu
        /// An action with no value.
        case button
        /// Anything else (read for listing only).
        case other
    }

    /// The control's ID.
    public let id: ControlID
    /// The driver's name for it.
    public let name: String
    /// Its kind.
    public let kind: Kind
    /// Smallest value.
    public let minimum: Int64
    /// Largest value.
    public let maximum: Int64
    /// Step between values.
    public let step: Int64
    /// Default value.
    public let defaultValue: Int64
    /// Menu entries (value → label) for menus.
    public let menu: [MenuItem]
    /// The driver will not accept writes.
    public let isReadOnly: Bool

    /// One entry of a menu control.
    public struct MenuItem: Sendable, Equatable {
        /// The value to set.
        public let value: Int64
        /// What it is called.
        public let label: String
    }
}
