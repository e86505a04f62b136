import CV4L2

/// What `CameraDevice.exposeRegion(at:)` did: region-of-interest auto exposure pointed at a tap.
public struct ExposureRegionOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The tap point.
    public let point: NormalizedPoint
    /// The region in pixels.
    public let left: Int32, top: Int32, width: UInt32, height: UInt32

    /// `exposure 0.5,0.5 (hardware region 280,200 80x80)`.
    public var description: String { "exposure \(point) (hardware region \(left),\(top) \(width)x\(height))" }
}

extension CameraDevice {
    /// Points UVC region-of-interest auto exposure at a tap (`V4L2_CID_UVC_REGION_OF_INTEREST_RECT` + the
    /// auto-exposure bit of `…_AUTO`); nil when the camera has no such controls (then meter in software).
    public func exposeRegion(at point: NormalizedPoint) throws(DeviceError) -> ExposureRegionOutcome? {
        guard let rect = try control(id: ControlID.uvcRegionOfInterestRect), rect.isWritableCompound(elementSize: 16),
              let auto = try writableControl(ControlID.uvcRegionOfInterestAuto),
              let frame = node.currentFrameSize(bufferType: info.captureBufferType) else { return nil }
        let autoExposureBit: Int64 = 1 << 0  // V4L2_UVC_REGION_OF_INTEREST_AUTO_EXPOSURE
        guard auto.maximum & autoExposureBit != 0 else { return nil }
        // A square an eighth of the shorter side, centred on the tap and kept inside the frame.
        let side = Swift.max(UInt32(Double(Swift.min(frame.width, frame.height)) / 8), 1)
        let left = Int32(clamping: Int64(Swift.min(Swift.max(point.x * Double(frame.width) - Double(side) / 2, 0),
                                                   Double(frame.width - side))))
        let top = Int32(clamping: Int64(Swift.min(Swift.max(point.y * Double(frame.height) - Double(side) / 2, 0),
                                                  Double(frame.height - side))))
        var region = v4l2_rect(left: left, top: top, width: side, height: side)
        try node.setCompound(rect, &region)
        let current = try value(of: auto)?.integerValue ?? 0
        if current & autoExposureBit == 0 { try set(auto, to: .integer(current | autoExposureBit)) }
        return ExposureRegionOutcome(point: point, left: left, top: top, width: side, height: side)
    }
}
