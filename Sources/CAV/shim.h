// FFmpeg (Debian's libav*-dev): libavformat probes and writes movie containers, libavcodec decodes
// and encodes (H.264 through libx264, AAC, VP8/VP9, Opus); pinhole-bench also measures against it.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
#include <libavutil/frame.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/display.h>
#include <libavutil/log.h>

/// AVERROR(EAGAIN) and AVERROR_EOF are macros Swift cannot import.
static inline int pinhole_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int pinhole_averror_eof(void) { return AVERROR_EOF; }

#include <malloc.h>

/// x264 frees and reallocates large frame buffers constantly; glibc's defaults return that memory
/// to the kernel and fault it back in, zeroed, a moment later. Keeping it costs nothing a
/// recording does not need anyway.
static inline void pinhole_keep_freed_memory(void) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}
