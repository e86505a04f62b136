#ifndef SWIFTFILTER_SWIFT_CALLBACKS_H
#define SWIFTFILTER_SWIFT_CALLBACKS_H
// Implemented in Swift (SwiftFilterElement, @_cdecl). Private to the C target so Swift never sees
// two declarations of the same function.
#include "CGstSwiftFilter.h"

gpointer swiftfilter_state_new(GstSwiftFilter *filter);
void swiftfilter_state_free(gpointer state);
void swiftfilter_set_chain(gpointer state, GstSwiftFilter *filter, const char *text);
char *swiftfilter_get_chain(gpointer state);                 /* g_malloc'ed */
void swiftfilter_set_threads(gpointer state, GstSwiftFilter *filter, guint threads);
guint swiftfilter_get_threads(gpointer state);
GstStructure *swiftfilter_get_stats(gpointer state, GstSwiftFilter *filter); /* transfer full */
gboolean swiftfilter_start(gpointer state, GstSwiftFilter *filter);
void swiftfilter_stop(gpointer state, GstSwiftFilter *filter);
gboolean swiftfilter_set_info(gpointer state, GstSwiftFilter *filter, GstVideoInfo *in_info, GstVideoInfo *out_info);
gboolean swiftfilter_prepare(gpointer state, GstSwiftFilter *filter, GstBuffer *input);
GstFlowReturn swiftfilter_transform_buffers(gpointer state, GstSwiftFilter *filter, GstBuffer *input, GstBuffer *output);
void swiftfilter_observe_message(gpointer state, GstSwiftFilter *filter, GstMessage *message); /* transfer none */

#endif
