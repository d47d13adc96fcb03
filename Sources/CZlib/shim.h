// zlib, for the compressed text chunks of PNG files whose metadata Media edits (XMP in iTXt,
// ImageMagick's "Raw profile type …" zTXt).
#include <zlib.h>
