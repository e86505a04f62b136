#include "CFilterPlugin.h"

/* A symbol, not only a macro, so the bytes are in every binary built with this module: the loader searches a
 * plugin file for them before it loads the file. */
static const char stamp[] = SWIFTCAM_FILTER_PLUGIN_STAMP;

const char *CFilterPlugin_stamp(void) { return stamp; }
