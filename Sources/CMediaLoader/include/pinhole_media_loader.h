// FFmpeg and libheif, opened on first use instead of at process start.
//
// Linking them makes every process that uses Media map their whole dependency trees (FFmpeg's
// pulls in cairo, pango, X11, gnutls, Kerberos, ZeroMQ, OpenCL, …; libheif its codecs) before
// `main`, though a JPEG snap or `--version` never calls them. Media therefore calls them through
// these tables of function pointers, filled by dlopen of the sonames the headers belong to and
// dlsym of each function. The pointer types come from the headers (`__typeof__`), so a
// signature that differs from the library's is a compile error, not a crash.
#pragma once
#include <stddef.h>
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
#include <libavutil/mathematics.h>
#include <libheif/heif.h>

/// The FFmpeg functions Media calls (X(name) for each).
#define PINHOLE_FFMPEG_FUNCTIONS(X) \
    X(av_buffer_create) X(av_channel_layout_copy) X(av_channel_layout_default) X(av_dict_free) \
    X(av_dict_get) X(av_dict_set) X(av_display_rotation_get) X(av_display_rotation_set) \
    X(av_find_best_stream) X(av_frame_alloc) X(av_frame_free) X(av_frame_get_buffer) \
    X(av_frame_make_writable) X(av_frame_unref) X(av_free) X(av_freep) X(av_guess_format) \
    X(av_interleaved_write_frame) X(av_log_default_callback) X(av_log_get_level) X(av_log_set_callback) \
    X(av_malloc) X(av_opt_set) X(av_packet_alloc) X(av_packet_free) X(av_packet_move_ref) \
    X(av_packet_rescale_ts) X(av_packet_unref) X(av_read_frame) X(av_rescale_q) \
    X(av_stream_get_side_data) X(av_stream_new_side_data) X(av_strerror) X(av_write_frame) \
    X(av_write_trailer) X(avcodec_alloc_context3) X(avcodec_find_decoder) X(avcodec_find_encoder_by_name) \
    X(avcodec_free_context) X(avcodec_get_name) X(avcodec_open2) X(avcodec_parameters_copy) \
    X(avcodec_parameters_from_context) X(avcodec_parameters_to_context) X(avcodec_receive_frame) \
    X(avcodec_receive_packet) X(avcodec_send_frame) X(avcodec_send_packet) X(avformat_alloc_output_context2) \
    X(avformat_close_input) X(avformat_find_stream_info) X(avformat_free_context) X(avformat_new_stream) \
    X(avformat_open_input) X(avformat_write_header) X(avio_alloc_context) X(avio_closep) \
    X(avio_context_free) X(avio_flush) X(avio_open) X(sws_freeContext) X(sws_getContext) X(sws_scale)

/// The libheif functions Media calls.
#define PINHOLE_HEIF_FUNCTIONS(X) \
    X(heif_check_filetype) X(heif_context_add_exif_metadata) X(heif_context_alloc) \
    X(heif_context_encode_image) X(heif_context_free) X(heif_context_get_encoder_descriptors) \
    X(heif_context_get_encoder_for_format) X(heif_context_get_primary_image_handle) \
    X(heif_context_read_from_memory_without_copy) X(heif_context_set_maximum_image_size_limit) \
    X(heif_context_write) X(heif_decode_image) X(heif_encoder_descriptor_get_id_name) \
    X(heif_encoder_release) X(heif_encoder_set_lossy_quality) X(heif_encoder_set_parameter) \
    X(heif_have_encoder_for_format) X(heif_image_add_plane) X(heif_image_create) \
    X(heif_image_get_height) X(heif_image_get_plane) X(heif_image_get_plane_readonly) \
    X(heif_image_get_width) X(heif_image_handle_get_height) X(heif_image_handle_get_list_of_metadata_block_IDs) \
    X(heif_image_handle_get_list_of_thumbnail_IDs) X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_number_of_thumbnails) \
    X(heif_image_handle_get_thumbnail) X(heif_image_handle_get_width) X(heif_image_handle_release) \
    X(heif_image_release) X(heif_image_set_nclx_color_profile) X(heif_nclx_color_profile_alloc) \
    X(heif_nclx_color_profile_free)

#define PINHOLE_LOADER_FIELD(name) __typeof__(name) * _Nonnull name;

/// FFmpeg's functions, once `pinhole_ffmpeg_load` has filled them.
struct pinhole_ffmpeg {
    PINHOLE_FFMPEG_FUNCTIONS(PINHOLE_LOADER_FIELD)
};

/// libheif's functions, once `pinhole_heif_load` has filled them.
struct pinhole_heif {
    PINHOLE_HEIF_FUNCTIONS(PINHOLE_LOADER_FIELD)
};

#undef PINHOLE_LOADER_FIELD

/// Opens libavformat, libavcodec, libavutil and libswscale (the sonames of the headers compiled
/// against) and returns their table, or NULL with the reason (dlerror's text) in `error`.
/// Call once (Media keeps the result; not thread-safe); the libraries stay loaded for the
/// process's life.
const struct pinhole_ffmpeg * _Nullable pinhole_ffmpeg_load(char * _Nonnull error, size_t size);

/// Opens libheif and returns its table, as `pinhole_ffmpeg_load` does.
const struct pinhole_heif * _Nullable pinhole_heif_load(char * _Nonnull error, size_t size);

/// AVERROR(EAGAIN) and AVERROR_EOF are macros Swift cannot import.
static inline int pinhole_averror_eagain(void) { return AVERROR(EAGAIN); }
/// AVERROR_EOF, which Swift cannot import.
static inline int pinhole_averror_eof(void) { return AVERROR_EOF; }

/// Tunes the process for a long recording. x264 frees and reallocates large frame buffers
/// constantly; glibc's defaults return that memory to the kernel and fault it back in, zeroed, a
/// moment later: it is kept instead. x264 also advises huge pages for those buffers, and
/// khugepaged, minutes later, fills a partly used 2-MiB range to make one: the process's
/// transparent huge pages are turned off (PR_SET_THP_DISABLE), so its memory stays what it was.
void pinhole_tune_memory_for_recording(void);
