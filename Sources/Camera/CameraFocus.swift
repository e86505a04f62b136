import CV4L2

/// A point in the picture, normalized: (0, 0) top-left, (1, 1) bottom-right; values outside are clamped.
public struct NormalizedPoint: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A square of 1/`sideFraction` of the frame's shorter side, centred on the point and kept inside the
    /// frame: the region handed to ROI focus and exposure controls.
    func square(in frame: (width: UInt32, height: UInt32), sideFraction: UInt32) -> v4l2_rect {
        let side = Swift.max(Swift.min(frame.width, frame.height) / Swift.max(sideFraction, 1), 1)
        let left = Swift.min(Swift.max(x * Double(frame.width) - Double(side) / 2, 0), Double(frame.width - side))
        let top = Swift.min(Swift.max(y * Double(frame.height) - Double(side) / 2, 0), Double(frame.height - side))
        return v4l2_rect(left: Int32(clamping: Int64(left)), top: Int32(clamping: Int64(top)), width: side, height: side)
    }

    /// Horizontal position, 0…1 from the left.
    public let x: Double
    /// Vertical position, 0…1 from the top.
    public let y: Double

    /// Creates a point, clamping each coordinate to 0…1 (NaN becomes the centre).
    public init(x: Double, y: Double) {
        self.x = x.isNaN ? 0.5 : Swift.min(Swift.max(x, 0), 1)
        self.y = y.isNaN ? 0.5 : Swift.min(Swift.max(y, 0), 1)
    }

    /// `0.5,0.5`.
    public var description: String { "\(x.decimalText),\(y.decimalText)" }
}

/// What `CameraDevice.focus(at:)` did.
public enum FocusOutcome: Hashable, Sendable, CustomStringConvertible {
    /// Region-of-interest autofocus was pointed at `point` (`left,top,width×height` in pixels).
    case region(NormalizedPoint, left: Int32, top: Int32, width: UInt32, height: UInt32)
    /// The camera has no region control; a one-shot autofocus (`V4L2_CID_AUTO_FOCUS_START`) over the whole frame ran.
    case oneShot(NormalizedPoint)
    /// The camera cannot focus on demand.
    case unsupported(NormalizedPoint)

    /// `focus 0.5,0.5 (hardware region 280,200 80x80)`, `focus 0.5,0.5 (one-shot autofocus, whole frame)`
    /// or `focus 0.5,0.5: this camera cannot focus on a point (no autofocus controls)`.
    public var description: String {
        switch self {
        case let .region(point, left, top, width, height):
            return "focus \(point) (hardware region \(left),\(top) \(width)x\(height))"
        case let .oneShot(point):
            return "focus \(point) (one-shot autofocus, whole frame)"
        case let .unsupported(point):
            return "focus \(point): this camera cannot focus on a point (no autofocus controls)"
        }
    }
}

extension CameraDevice {
    /// Focuses at a tap point: UVC region-of-interest autofocus where present, else one autofocus run
    /// (`V4L2_CID_AUTO_FOCUS_START`), else `.unsupported`.
    public func focus(at point: NormalizedPoint) throws(DeviceError) -> FocusOutcome {
        if let rect = try control(id: ControlID.uvcRegionOfInterestRect), rect.isWritableCompound(elementSize: 16),
            let auto = try writableControl(ControlID.uvcRegionOfInterestAuto),
            let frame = node.currentFrameSize(bufferType: info.captureBufferType)
        {
            var region = point.square(in: frame, sideFraction: 10)
            try node.setCompound(rect, &region)
            let autoFocusBit: Int64 = 1 << 3  // V4L2_UVC_REGION_OF_INTEREST_AUTO_FOCUS
            let current = try value(of: auto)?.integerValue ?? 0
            if current & autoFocusBit == 0, auto.maximum & autoFocusBit != 0 {
                try set(auto, to: .integer(current | autoFocusBit))
            }
            if let start = try writableControl(ControlID.autoFocusStart) { try set(start, to: .integer(1)) }
            return .region(point, left: region.left, top: region.top, width: region.width, height: region.height)
        }
        if let start = try writableControl(ControlID.autoFocusStart) {
            // One-shot autofocus only runs while continuous autofocus is off.
            if let continuous = try writableControl(ControlID.focusAuto), try value(of: continuous)?.integerValue == 1 {
                try set(continuous, to: .boolean(false))
            }
            try set(start, to: .integer(1))
            return .oneShot(point)
        }
        return .unsupported(point)
    }
}

extension CameraControl {
    /// True for a writable single compound control whose element has `elementSize` bytes.
    func isWritableCompound(elementSize size: UInt32) -> Bool {
        !flags.contains(.readOnly) && elements == 1 && dimensions.isEmpty && elementSize == size
    }
}

extension DeviceNode {
    /// The negotiated frame size (`VIDIOC_G_FMT`), or nil when the driver does not say.
    func currentFrameSize(bufferType: UInt32) -> (width: UInt32, height: UInt32)? {
        var format = v4l2_format()
        format.type = bufferType
        guard attempt(CV4L2_VIDIOC_G_FMT, &format) == 0 else { return nil }
        let size =
            bufferType == V4L2_BUF_TYPE_VIDEO_CAPTURE_MPLANE.rawValue
            ? (format.fmt.pix_mp.width, format.fmt.pix_mp.height) : (format.fmt.pix.width, format.fmt.pix.height)
        return size.0 > 0 && size.1 > 0 ? size : nil
    }

    /// Writes a compound control (e.g. a `v4l2_rect`) through `VIDIOC_S_EXT_CTRLS`'s payload pointer.
    func setCompound<T>(_ control: CameraControl, _ payload: inout T) throws(DeviceError) {
        let code = withUnsafeMutablePointer(to: &payload) { pointer -> Int32 in
            var ext = v4l2_ext_control()
            ext.id = control.id
            ext.size = UInt32(MemoryLayout<T>.size)
            ext.ptr = UnsafeMutableRawPointer(pointer)
            return withUnsafeMutablePointer(to: &ext) { extPointer -> Int32 in
                var controls = v4l2_ext_controls()
                controls.which = UInt32(V4L2_CTRL_WHICH_CUR_VAL)
                controls.count = 1
                controls.controls = extPointer
                return attempt(CV4L2_VIDIOC_S_EXT_CTRLS, &controls)
            }
        }
        if code != 0 { throw DeviceError.ioctl("VIDIOC_S_EXT_CTRLS", errno: code, path: path) }
    }
}
