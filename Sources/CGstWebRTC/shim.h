/* CGstWebRTC: webrtcbin's and SDP's headers for the Swift module Web, with one wrapper per action signal it uses
   (action signals are variadic in C, which Swift cannot call). */
#ifndef CGSTWEBRTC_SHIM_H
#define CGSTWEBRTC_SHIM_H
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#define GST_USE_UNSTABLE_API
#include <gst/webrtc/webrtc.h>

// webrtcbin is driven by action signals, and g_signal_emit_by_name is variadic: one wrapper per signal used.

static inline void CGstWebRTC_create_offer(GstElement *webrtc, GstPromise *promise) {
    g_signal_emit_by_name(webrtc, "create-offer", NULL, promise);
}

static inline void CGstWebRTC_set_local_description(GstElement *webrtc, GstWebRTCSessionDescription *description) {
    g_signal_emit_by_name(webrtc, "set-local-description", description, NULL);
}

static inline void CGstWebRTC_set_remote_description(GstElement *webrtc, GstWebRTCSessionDescription *description) {
    g_signal_emit_by_name(webrtc, "set-remote-description", description, NULL);
}

static inline void CGstWebRTC_add_ice_candidate(GstElement *webrtc, guint mline, const char *candidate) {
    g_signal_emit_by_name(webrtc, "add-ice-candidate", mline, candidate);
}

// The ICE agent's "add-local-ip-address" (1.22): gathering uses only the addresses given.
static inline gboolean CGstWebRTC_add_local_ip_address(GstElement *webrtc, const char *address) {
    GObject *ice = NULL;
    gboolean added = FALSE;
    g_object_get(webrtc, "ice-agent", &ice, NULL);
    if (ice == NULL) return FALSE;
    g_signal_emit_by_name(ice, "add-local-ip-address", address, &added);
    g_object_unref(ice);
    return added;
}

// The offer a create-offer promise replied with (borrowed from the reply structure), or NULL.
static inline GstWebRTCSessionDescription *CGstWebRTC_offer_from_reply(const GstStructure *reply) {
    GstWebRTCSessionDescription *offer = NULL;
    if (reply == NULL) return NULL;
    if (!gst_structure_get(reply, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &offer, NULL)) return NULL;
    return offer;  // transfer full: the caller frees it
}
#endif
