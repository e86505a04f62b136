import CV4L2

/// The `V4L2_CID_*` IDs SwiftCam looks controls up by (never by name), as `UInt32`.
public enum ControlID {
    /// `V4L2_CID_BRIGHTNESS`.
    public static let brightness = id(V4L2_CID_BRIGHTNESS)
    /// `V4L2_CID_CONTRAST`.
    public static let contrast = id(V4L2_CID_CONTRAST)
    /// `V4L2_CID_SATURATION`.
    public static let saturation = id(V4L2_CID_SATURATION)
    /// `V4L2_CID_HUE`.
    public static let hue = id(V4L2_CID_HUE)
    /// `V4L2_CID_HFLIP`.
    public static let horizontalFlip = id(V4L2_CID_HFLIP)
    /// `V4L2_CID_VFLIP`.
    public static let verticalFlip = id(V4L2_CID_VFLIP)
    /// `V4L2_CID_AUTOGAIN`.
    public static let autoGain = id(V4L2_CID_AUTOGAIN)
    /// `V4L2_CID_GAIN`.
    public static let gain = id(V4L2_CID_GAIN)
    /// `V4L2_CID_AUTO_WHITE_BALANCE`.
    public static let autoWhiteBalance = id(V4L2_CID_AUTO_WHITE_BALANCE)
    /// `V4L2_CID_WHITE_BALANCE_TEMPERATURE` (kelvin).
    public static let whiteBalanceTemperature = id(V4L2_CID_WHITE_BALANCE_TEMPERATURE)
    /// `V4L2_CID_EXPOSURE_AUTO` (menu: auto, manual, shutter priority, aperture priority).
    public static let exposureAuto = id(V4L2_CID_EXPOSURE_AUTO)
    /// `V4L2_CID_EXPOSURE_ABSOLUTE` (units of 100 µs).
    public static let exposureTimeAbsolute = id(V4L2_CID_EXPOSURE_ABSOLUTE)
    /// `V4L2_CID_AUTO_EXPOSURE_BIAS` (integer menu, units of 0.001 EV).
    public static let autoExposureBias = id(V4L2_CID_AUTO_EXPOSURE_BIAS)
    /// `V4L2_CID_ZOOM_ABSOLUTE`.
    public static let zoomAbsolute = id(V4L2_CID_ZOOM_ABSOLUTE)
    /// `V4L2_CID_FOCUS_AUTO` (continuous autofocus).
    public static let focusAuto = id(V4L2_CID_FOCUS_AUTO)
    /// `V4L2_CID_AUTO_FOCUS_START` (button: one autofocus run).
    public static let autoFocusStart = id(V4L2_CID_AUTO_FOCUS_START)
    /// `V4L2_CID_FLASH_LED_MODE` (menu: none, flash, torch).
    public static let flashLEDMode = id(V4L2_CID_FLASH_LED_MODE)
    /// `V4L2_CID_FLASH_TORCH_INTENSITY`.
    public static let flashTorchIntensity = id(V4L2_CID_FLASH_TORCH_INTENSITY)
    /// `V4L2_CID_UVC_REGION_OF_INTEREST_RECT` (Linux 6.3+ `uvcvideo.h`, newer than this machine's headers):
    /// `V4L2_CID_USER_BASE + 0x11e0 + 1`, a `v4l2_rect` compound control.
    public static let uvcRegionOfInterestRect = id(V4L2_CID_USER_BASE) + 0x11e0 + 1
    /// `V4L2_CID_UVC_REGION_OF_INTEREST_AUTO`: bitmask of what tracks the region (bit 3 = auto focus).
    public static let uvcRegionOfInterestAuto = id(V4L2_CID_USER_BASE) + 0x11e0 + 2

    private static func id<T: BinaryInteger>(_ value: T) -> UInt32 { UInt32(truncatingIfNeeded: value) }
}
