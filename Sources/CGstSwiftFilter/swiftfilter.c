#include "CGstSwiftFilter.h"
#include "swift_callbacks.h"

GST_DEBUG_CATEGORY_STATIC(swiftfilter_debug);
#define GST_CAT_DEFAULT swiftfilter_debug

/* The plugin is a part of SwiftCam and carries its version, so `gst-inspect-1.0 swiftfilter` says which
 * release is installed. */
#define SWIFTFILTER_VERSION SWIFTCAM_VERSION

enum { PROP_0, PROP_CHAIN, PROP_N_THREADS, PROP_STATS };

/* Exactly the formats of Filters.PixelFormat, by their GStreamer names: FormatTests checks both templates. */
#define SWIFTFILTER_FORMATS "{ RGBA, BGRA, RGBx, BGRx, ARGB, xRGB, I420, NV12, YUY2 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(SWIFTFILTER_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(SWIFTFILTER_FORMATS)));

G_DEFINE_TYPE(GstSwiftFilter, gst_swift_filter, GST_TYPE_VIDEO_FILTER)

static void gst_swift_filter_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec) {
  GstSwiftFilter *self = (GstSwiftFilter *)object;
  switch (id) {
    case PROP_CHAIN: swiftfilter_set_chain(self->swift_state, self, g_value_get_string(value)); break;
    case PROP_N_THREADS: swiftfilter_set_threads(self->swift_state, self, g_value_get_uint(value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
  }
}

static void gst_swift_filter_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  GstSwiftFilter *self = (GstSwiftFilter *)object;
  switch (id) {
    case PROP_CHAIN: g_value_take_string(value, swiftfilter_get_chain(self->swift_state)); break;
    case PROP_N_THREADS: g_value_set_uint(value, swiftfilter_get_threads(self->swift_state)); break;
    case PROP_STATS: g_value_take_boxed(value, swiftfilter_get_stats(self->swift_state, self)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
  }
}

static void gst_swift_filter_finalize(GObject *object) {
  GstSwiftFilter *self = (GstSwiftFilter *)object;
  swiftfilter_state_free(self->swift_state);
  self->swift_state = NULL;
  G_OBJECT_CLASS(gst_swift_filter_parent_class)->finalize(object);
}

static gboolean gst_swift_filter_start(GstBaseTransform *trans) {
  GstSwiftFilter *self = (GstSwiftFilter *)trans;
  return swiftfilter_start(self->swift_state, self);
}

static gboolean gst_swift_filter_stop(GstBaseTransform *trans) {
  GstSwiftFilter *self = (GstSwiftFilter *)trans;
  swiftfilter_stop(self->swift_state, self);
  return TRUE;
}

static gboolean gst_swift_filter_set_info(GstVideoFilter *filter, GstCaps *incaps, GstVideoInfo *in_info,
                                          GstCaps *outcaps, GstVideoInfo *out_info) {
  GstSwiftFilter *self = (GstSwiftFilter *)filter;
  return swiftfilter_set_info(self->swift_state, self, in_info, out_info);
}

/* Our own output decision, made once per buffer together with the chain that will run on it: the input
 * itself for the empty chain (zero copy, never mapped) and when the chain can work in place on a writable
 * input; else a new buffer from the pool. GStreamer's in-place mode would first copy a shared input on
 * this thread; a separate output lets the chain read and write in one pass split across cores. The base
 * class's passthrough flag is never used: it is read twice per buffer, so flipping it while frames flow
 * could push a buffer that was never written. */
static GstFlowReturn gst_swift_filter_prepare_output_buffer(GstBaseTransform *trans, GstBuffer *input,
                                                            GstBuffer **outbuf) {
  GstSwiftFilter *self = (GstSwiftFilter *)trans;
  if (swiftfilter_prepare(self->swift_state, self, input)) {
    *outbuf = input;
    return GST_FLOW_OK;
  }
  return GST_BASE_TRANSFORM_CLASS(gst_swift_filter_parent_class)->prepare_output_buffer(trans, input, outbuf);
}

/* Output buffers start on a 64-byte boundary: the AVX-512 rows store 64 bytes at a time, and with the pool's
 * default alignment every other 1080p buffer began 32 bytes into a cache line, so each such store straddled two.
 * Asked of the allocator through the query's parameters, which the parent class hands to the pool it configures. */
static gboolean gst_swift_filter_decide_allocation(GstBaseTransform *trans, GstQuery *query) {
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  if (gst_query_get_n_allocation_params(query) > 0) {
    gst_query_parse_nth_allocation_param(query, 0, &allocator, &params);
    params.align |= 63;
    gst_query_set_nth_allocation_param(query, 0, allocator, &params);
    if (allocator != NULL) gst_object_unref(allocator);
  } else {
    gst_allocation_params_init(&params);
    params.align = 63;
    gst_query_add_allocation_param(query, NULL, &params);
  }
  return GST_BASE_TRANSFORM_CLASS(gst_swift_filter_parent_class)->decide_allocation(trans, query);
}

/* Never called (transform below replaces GstVideoFilter's), but GstVideoFilter switches a filter without
 * transform_frame to in-place mode on every caps change, which would bypass our output decision. */
static GstFlowReturn gst_swift_filter_unused_transform_frame(GstVideoFilter *filter, GstVideoFrame *in_frame,
                                                             GstVideoFrame *out_frame) {
  return GST_FLOW_NOT_SUPPORTED;
}

static GstFlowReturn gst_swift_filter_transform(GstBaseTransform *trans, GstBuffer *input, GstBuffer *output) {
  GstSwiftFilter *self = (GstSwiftFilter *)trans;
  return swiftfilter_transform_buffers(self->swift_state, self, input, output);
}

/* Swift sees each message as it leaves (GstBaseTransform reports its QoS drops only in QoS messages),
 * then the parent class posts it: chaining up needs the parent_class G_DEFINE_TYPE keeps in C. */
static gboolean gst_swift_filter_post_message(GstElement *element, GstMessage *message) {
  GstSwiftFilter *self = (GstSwiftFilter *)element;
  swiftfilter_observe_message(self->swift_state, self, message);
  return GST_ELEMENT_CLASS(gst_swift_filter_parent_class)->post_message(element, message);
}

static void gst_swift_filter_class_init(GstSwiftFilterClass *klass) {
  GObjectClass *gobject_class = G_OBJECT_CLASS(klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS(klass);
  GstBaseTransformClass *transform_class = GST_BASE_TRANSFORM_CLASS(klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS(klass);

  gobject_class->set_property = gst_swift_filter_set_property;
  gobject_class->get_property = gst_swift_filter_get_property;
  gobject_class->finalize = gst_swift_filter_finalize;

  g_object_class_install_property(gobject_class, PROP_CHAIN,
      g_param_spec_string("chain", "Filter chain",
          "Filters in SwiftCam's text grammar, e.g. \"sepia intensity=0.8 | vignette radius=2\"; "
          "empty passes frames through untouched. May change while PLAYING: the new chain applies from the next "
          "whole frame, an invalid one is rejected with a warning and the running chain kept",
          "", G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(gobject_class, PROP_N_THREADS,
      g_param_spec_uint("n-threads", "Threads",
          "Worker threads that split the rows of large frames (0 = one per core)",
          0, 256, 0, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
  g_object_class_install_property(gobject_class, PROP_STATS,
      g_param_spec_boxed("stats", "Statistics",
          "Frames processed, frames dropped for lateness, mean and max milliseconds per frame, current chain",
          GST_TYPE_STRUCTURE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_set_static_metadata(element_class, "Swift filter chain", "Filter/Effect/Video",
      "Runs a SwiftCam filter chain (sepia, vignette, colour controls, blur, zoom, LUTs, ...) written in Swift "
      "on raw video, natively on RGB and YUV (NV12, I420, YUY2) planes",
      "SwiftCam");
  gst_element_class_add_static_pad_template(element_class, &sink_template);
  gst_element_class_add_static_pad_template(element_class, &src_template);
  element_class->post_message = gst_swift_filter_post_message;

  transform_class->start = gst_swift_filter_start;
  transform_class->stop = gst_swift_filter_stop;
  transform_class->prepare_output_buffer = gst_swift_filter_prepare_output_buffer;
  transform_class->decide_allocation = gst_swift_filter_decide_allocation;
  transform_class->transform = gst_swift_filter_transform;
  filter_class->set_info = gst_swift_filter_set_info;
  filter_class->transform_frame = gst_swift_filter_unused_transform_frame;
}

static void gst_swift_filter_init(GstSwiftFilter *self) {
  self->swift_state = swiftfilter_state_new(self);
  gst_base_transform_set_qos_enabled(GST_BASE_TRANSFORM(self), TRUE);
}

gboolean CGstSwiftFilter_plugin_init(GstPlugin *plugin) {
  if (!swiftfilter_debug)
    GST_DEBUG_CATEGORY_INIT(swiftfilter_debug, "swiftfilter", 0, "SwiftCam filter chain element");
  return gst_element_register(plugin, "swiftfilter", GST_RANK_NONE, gst_swift_filter_get_type());
}

gboolean CGstSwiftFilter_register_static(void) {
  return gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "swiftfilter",
      "SwiftCam filters written in Swift", CGstSwiftFilter_plugin_init, SWIFTFILTER_VERSION, "MIT/X11", "swiftcam", "SwiftCam", "SwiftCam");
}

void CGstSwiftFilter_log(GstSwiftFilter *filter, GstDebugLevel level, const char *message) {
  if (!swiftfilter_debug) return;
  GST_CAT_LEVEL_LOG(swiftfilter_debug, level, filter, "%s", message);
}

gboolean CGstSwiftFilter_log_enabled(GstDebugLevel level) {
  return swiftfilter_debug != NULL && gst_debug_category_get_threshold(swiftfilter_debug) >= level;
}

void CGstSwiftFilter_post_warning(GstSwiftFilter *filter, const char *message, const char *debug) {
  GST_ELEMENT_WARNING(filter, STREAM, FAILED, ("%s", message), ("%s", debug ? debug : ""));
}

void CGstSwiftFilter_post_error(GstSwiftFilter *filter, const char *message, const char *debug) {
  GST_ELEMENT_ERROR(filter, STREAM, FAILED, ("%s", message), ("%s", debug ? debug : ""));
}

/* The plugin descriptor gst-launch-1.0 finds in libgstswiftfilter.so. */
#ifndef PACKAGE
#define PACKAGE "swiftcam"
#endif
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, swiftfilter, "SwiftCam filters written in Swift",
                  CGstSwiftFilter_plugin_init, SWIFTFILTER_VERSION, "MIT/X11", "SwiftCam", "SwiftCam")
