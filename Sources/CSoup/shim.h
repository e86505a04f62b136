/* CSoup: libsoup-3.0 and GIO for the Swift module Web's HTTP and WebSocket server, with a wrapper for the one
   variadic constructor Swift cannot call. */
#ifndef CSOUP_SHIM_H
#define CSOUP_SHIM_H
#include <libsoup/soup.h>
#include <gio/gio.h>

// soup_server_new is variadic (property list). "raw-paths": libsoup hands handlers the path still percent-encoded
// instead of decoding it and answering 400 itself when the decoded path has ".." segments; the router decodes.
static inline SoupServer *CSoup_server_new(void) { return soup_server_new("raw-paths", TRUE, NULL); }

// g_object_get is variadic, and G_OBJECT_GET_CLASS a macro. A connection stolen from libsoup comes wrapped (its
// SoupIOStream's "base-iostream" is the GSocketConnection the server accepted); the socket under it is where a refusal
// is written and the rest of the request drained. Transfer none: the stream holds its base, the base its socket.
static inline GSocket *CSoup_stream_socket(GIOStream *stream) {
    if (G_IS_SOCKET_CONNECTION(stream)) return g_socket_connection_get_socket(G_SOCKET_CONNECTION(stream));
    if (!g_object_class_find_property(G_OBJECT_GET_CLASS(stream), "base-iostream")) return NULL;
    GIOStream *base = NULL;
    g_object_get(stream, "base-iostream", &base, NULL);
    GSocket *socket = base && G_IS_SOCKET_CONNECTION(base) ? g_socket_connection_get_socket(G_SOCKET_CONNECTION(base)) : NULL;
    if (base) g_object_unref(base);
    return socket;
}
#endif
