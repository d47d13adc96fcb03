// Pinhole's shim over libpng: libpng reports errors by longjmp, which Swift cannot catch,
// so setjmp lives here and every function returns 0 on success or -1 with a message in `error`.
#ifndef PINHOLE_PNG_H
#define PINHOLE_PNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Size of the error message buffer the functions below fill.
#define PINHOLE_PNG_ERROR_SIZE 200

/// A growable output buffer owned by C; free with pinhole_png_buffer_free.
typedef struct pinhole_png_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
} pinhole_png_buffer;

/// Header facts of a PNG, read without decoding pixels.
typedef struct pinhole_png_info {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;   // PNG_COLOR_TYPE_*
    int interlaced;
} pinhole_png_info;

/// Encodes 8-bit rows. channels: 1 (grey), 3 (RGB), 4 (RGBA); bgr != 0 means B,G,R(,A) in memory.
/// level: zlib level 0-9; filters: a PNG_FILTER_* mask (0 = libpng's default choice).
/// text_keys/text_values: optional tEXt chunks (count may be 0). exif: an optional eXIf chunk
/// (a TIFF block, without the "Exif\0\0" header), exif_size 0 for none.
int pinhole_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                       int channels, int bgr, int level, int filters,
                       const char *const *text_keys, const char *const *text_values, int text_count,
                       const uint8_t *exif, uint32_t exif_size,
                       pinhole_png_buffer *out, char *error);

/// Frees a buffer filled by pinhole_png_encode.
void pinhole_png_buffer_free(pinhole_png_buffer *buffer);

/// Reads the header only (signature and IHDR), so size limits can be checked before allocating.
int pinhole_png_read_info(const uint8_t *data, size_t size, pinhole_png_info *info, char *error);

/// Decodes to 8-bit rows of `channels` (1, 3 or 4; bgr swaps to B,G,R(,A)) into `pixels`,
/// which holds height rows of `stride` bytes. Refuses images over max_width x max_height.
int pinhole_png_decode(const uint8_t *data, size_t size, uint8_t *pixels, size_t stride,
                       int channels, int bgr, uint32_t max_width, uint32_t max_height, char *error);

#ifdef __cplusplus
}
#endif
#endif
