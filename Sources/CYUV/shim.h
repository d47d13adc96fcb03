// libyuv (Debian's libyuv-dev ships no pkg-config file). Its headers are C-compatible.
#include <libyuv.h>
