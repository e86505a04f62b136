#ifndef SWIFTCAM_VERSION_H
#define SWIFTCAM_VERSION_H
// The one place SwiftCam's version is written: `swiftcam --version` (Swift imports this macro as a
// String), the plugin descriptor `gst-inspect-1.0 swiftfilter` shows, and the Debian package
// (scripts/package.sh reads this line).
#define SWIFTCAM_VERSION "0.1.0"

#endif
