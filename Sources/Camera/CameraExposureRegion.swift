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
            let frame = node.currentFrameSize(bufferType: info.captureBufferType)
        else { return nil }
        let autoExposureBit: Int64 = 1 << 0  // V4L2_UVC_REGION_OF_INTEREST_AUTO_EXPOSURE
        guard auto.maximum & autoExposureBit != 0 else { return nil }
        var region = point.square(in: frame, sideFraction: 8)
        try node.setCompound(rect, &region)
        let current = try value(of: auto)?.integerValue ?? 0
        if current & autoExposureBit == 0 { try set(auto, to: .integer(current | autoExposureBit)) }
        return ExposureRegionOutcome(point: point, left: region.left, top: region.top, width: region.width, height: region.height)
    }
}
