/// The pixel formats a libcamera source may name, in both vocabularies.
public enum LibcameraFormats {
    /// libcamera's pixel format names (DRM's, which name a 32-bit word from its high bits) as GStreamer's (which name
    /// the bytes in memory order): `BGR888` is R, G, B in memory, GStreamer's `RGB`. Nil for Bayer and unknown formats.
    public static let gstreamer: [String: String] = [
        "BGR888": "RGB", "RGB888": "BGR", "XRGB8888": "BGRx", "XBGR8888": "RGBx", "ARGB8888": "BGRA", "ABGR8888": "RGBA",
        "NV12": "NV12", "NV21": "NV21", "YUV420": "I420", "YVU420": "YV12", "YUYV": "YUY2", "UYVY": "UYVY",
        "YVYU": "YVYU", "NV16": "NV16", "RGB565": "RGB16"
    ]
}
