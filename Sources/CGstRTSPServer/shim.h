/* CGstRTSPServer: gst-rtsp-server's headers for the Swift module Publish, with one wrapper per variadic or
   macro-based call it uses (tokens, roles, signal connections). */
#ifndef CGSTRTSPSERVER_SHIM_H
#define CGSTRTSPSERVER_SHIM_H
#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/rtsp-server/rtsp-server.h>

// Tokens, roles and signal connections are variadic or macro-based in C; one wrapper per use.

// A token naming the media-factory role `role` (GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE), transfer full.
static inline GstRTSPToken *CGstRTSPServer_token_for_role(const char *role) {
    return gst_rtsp_token_new(GST_RTSP_TOKEN_MEDIA_FACTORY_ROLE, G_TYPE_STRING, role, NULL);
}

// Lets `role` see and play the factory's media (access + construct), nothing else.
static inline void CGstRTSPServer_allow_role(GstRTSPMediaFactory *factory, const char *role) {
    gst_rtsp_media_factory_add_role(factory, role,
                                    GST_RTSP_PERM_MEDIA_FACTORY_ACCESS, G_TYPE_BOOLEAN, TRUE,
                                    GST_RTSP_PERM_MEDIA_FACTORY_CONSTRUCT, G_TYPE_BOOLEAN, TRUE, NULL);
}

// The server's GSource id for removal; g_source_remove on a non-default context needs the source itself.
static inline void CGstRTSPServer_remove_source(GMainContext *context, guint id) {
    GSource *source = g_main_context_find_source_by_id(context, id);
    if (source != NULL) g_source_destroy(source);
}

// The client filter that closes every client (used at shutdown).
static inline GstRTSPFilterResult CGstRTSPServer_remove_client(GstRTSPServer *server, GstRTSPClient *client, gpointer data) {
    (void) server; (void) client; (void) data;
    return GST_RTSP_FILTER_REMOVE;
}
static inline void CGstRTSPServer_close_all_clients(GstRTSPServer *server) {
    GList *kept = gst_rtsp_server_client_filter(server, CGstRTSPServer_remove_client, NULL);
    g_list_free_full(kept, g_object_unref);
}

#endif
