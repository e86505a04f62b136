/* CV4L2: the kernel's V4L2 and media-controller headers, and inotify/eventfd, for the Swift module Camera (device
   ioctls, controls, topology, waiting for a device node to come back). No GStreamer. */
#ifndef CV4L2_H
#define CV4L2_H
#include <linux/videodev2.h>
#include <linux/v4l2-controls.h>
#include <linux/media.h>
// Recovery waits for device nodes with inotify, woken early through an eventfd.
#include <sys/inotify.h>
#include <sys/eventfd.h>

// The VIDIOC_* request numbers are function-like macros (_IOR/_IOWR), which Swift
// cannot import; these constants carry their values across.
static const unsigned long CV4L2_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long CV4L2_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long CV4L2_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long CV4L2_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long CV4L2_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long CV4L2_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long CV4L2_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
static const unsigned long CV4L2_VIDIOC_G_INPUT = VIDIOC_G_INPUT;
static const unsigned long CV4L2_VIDIOC_G_FMT = VIDIOC_G_FMT;
// media.h's MEDIA_IOC_DEVICE_INFO is the same kind of macro.
static const unsigned long CV4L2_MEDIA_IOC_DEVICE_INFO = MEDIA_IOC_DEVICE_INFO;
static const unsigned long CV4L2_MEDIA_IOC_G_TOPOLOGY = MEDIA_IOC_G_TOPOLOGY;

#endif
