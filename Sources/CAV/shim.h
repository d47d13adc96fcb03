// FFmpeg (Debian's libav*-dev), linked, for the tests (Benchmarks/ has its own, CPeers, for pinhole-bench).
// Media does not link it: it opens FFmpeg on first use through CMediaLoader.
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
