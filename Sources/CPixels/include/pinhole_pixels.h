// Media's per-pixel loops, in C. SwiftPM compiles a debug build's Swift without optimisation, and
// refuses optimisation flags (unsafeFlags) in a package used as a dependency; unspecialised Swift
// loops over 4K pictures took seconds there. These loops are written so that even unoptimised C
// (a debug build's -O0) runs them in tens of milliseconds: a lookup table per plane, no calls.
#ifndef PINHOLE_PIXELS_H
#define PINHOLE_PIXELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Rescales one plane of 8-bit Y'CbCr samples from video range to full range, `rows` rows of
/// `row_bytes` bytes; `source` and `destination` may be the same memory. With `chroma` 0 (luma):
/// Y' = ((clamp(Y, 16, 235) − 16) · 298 + 128) >> 8; otherwise (Cb, Cr, planar or interleaved):
/// C' = ((clamp(C, 16, 240) − 16) · 291 + 256) >> 8.
void pinhole_expand_range_plane(const uint8_t *source, size_t source_stride,
                                uint8_t *destination, size_t destination_stride,
                                size_t row_bytes, size_t rows, int chroma);

/// 1 when every pixel's alpha byte (the fourth of each 4-byte pixel) is 255, else 0.
int pinhole_alpha_is_opaque(const uint8_t *base, size_t stride, size_t width, size_t height);

/// Fills a BGRA picture with `SyntheticImage.photoLike`'s pattern: gradients, a disc, darker
/// patches and noise from a 64-bit linear congruential generator seeded with `seed`.
void pinhole_synthetic_photo_like(uint8_t *base, size_t stride, long width, long height, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
