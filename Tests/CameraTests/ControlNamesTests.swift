import Testing

@testable import Camera

@Test(arguments: [
    ("Brightness", "brightness"), ("Gain, Automatic", "gain_automatic"), ("Integer 64 Bits", "integer_64_bits"),
    ("Limited RGB Range (16-235)", "limited_rgb_range_16_235"), ("75% Colorbar", "75_colorbar"),
    ("  Horizontal  Flip ", "horizontal_flip"), ("Exposure Time, Absolute", "exposure_time_absolute"),
    ("U8 2x3x4x5 Array", "u8_2x3x4x5_array"), ("", "")
])
func controlKeyMatchesV4l2Ctl(label: String, key: String) {
    #expect(ControlNames.key(for: label) == key)
}
