#ifndef CFILTERPLUGIN_H
#define CFILTERPLUGIN_H
// The C table through which a filter plugin (libgstNAME.so, built with the FilterPlugin module) hands its filters to
// the process's `swiftfilter`, and its analysers to the host. The plugin and the process each carry their own copy of the Filters module, which never
// share a Swift type, so everything that crosses is C: descriptions, values, planes and function pointers.
// The stamp comes first in every version of the table and is compared before anything else is read.
#include <stdint.h>
#include "SwiftCamVersion.h"

#define SWIFTCAM_FILTER_PLUGIN_STAMP_PREFIX "SwiftCam filter plugin ABI "
/* Written into every plugin: the loader reads it from the file before loading it, and from the table after. */
#define SWIFTCAM_FILTER_PLUGIN_STAMP SWIFTCAM_FILTER_PLUGIN_STAMP_PREFIX "2, SwiftCam " SWIFTCAM_VERSION
/* The GObject data key under which plugin_init leaves the table on its GstPlugin, and the name of its cache data. */
#define SWIFTCAM_FILTER_PLUGIN_KEY "swiftcam-filter-plugin"
/* Samples of a curve step, at x = i / (SWIFTCAM_CURVE_SAMPLES - 1). */
#define SWIFTCAM_CURVE_SAMPLES 1025
/* Point steps one instance may have. */
#define SWIFTCAM_MAX_POINT_STEPS 16

enum { SWIFTCAM_PARAMETER_NUMBER = 0, SWIFTCAM_PARAMETER_INTEGER = 1 };
enum { SWIFTCAM_FILTER_POINT = 0, SWIFTCAM_FILTER_FRAME = 1 };
enum { SWIFTCAM_STEP_MATRIX = 0, SWIFTCAM_STEP_CURVE = 1, SWIFTCAM_STEP_CUBE = 2 };

typedef struct {
  const char *key;
  const char *summary;
  const char *unit;
  int32_t kind;
  double default_value;
  double minimum;
  double maximum;
} SwiftCamParameter;

typedef struct {
  int32_t kind;
  /* SWIFTCAM_STEP_MATRIX: the rows that make R, G and B, then the offset. */
  double matrix[12];
  /* SWIFTCAM_STEP_CURVE: SWIFTCAM_CURVE_SAMPLES values. */
  const double *curve;
  /* SWIFTCAM_STEP_CUBE: cube_size^3 RGB triples, red fastest, over the domain (min R, G, B, max R, G, B). */
  int32_t cube_size;
  const float *cube;
  double cube_domain[6];
} SwiftCamPointStep;

typedef struct {
  /* GStreamer's name of the format: "RGBA", "NV12", ... */
  const char *format;
  int32_t width;
  int32_t height;
  /* 0 = BT.601, 1 = BT.709; 0 = limited, 1 = full range. */
  int32_t matrix;
  int32_t range;
  int32_t plane_count;
  uint8_t *planes[3];
  int64_t strides[3];
} SwiftCamFrame;

typedef struct {
  void *host;
  /* At least `bytes` bytes kept for `slot` (0...99) across frames, from the host's compiled chain. */
  void *(*scratch)(void *host, int32_t slot, int64_t bytes);
  int32_t threads;
} SwiftCamFrameContext;

typedef struct {
  const char *name;
  const char *summary;
  int32_t kind;
  int32_t parameter_count;
  const SwiftCamParameter *parameters;
  /* An instance from values in declaration order, within their ranges; NULL when the filter refuses them. */
  void *(*create)(int32_t filter, const double *values);
  void (*destroy)(void *instance);
  /* Point filters: writes the instance's steps for a colour matrix (0 = BT.601, 1 = BT.709), at most `capacity`,
   * and returns their number (-1 on failure). The step pointers stay valid until `destroy`. */
  int32_t (*point_steps)(void *instance, int32_t matrix, SwiftCamPointStep *steps, int32_t capacity);
  /* Frame filters: reads `input`, writes every visible byte of `output` (never the same memory). An instance may be
   * applied from any thread, and one instance by two elements' threads at once (two graphs with the same chain):
   * `point_steps` and `apply` read the instance and never change it. */
  void (*apply)(void *instance, const SwiftCamFrame *input, const SwiftCamFrame *output, const SwiftCamFrameContext *context);
} SwiftCamFilterDescriptor;

enum { SWIFTCAM_OPTION_NUMBER = 0, SWIFTCAM_OPTION_INTEGER = 1, SWIFTCAM_OPTION_BOOL = 2, SWIFTCAM_OPTION_ZONES = 3 };

/* An option an analyser takes; NUMBER and INTEGER are within minimum...maximum. */
typedef struct {
  const char *key;
  const char *summary;
  int32_t kind;
  double minimum;
  double maximum;
} SwiftCamAnalyzerOption;

/* One option's value as a config gave it, already checked against its declaration. */
typedef struct {
  /* 0: not given (the analyser's default). */
  int32_t present;
  /* NUMBER, INTEGER: the value; BOOL: 0 or 1. */
  double number;
  /* ZONES: zone_count polygons; zone i is an include (1) or exclude (0) zone of corners[i] corners, whose x, y pairs
   * follow one another in `points`, zone after zone. */
  int32_t zone_count;
  const int32_t *include;
  const int32_t *corners;
  const double *points;
} SwiftCamAnalyzerValue;

/* One frame's luma, lent for the call: width x height bytes, rows `stride` apart. */
typedef struct {
  uint64_t time;
  int64_t index;
  int32_t width;
  int32_t height;
  int64_t stride;
  int32_t full_range;
  const uint8_t *luma;
} SwiftCamLumaFrame;

/* One event an analyser made; `kind` lives until `emit` returns. The host names its source and time. */
typedef struct {
  const char *kind;
  int32_t has_area;
  double area;
  int32_t has_box;
  double box[4];
} SwiftCamAnalysisEvent;

typedef struct {
  const char *name;
  const char *summary;
  int32_t option_count;
  const SwiftCamAnalyzerOption *options;
  /* An instance from one value per option in declaration order; NULL when the analyser refuses them, with the reason
   * (at most `capacity` bytes, NUL-terminated) in `reason`. */
  void *(*create)(int32_t analyzer, const SwiftCamAnalyzerValue *values, char *reason, int32_t capacity);
  void (*destroy)(void *instance);
  /* Reads one frame on the analyser's own queue (one call at a time per instance) and hands each event it makes to
   * `emit`, before returning. */
  void (*analyze)(void *instance, const SwiftCamLumaFrame *frame, void *host,
                  void (*emit)(void *host, const SwiftCamAnalysisEvent *event));
} SwiftCamAnalyzerDescriptor;

typedef struct {
  /* SWIFTCAM_FILTER_PLUGIN_STAMP of the SwiftCam the plugin was built with. */
  const char *stamp;
  int32_t filter_count;
  const SwiftCamFilterDescriptor *filters;
  int32_t analyzer_count;
  const SwiftCamAnalyzerDescriptor *analyzers;
} SwiftCamFilterPlugin;

/* This build's stamp. (Swift does not import a macro made of concatenated strings.) */
const char *CFilterPlugin_stamp(void);

#endif
