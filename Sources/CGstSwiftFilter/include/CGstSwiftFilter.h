#ifndef CGSTSWIFTFILTER_H
#define CGSTSWIFTFILTER_H
// The GObject half of the `swiftfilter` element: what Swift cannot express (type registration,
// class_init, pad templates, properties, the plugin descriptor, variadic logging macros).
// All behaviour lives in the Swift module SwiftFilterElement.
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "SwiftCamVersion.h"

G_BEGIN_DECLS

typedef struct _GstSwiftFilter {
  GstVideoFilter parent;
  /* The Swift state object (retained by Swift, released in finalize). */
  gpointer swift_state;
} GstSwiftFilter;

typedef struct _GstSwiftFilterClass {
  GstVideoFilterClass parent_class;
} GstSwiftFilterClass;

/// Registers `swiftfilter` with a plugin. (gst_element_register needs the GType from C.)
gboolean CGstSwiftFilter_plugin_init(GstPlugin *plugin);

/// Registers the element for this process only, as a static plugin.
gboolean CGstSwiftFilter_register_static(void);

/// Logs to the `swiftfilter` debug category. (GST_CAT_LEVEL_LOG is a variadic macro.)
void CGstSwiftFilter_log(GstSwiftFilter *filter, GstDebugLevel level, const char *message);

/// Whether the debug category would print at `level`, so Swift can skip building the text.
gboolean CGstSwiftFilter_log_enabled(GstDebugLevel level);

/// Posts a WARNING message on the bus. (GST_ELEMENT_WARNING is a variadic macro.)
void CGstSwiftFilter_post_warning(GstSwiftFilter *filter, const char *message, const char *debug);

/// Posts an ERROR message on the bus. (GST_ELEMENT_ERROR is a variadic macro.)
void CGstSwiftFilter_post_error(GstSwiftFilter *filter, const char *message, const char *debug);

G_END_DECLS
#endif
