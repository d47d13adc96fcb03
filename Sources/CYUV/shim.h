// libyuv (Debian's libyuv-dev ships no pkg-config file). Its headers are C-compatible.
#include <libyuv.h>

// The address of libyuv's full-range BT.601 ("JPEG") constants. Swift copies an imported
// constant to the stack when asked for a pointer to it, and libyuv's AVX2 code needs the real,
// 32-byte-aligned table: a misaligned copy faults.
static inline const struct YuvConstants *pinhole_yuv_jpeg_constants(void) { return &kYuvJPEGConstants; }
