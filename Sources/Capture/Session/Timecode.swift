import Base
import FoundationEssentials
import GStreamer

/// The latency probe of a source with `"timecode": true`: each frame leaving the source gets the host's wall
/// clock stamped into its top band as 24 black-or-white blocks, the milliseconds since the epoch modulo 2^24,
/// most significant bit first. A page reads the band back from its `<video>` (or an MJPEG image) and compares
/// it with its own clock on the same machine: glass-to-glass latency, capture to screen.
///
/// The band is 1/12 of the height; blocks span the width, so 640 px gives 26 px blocks that survive H.264 and
/// JPEG. Luma only in YUV (planar or semi-planar) formats: white 235, black 16; every byte in 4-byte RGB formats.
enum Timecode {
    /// Bits in the stamp.
    static let bits = 24

    /// Stamps every buffer leaving `pad` (on its streaming thread; a format it cannot write is left alone).
    static func stamp(_ pad: Pad) {
        let layout = Locked<VideoInfo?>(nil)
        pad.onWritableBuffer { buffer in
            let info = layout.withLock { info -> VideoInfo? in
                if info == nil, let caps = pad.currentCaps { info = try? VideoInfo(caps: caps) }
                return info
            }
            guard let info else { return }
            let milliseconds = UInt32(truncatingIfNeeded: Int64(Date().timeIntervalSince1970 * 1000)) & 0xFF_FFFF
            try? buffer.withMappedVideoFrame(info) { frame in write(milliseconds, into: &frame, format: info.formatName) }
        }
    }

    /// Writes the blocks into plane 0.
    static func write(_ value: UInt32, into frame: inout VideoFrame, format: String) {
        let plane = frame.planes[0]
        let bytesPerPixel: Int
        let (one, zero): (UInt8, UInt8)
        switch format {
        case "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "GRAY8":
            (bytesPerPixel, one, zero) = (1, 235, 16)
        case "RGBA", "BGRA", "RGBx", "BGRx", "ARGB", "ABGR", "xRGB", "xBGR":
            (bytesPerPixel, one, zero) = (4, 255, 0)
        default:
            return
        }
        let width = plane.rowBytes / bytesPerPixel
        let band = max(1, plane.height / 12)
        guard width >= bits else { return }
        frame.withMutablePlane(0) { bytes in
            for y in 0..<band {
                for x in 0..<width {
                    let bit = (value >> UInt32(bits - 1 - min(bits - 1, x * bits / width))) & 1
                    let level = bit == 1 ? one : zero
                    for byte in 0..<bytesPerPixel { bytes[y * plane.stride + x * bytesPerPixel + byte] = level }
                }
            }
        }
    }
}
