// FFmpeg, used by pinhole-bench as the peer to measure against (later also by the movie encoder).
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
#include <libavutil/frame.h>
