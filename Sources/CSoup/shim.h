#ifndef CSOUP_SHIM_H
#define CSOUP_SHIM_H
#include <libsoup/soup.h>
#include <gio/gio.h>

// soup_server_new is variadic (property list): a server with no properties.
static inline SoupServer *CSoup_server_new(void) { return soup_server_new(NULL, NULL); }
#endif
