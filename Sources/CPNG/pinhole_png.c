// See include/pinhole_png.h.
#include "pinhole_png.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The most memory one ancillary chunk (text, iCCP, eXIf, ...) may take when reading: 8 MiB.
#define PINHOLE_PNG_CHUNK_MAX (8u << 20)

typedef struct error_context {
    jmp_buf jump;
    char *message;
} error_context;

static void on_error(png_structp png, png_const_charp message) {
    error_context *context = (error_context *)png_get_error_ptr(png);
    snprintf(context->message, PINHOLE_PNG_ERROR_SIZE, "%s", message);
    longjmp(context->jump, 1);
}

static void on_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void write_data(png_structp png, png_bytep data, png_size_t length) {
    pinhole_png_buffer *out = (pinhole_png_buffer *)png_get_io_ptr(png);
    if (out->size + length > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 65536;
        while (capacity < out->size + length) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(out->data, capacity);
        if (!grown) png_error(png, "out of memory while writing PNG");
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, data, length);
    out->size += length;
}

static void flush_data(png_structp png) { (void)png; }

int pinhole_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride,
                       int channels, int bgr, int level, int filters,
                       const char *const *text_keys, const char *const *text_values, int text_count,
                       const uint8_t *exif, uint32_t exif_size,
                       pinhole_png_buffer *out, char *error) {
    error_context context;
    context.message = error;
    out->data = NULL;
    out->size = 0;
    out->capacity = 0;
    int color_type;
    switch (channels) {
        case 1: color_type = PNG_COLOR_TYPE_GRAY; break;
        case 3: color_type = PNG_COLOR_TYPE_RGB; break;
        case 4: color_type = PNG_COLOR_TYPE_RGB_ALPHA; break;
        default: snprintf(error, PINHOLE_PNG_ERROR_SIZE, "unsupported channel count %d", channels); return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, on_error, on_warning);
    if (!png) { snprintf(error, PINHOLE_PNG_ERROR_SIZE, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(context.jump)) {
        png_destroy_write_struct(&png, info ? &info : NULL);
        pinhole_png_buffer_free(out);
        if (!info) snprintf(error, PINHOLE_PNG_ERROR_SIZE, "out of memory");
        return -1;
    }
    png_set_write_fn(png, out, write_data, flush_data);
    png_set_IHDR(png, info, width, height, 8, color_type, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, level);
    if (filters) png_set_filter(png, PNG_FILTER_TYPE_BASE, filters);
    if (text_count > 0) {
        png_text *texts = (png_text *)calloc((size_t)text_count, sizeof(png_text));
        if (!texts) png_error(png, "out of memory");
        for (int i = 0; i < text_count; i++) {
            texts[i].compression = PNG_TEXT_COMPRESSION_NONE;
            texts[i].key = (png_charp)text_keys[i];
            texts[i].text = (png_charp)text_values[i];
        }
        png_set_text(png, info, texts, text_count);
        free(texts);
    }
    if (exif && exif_size > 0) png_set_eXIf_1(png, info, exif_size, (png_bytep)exif);
    png_write_info(png, info);
    if (bgr) png_set_bgr(png);
    for (uint32_t y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * stride));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

void pinhole_png_buffer_free(pinhole_png_buffer *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}

typedef struct read_source {
    const uint8_t *data;
    size_t size;
    size_t offset;
} read_source;

static void read_data(png_structp png, png_bytep out, png_size_t length) {
    read_source *source = (read_source *)png_get_io_ptr(png);
    if (length > source->size - source->offset) png_error(png, "the PNG file is truncated");
    memcpy(out, source->data + source->offset, length);
    source->offset += length;
}

/// Checks that every chunk but IDAT fits in the `size` bytes there are: libpng allocates a text
/// chunk's declared length whole before reading it (1.6.39 bounds only compressed text and IDAT
/// by png_set_chunk_malloc_max), and a 14-KB file declaring a 1.8-GB tEXt had it allocate that
/// much (found by scripts/fuzz). IDAT is streamed, so a file cut off in its pixels is libpng's to
/// judge. Returns -1 with the reason in `error`.
static int check_chunk_lengths(const uint8_t *data, size_t size, char *error) {
    size_t offset = 8;
    while (size - offset >= 8) {
        uint32_t length = (uint32_t)data[offset] << 24 | (uint32_t)data[offset + 1] << 16 | (uint32_t)data[offset + 2] << 8 | data[offset + 3];
        const uint8_t *type = data + offset + 4;
        int is_idat = memcmp(type, "IDAT", 4) == 0;
        if (!is_idat && (uint64_t)length + 12 > size - offset) {
            snprintf(error, PINHOLE_PNG_ERROR_SIZE, "the %.4s chunk at byte %zu declares %u bytes, past the end of the %zu-byte file",
                     (const char *)type, offset, length, size);
            return -1;
        }
        if (memcmp(type, "IEND", 4) == 0 || (uint64_t)length + 12 > size - offset) return 0;
        offset += (size_t)length + 12;
    }
    return 0;
}

/// Starts reading: checks the signature, sets up error handling, reads IHDR.
/// Called inside the caller's setjmp scope (it may longjmp).
static void read_header(png_structp png, png_infop info, read_source *source) {
    png_set_read_fn(png, source, read_data);
    png_read_info(png, info);
}

int pinhole_png_read_info(const uint8_t *data, size_t size, pinhole_png_info *result, char *error) {
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        snprintf(error, PINHOLE_PNG_ERROR_SIZE, "not a PNG file (bad signature)");
        return -1;
    }
    if (check_chunk_lengths(data, size, error) < 0) return -1;
    error_context context;
    context.message = error;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_error, on_warning);
    if (!png) { snprintf(error, PINHOLE_PNG_ERROR_SIZE, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(context.jump)) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (!info) snprintf(error, PINHOLE_PNG_ERROR_SIZE, "out of memory");
        return -1;
    }
    // Header only: allow any size here; the caller decides what it accepts. The chunks before
    // the pixels are read too, and bounded as when decoding.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_set_chunk_malloc_max(png, PINHOLE_PNG_CHUNK_MAX);
    read_source source = {data, size, 0};
    read_header(png, info, &source);
    result->width = png_get_image_width(png, info);
    result->height = png_get_image_height(png, info);
    result->bit_depth = png_get_bit_depth(png, info);
    result->color_type = png_get_color_type(png, info);
    result->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int pinhole_png_decode(const uint8_t *data, size_t size, uint8_t *pixels, size_t stride,
                       int channels, int bgr, uint32_t max_width, uint32_t max_height, char *error) {
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        snprintf(error, PINHOLE_PNG_ERROR_SIZE, "not a PNG file (bad signature)");
        return -1;
    }
    if (check_chunk_lengths(data, size, error) < 0) return -1;
    if (channels != 1 && channels != 3 && channels != 4) {
        snprintf(error, PINHOLE_PNG_ERROR_SIZE, "unsupported channel count %d", channels);
        return -1;
    }
    error_context context;
    context.message = error;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &context, on_error, on_warning);
    if (!png) { snprintf(error, PINHOLE_PNG_ERROR_SIZE, "out of memory"); return -1; }
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(context.jump)) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        if (!info) snprintf(error, PINHOLE_PNG_ERROR_SIZE, "out of memory");
        return -1;
    }
    png_set_user_limits(png, max_width, max_height);
    // Bound the memory any single ancillary chunk (iCCP, zTXt, ...) may take.
    png_set_chunk_malloc_max(png, PINHOLE_PNG_CHUNK_MAX);
    read_source source = {data, size, 0};
    read_header(png, info, &source);

    int color_type = png_get_color_type(png, info);
    int bit_depth = png_get_bit_depth(png, info);
    if (bit_depth == 16) png_set_strip_16(png);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    int is_grey = (color_type & PNG_COLOR_MASK_COLOR) == 0;
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, info, PNG_INFO_tRNS);
    if (channels == 1) {
        if (!is_grey) png_set_rgb_to_gray_fixed(png, 1, -1, -1);
        if (has_alpha) png_set_strip_alpha(png);
    } else {
        if (is_grey) png_set_gray_to_rgb(png);
        if (channels == 4 && !has_alpha) png_set_filler(png, 0xff, PNG_FILLER_AFTER);
        if (channels == 3 && has_alpha) png_set_strip_alpha(png);
        if (bgr) png_set_bgr(png);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) > stride) png_error(png, "internal error: row larger than stride");
    uint32_t height = png_get_image_height(png, info);
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < height; y++) {
            png_read_row(png, (png_bytep)(pixels + (size_t)y * stride), NULL);
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}
