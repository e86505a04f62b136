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

// The VIDIOC_* request numbers are function-like macros (_IOR/_IOWR), which Swift cannot import; each
// CV4L2_REQUEST(NAME) carries the value across as a constant CV4L2_NAME. media.h's MEDIA_IOC_* are the same kind.
#define CV4L2_REQUEST(name) static const unsigned long CV4L2_##name = name;
// The device and its formats.
CV4L2_REQUEST(VIDIOC_QUERYCAP) CV4L2_REQUEST(VIDIOC_G_INPUT) CV4L2_REQUEST(VIDIOC_G_FMT)
CV4L2_REQUEST(VIDIOC_ENUM_FMT) CV4L2_REQUEST(VIDIOC_ENUM_FRAMESIZES) CV4L2_REQUEST(VIDIOC_ENUM_FRAMEINTERVALS)
// Its controls.
CV4L2_REQUEST(VIDIOC_QUERY_EXT_CTRL) CV4L2_REQUEST(VIDIOC_QUERYMENU)
CV4L2_REQUEST(VIDIOC_G_EXT_CTRLS) CV4L2_REQUEST(VIDIOC_S_EXT_CTRLS)
// The media controller above it.
CV4L2_REQUEST(MEDIA_IOC_DEVICE_INFO) CV4L2_REQUEST(MEDIA_IOC_G_TOPOLOGY)
#undef CV4L2_REQUEST

#endif
