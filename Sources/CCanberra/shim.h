// libcanberra for the freedesktop event sounds (camera-shutter). ca_context_play is variadic:
// Swift uses ca_context_play_full with a proplist.
#include <canberra.h>
