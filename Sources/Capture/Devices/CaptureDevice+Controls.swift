/// Typed access to the common camera controls, in AVFoundation's terms, over V4L2's control IDs.
/// Each setter needs `lockForConfiguration()` and throws `.unsupported` on a camera without the
/// control (check the matching `is…Supported` first).
extension CaptureDevice {
    /// How exposure is chosen.
    public enum ExposureMode: Sendable, Equatable {
        /// The camera keeps adjusting exposure.
        case continuousAutoExposure
        /// A fixed exposure time, in seconds.
        case custom(duration: Double)
    }

    /// How white balance is chosen.
    public enum WhiteBalanceMode: Sendable, Equatable {
        /// The camera keeps adjusting white balance.
        case continuousAutoWhiteBalance
        /// A fixed colour temperature, in kelvin.
        case temperature(kelvin: Int)
    }

    /// The torch (the flash LED kept on, for video and dark scenes).
    public enum TorchMode: Sendable, Equatable {
        /// Off.
        case off
        /// On.
        case on
    }

    // V4L2_EXPOSURE_AUTO, _MANUAL, _SHUTTER_PRIORITY, _APERTURE_PRIORITY.
    private static let exposureAuto: Int64 = 0, exposureManual: Int64 = 1, exposureAperturePriority: Int64 = 3

    /// Whether the camera supports `mode`.
    public func isExposureModeSupported(_ mode: ExposureMode) -> Bool {
        guard let menu = control(.exposureMode)?.menu.map(\.value) else { return false }
        switch mode {
        case .continuousAutoExposure: return menu.contains(CaptureDevice.exposureAuto) || menu.contains(CaptureDevice.exposureAperturePriority)
        case .custom: return menu.contains(CaptureDevice.exposureManual) && control(.exposureTime) != nil
        }
    }

    /// Sets the exposure mode (needs the lock). Custom durations are clamped to what the camera offers.
    public func setExposureMode(_ mode: ExposureMode) throws(CaptureError) {
        guard isExposureModeSupported(mode), let menu = control(.exposureMode)?.menu.map(\.value) else {
            throw .unsupported("exposure mode \(mode) on \(localizedName)")
        }
        switch mode {
        case .continuousAutoExposure:
            try setValue(menu.contains(CaptureDevice.exposureAuto) ? CaptureDevice.exposureAuto : CaptureDevice.exposureAperturePriority, of: .exposureMode)
        case let .custom(duration):
            guard duration > 0, let time = control(.exposureTime) else { throw .unsupported("exposure time \(duration) s on \(localizedName)") }
            try setValue(CaptureDevice.exposureManual, of: .exposureMode)
            // V4L2 counts exposure time in units of 100 µs.
            let units = Int64((duration * 10_000).rounded())
            try setValue(min(max(units, time.minimum), time.maximum), of: .exposureTime)
        }
    }

    /// Exposure compensation in the camera's units (typically 0.001 EV), if it has the control.
    public func setExposureTargetBias(_ value: Int64) throws(CaptureError) {
        try setValue(value, of: .exposureBias)
    }

    /// Whether the camera supports `mode`.
    public func isWhiteBalanceModeSupported(_ mode: WhiteBalanceMode) -> Bool {
        switch mode {
        case .continuousAutoWhiteBalance: control(.autoWhiteBalance) != nil
        case let .temperature(kelvin):
            control(.whiteBalanceTemperature).map { (Int64($0.minimum)...Int64($0.maximum)).contains(Int64(kelvin)) } ?? false
        }
    }

    /// Sets the white balance mode (needs the lock).
    public func setWhiteBalanceMode(_ mode: WhiteBalanceMode) throws(CaptureError) {
        guard isWhiteBalanceModeSupported(mode) else { throw .unsupported("white balance \(mode) on \(localizedName)") }
        switch mode {
        case .continuousAutoWhiteBalance:
            try setValue(1, of: .autoWhiteBalance)
        case let .temperature(kelvin):
            if control(.autoWhiteBalance) != nil { try setValue(0, of: .autoWhiteBalance) }
            try setValue(Int64(kelvin), of: .whiteBalanceTemperature)
        }
    }

    /// Sets the manual focus position (needs the lock; continuous autofocus is switched off).
    public func setFocusPosition(_ position: Int64) throws(CaptureError) {
        if control(.continuousAutoFocus) != nil { try setValue(0, of: .continuousAutoFocus) }
        try setValue(position, of: .focusPosition)
    }

    /// Sets the zoom (needs the lock), in the camera's units between the control's bounds.
    public func setZoom(_ value: Int64) throws(CaptureError) {
        try setValue(value, of: .zoom)
    }

    /// Turns the torch on or off (needs the lock).
    public func setTorchMode(_ mode: TorchMode) throws(CaptureError) {
        guard hasTorch, let menu = control(.flashLEDMode)?.menu else { throw .unsupported("a torch on \(localizedName)") }
        let wanted = mode == .on ? menu.first { $0.label.lowercased().contains("torch") } : menu.first { $0.value == 0 }
        guard let value = wanted?.value else { throw .unsupported("torch mode \(mode) on \(localizedName)") }
        try setValue(value, of: .flashLEDMode)
    }

    /// Whether the torch is on now.
    public var isTorchActive: Bool {
        guard hasTorch, let menu = control(.flashLEDMode)?.menu, let value = try? value(of: .flashLEDMode) else { return false }
        return menu.first { $0.value == value }?.label.lowercased().contains("torch") ?? false
    }
}
