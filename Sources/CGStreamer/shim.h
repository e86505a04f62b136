/* CGStreamer: GStreamer's C headers (core, base, video, app) for the Swift module GStreamer, through pkg-config
   (gstreamer-app-1.0); the module map links the libraries pkg-config does not name. Nothing but includes. */
#ifndef CGSTREAMER_SHIM_H
#define CGSTREAMER_SHIM_H
#include <gst/gst.h>
#include <gst/base/base.h>
#include <gst/video/video.h>
#include <gst/app/app.h>
// mallopt: the frame allocator's policy (GStreamer.mapLargeBlocks); glibc's malloc.h is not in Swift's Glibc module.
#include <malloc.h>

// GLib's fundamental type ids are function-like macros Swift cannot import.
static inline GType CGStreamer_type_boolean(void) { return G_TYPE_BOOLEAN; }
static inline GType CGStreamer_type_int(void) { return G_TYPE_INT; }
static inline GType CGStreamer_type_uint(void) { return G_TYPE_UINT; }
static inline GType CGStreamer_type_long(void) { return G_TYPE_LONG; }
static inline GType CGStreamer_type_ulong(void) { return G_TYPE_ULONG; }
static inline GType CGStreamer_type_int64(void) { return G_TYPE_INT64; }
static inline GType CGStreamer_type_uint64(void) { return G_TYPE_UINT64; }
static inline GType CGStreamer_type_float(void) { return G_TYPE_FLOAT; }
static inline GType CGStreamer_type_double(void) { return G_TYPE_DOUBLE; }
static inline GType CGStreamer_type_string(void) { return G_TYPE_STRING; }
static inline GType CGStreamer_type_enum(void) { return G_TYPE_ENUM; }
static inline GType CGStreamer_type_flags(void) { return G_TYPE_FLAGS; }
static inline GType CGStreamer_type_boxed(void) { return G_TYPE_BOXED; }
static inline GType CGStreamer_type_object(void) { return G_TYPE_OBJECT; }

// GST_MESSAGE_TYPE / G_OBJECT_GET_CLASS are macros over struct casts.
static inline GObjectClass *CGStreamer_object_class(gpointer object) { return G_OBJECT_GET_CLASS(object); }

// The fraction GType is a runtime-registered global variable behind a macro.
static inline GType CGStreamer_type_fraction(void) { return GST_TYPE_FRACTION; }

// GLib 2.80 and later mark their flag enums G_GNUC_FLAG_ENUM, which Swift imports as option sets
// (GParamFlags.PARAM_READABLE) where older GLib gives global constants (G_PARAM_READABLE): the flags SwiftCam uses,
// under one name whichever GLib the build finds (Debian 12's 2.74, a Pi's, unstable's).
static const GParamFlags CGStreamer_param_readable = G_PARAM_READABLE;
static const GParamFlags CGStreamer_param_writable = G_PARAM_WRITABLE;
static const GConnectFlags CGStreamer_connect_default = (GConnectFlags)0;
static const GConnectFlags CGStreamer_connect_after = G_CONNECT_AFTER;
#endif
