// libwebp (Debian's libwebp-dev): decoding and encoding WebP stills for the photo library.
#include <webp/decode.h>
#include <webp/encode.h>
