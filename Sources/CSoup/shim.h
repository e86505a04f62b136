#ifndef CSOUP_SHIM_H
#define CSOUP_SHIM_H
#include <libsoup/soup.h>
#include <gio/gio.h>

// soup_server_new is variadic (property list). "raw-paths": libsoup hands handlers the path still percent-encoded
// instead of decoding it and answering 400 itself when the decoded path has ".." segments; the router decodes.
static inline SoupServer *CSoup_server_new(void) { return soup_server_new("raw-paths", TRUE, NULL); }
#endif
