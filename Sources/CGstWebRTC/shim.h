/* CGstWebRTC: webrtcbin's and SDP's headers for the Swift module Web, with one wrapper per action signal it uses
   (action signals are variadic in C, which Swift cannot call). */
#ifndef CGSTWEBRTC_SHIM_H
#define CGSTWEBRTC_SHIM_H
#include <gst/gst.h>
#include <gst/sdp/sdp.h>
#define GST_USE_UNSTABLE_API
#include <gst/webrtc/webrtc.h>

// GLib's criticals and errors, made fatal for the signalling fuzzer: GLib 2.80 and later import GLogLevelFlags as an
// option set (.LOG_LEVEL_CRITICAL), older GLib as global constants (G_LOG_LEVEL_CRITICAL); this reads the same on both.
static inline void CGstWebRTC_make_criticals_fatal(void) {
    g_log_set_always_fatal(G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
}

// webrtcbin is driven by action signals, and g_signal_emit_by_name is variadic: one wrapper per signal used.

static inline void CGstWebRTC_create_offer(GstElement *webrtc, GstPromise *promise) {
    g_signal_emit_by_name(webrtc, "create-offer", NULL, promise);
}

// With a promise though nothing waits on it: when webrtcbin cannot queue the task (the viewer is closing), 1.22 replies
// with an error structure, which a NULL promise leaks.
static inline void CGstWebRTC_set_local_description(GstElement *webrtc, GstWebRTCSessionDescription *description) {
    GstPromise *promise = gst_promise_new();
    g_signal_emit_by_name(webrtc, "set-local-description", description, promise);
    gst_promise_unref(promise);
}

static inline void CGstWebRTC_set_remote_description(GstElement *webrtc, GstWebRTCSessionDescription *description,
                                                     GstPromise *promise) {
    g_signal_emit_by_name(webrtc, "set-remote-description", description, promise);
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

// The transceiver of a webrtcbin sink pad offers `caps` (one structure per codec, best first) and sends only: the offer
// is made from them before any frame reaches the pad. g_object_get and g_object_set are variadic.
static inline gboolean CGstWebRTC_offer_codecs(GstPad *pad, GstCaps *caps) {
    GstWebRTCRTPTransceiver *transceiver = NULL;
    g_object_get(pad, "transceiver", &transceiver, NULL);
    if (transceiver == NULL) return FALSE;
    g_object_set(transceiver, "codec-preferences", caps, "direction", GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_SENDONLY, NULL);
    gst_object_unref(transceiver);
    return TRUE;
}

// The offer a create-offer promise replied with (borrowed from the reply structure), or NULL.
static inline GstWebRTCSessionDescription *CGstWebRTC_offer_from_reply(const GstStructure *reply) {
    GstWebRTCSessionDescription *offer = NULL;
    if (reply == NULL) return NULL;
    if (!gst_structure_get(reply, "offer", GST_TYPE_WEBRTC_SESSION_DESCRIPTION, &offer, NULL)) return NULL;
    return offer;  // transfer full: the caller frees it
}

// The error a promise's reply carries (webrtcbin replies to a refused description with a GError under "error"), or
// NULL. gst_structure_get is variadic. Transfer full: the caller frees it.
static inline GError *CGstWebRTC_reply_error(const GstStructure *reply) {
    GError *error = NULL;
    if (reply == NULL || !gst_structure_has_field(reply, "error")) return NULL;
    if (!gst_structure_get(reply, "error", G_TYPE_ERROR, &error, NULL)) return NULL;
    return error;
}

// The DTLS transport of the first transceiver (with max-bundle, the one every stream uses), or NULL before the
// descriptions made it. "get-transceiver" is an action signal, the sender's "transport" a property (g_object_get is
// variadic). Transfer full.
static inline GObject *CGstWebRTC_dtls_transport(GstElement *webrtc) {
    GObject *transceiver = NULL, *sender = NULL, *transport = NULL;
    g_signal_emit_by_name(webrtc, "get-transceiver", 0, &transceiver);
    if (transceiver == NULL) return NULL;
    g_object_get(transceiver, "sender", &sender, NULL);
    g_object_unref(transceiver);
    if (sender == NULL) return NULL;
    g_object_get(sender, "transport", &transport, NULL);
    g_object_unref(sender);
    return transport;
}

// A DTLS transport's state (GstWebRTCDTLSTransportState) and the peer's certificate as PEM (transfer full, or NULL
// before the handshake): properties, read with the variadic g_object_get.
static inline GstWebRTCDTLSTransportState CGstWebRTC_dtls_state(GObject *transport) {
    GstWebRTCDTLSTransportState state = GST_WEBRTC_DTLS_TRANSPORT_STATE_NEW;
    g_object_get(transport, "state", &state, NULL);
    return state;
}

static inline gchar *CGstWebRTC_remote_certificate(GObject *transport) {
    gchar *pem = NULL;
    g_object_get(transport, "remote-certificate", &pem, NULL);
    return pem;
}
#endif
