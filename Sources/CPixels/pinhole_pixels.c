// Media's per-pixel loops (see pinhole_pixels.h for why they are in C).
#include "pinhole_pixels.h"

void pinhole_expand_range_plane(const uint8_t *source, size_t source_stride,
                                uint8_t *destination, size_t destination_stride,
                                size_t row_bytes, size_t rows, int chroma) {
    uint8_t table[256];
    const int low = 16, high = chroma ? 240 : 235, scale = chroma ? 291 : 298, round = chroma ? 256 : 128;
    for (int value = 0; value < 256; value++) {
        const int clamped = value < low ? low : value > high ? high : value;
        table[value] = (uint8_t)(((clamped - low) * scale + round) >> 8);
    }
    for (size_t row = 0; row < rows; row++) {
        const uint8_t *from = source + row * source_stride;
        uint8_t *to = destination + row * destination_stride;
        for (size_t i = 0; i < row_bytes; i++) {
            to[i] = table[from[i]];
        }
    }
}

int pinhole_alpha_is_opaque(const uint8_t *base, size_t stride, size_t width, size_t height) {
    for (size_t row = 0; row < height; row++) {
        const uint8_t *alpha = base + row * stride + 3, *end = alpha + width * 4;
        // AND of every alpha byte: one branch per row rather than per pixel.
        uint8_t all = 255;
        for (; alpha < end; alpha += 4) {
            all &= *alpha;
        }
        if (all != 255) {
            return 0;
        }
    }
    return 1;
}

/// `value` clamped to 0…255.
static inline uint8_t clamp_byte(long value) {
    return value < 0 ? 0 : value > 255 ? 255 : (uint8_t)value;
}

void pinhole_synthetic_photo_like(uint8_t *base, size_t stride, long width, long height, uint64_t seed) {
    uint64_t state = seed;
    const long radius = height / 5;
    for (long y = 0; y < height; y++) {
        uint8_t *row = base + (size_t)y * stride;
        const long dy = y - height / 3;
        for (long x = 0; x < width; x++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const long noise = (long)((state >> 59) & 7) - 4;
            const long dx = x - width / 2;
            long r = x * 255 / width, g = y * 255 / height, b = 255 - (x + y) * 255 / (width + height);
            if (dx * dx + dy * dy < radius * radius) {
                r = 230; g = 180; b = 40;
            }
            if ((x / (width / 8 + 1) + y / (height / 6 + 1)) % 5 == 0) {
                b = b - 90 > 0 ? b - 90 : 0;
            }
            row[x * 4] = clamp_byte(b + noise);
            row[x * 4 + 1] = clamp_byte(g + noise);
            row[x * 4 + 2] = clamp_byte(r + noise);
            row[x * 4 + 3] = 255;
        }
    }
}
