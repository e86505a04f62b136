#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H
#include <gst/gst.h>
#include <gst/base/base.h>
#include <gst/video/video.h>
#include <gst/app/app.h>
#endif
