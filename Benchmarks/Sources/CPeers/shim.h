// What pinhole-bench measures Pinhole against, linked: FFmpeg (Debian's libav*-dev), and
// libyuv's version (libyuv-dev; Media converts with libyuv) for the machine's description.
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
#include <libyuv/version.h>
