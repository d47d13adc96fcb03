// Pinhole's shim over the V4L2 kernel interface: the VIDIOC_* request numbers (function-like
// macros Swift cannot import), a non-variadic ioctl that retries on EINTR, control access
// through the packed v4l2_ext_control structure, and accessors for the multi-planar structures
// (the packed v4l2_pix_format_mplane and the unions of v4l2_buffer and v4l2_plane). Functions
// that talk to the kernel return 0 or -1 with errno set.
#ifndef PINHOLE_V4L2_H
#define PINHOLE_V4L2_H

#include <linux/videodev2.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifdef __cplusplus
extern "C" {
#endif

/// VIDIOC_* request numbers.
extern const unsigned long PINHOLE_VIDIOC_QUERYCAP;
extern const unsigned long PINHOLE_VIDIOC_ENUM_FMT;
extern const unsigned long PINHOLE_VIDIOC_G_FMT;
extern const unsigned long PINHOLE_VIDIOC_S_FMT;
extern const unsigned long PINHOLE_VIDIOC_TRY_FMT;
extern const unsigned long PINHOLE_VIDIOC_REQBUFS;
extern const unsigned long PINHOLE_VIDIOC_QUERYBUF;
extern const unsigned long PINHOLE_VIDIOC_QBUF;
extern const unsigned long PINHOLE_VIDIOC_DQBUF;
extern const unsigned long PINHOLE_VIDIOC_STREAMON;
extern const unsigned long PINHOLE_VIDIOC_STREAMOFF;
extern const unsigned long PINHOLE_VIDIOC_G_PARM;
extern const unsigned long PINHOLE_VIDIOC_S_PARM;
extern const unsigned long PINHOLE_VIDIOC_ENUM_FRAMESIZES;
extern const unsigned long PINHOLE_VIDIOC_ENUM_FRAMEINTERVALS;
extern const unsigned long PINHOLE_VIDIOC_QUERY_EXT_CTRL;
extern const unsigned long PINHOLE_VIDIOC_QUERYMENU;
extern const unsigned long PINHOLE_VIDIOC_SUBSCRIBE_EVENT;
extern const unsigned long PINHOLE_VIDIOC_UNSUBSCRIBE_EVENT;
extern const unsigned long PINHOLE_VIDIOC_DQEVENT;
extern const unsigned long PINHOLE_VIDIOC_G_INPUT;
extern const unsigned long PINHOLE_VIDIOC_S_INPUT;

/// ioctl(fd, request, arg), retried while it fails with EINTR.
/// ioctl, retried on EINTR. With PINHOLE_DEBUG=v4l2 in the environment, each call is logged on
/// standard error: "pinhole v4l2: NODE REQUEST ok|error".
int pinhole_ioctl(int fd, unsigned long request, void *arg);

/// Reads the current value of a (non-compound) control; is64 for V4L2_CTRL_TYPE_INTEGER64.
int pinhole_v4l2_get_control(int fd, uint32_t id, int is64, int64_t *value);

/// Sets a (non-compound) control; is64 for V4L2_CTRL_TYPE_INTEGER64.
int pinhole_v4l2_set_control(int fd, uint32_t id, int is64, int64_t value);

/// The offset of a single-planar mmap buffer (the `m.offset` member of the union).
static inline uint32_t pinhole_v4l2_buffer_offset(const struct v4l2_buffer *buffer) { return buffer->m.offset; }

/// The most planes a multi-planar format has (VIDEO_MAX_PLANES).
enum { PINHOLE_V4L2_MAX_PLANES = VIDEO_MAX_PLANES };

/// Points a multi-planar buffer at `count` plane descriptions (`m.planes` and `length`).
static inline void pinhole_v4l2_buffer_set_planes(struct v4l2_buffer *buffer, struct v4l2_plane *planes, uint32_t count) {
    buffer->m.planes = planes;
    buffer->length = count;
}

/// The mmap offset of one plane of a multi-planar buffer (the `m.mem_offset` member of the union).
static inline uint32_t pinhole_v4l2_plane_offset(const struct v4l2_plane *plane) { return plane->m.mem_offset; }

/// Fills the request of a multi-planar VIDIOC_S_FMT: pixel format, size, progressive field.
static inline void pinhole_v4l2_set_pix_mp(struct v4l2_format *format, uint32_t fourcc, uint32_t width, uint32_t height) {
    format->fmt.pix_mp.pixelformat = fourcc;
    format->fmt.pix_mp.width = width;
    format->fmt.pix_mp.height = height;
    format->fmt.pix_mp.field = V4L2_FIELD_NONE;
}

/// Reads the answer of a multi-planar VIDIOC_G_FMT/S_FMT: pixel format, size, quantization and
/// the number of memory planes (the return value, at most PINHOLE_V4L2_MAX_PLANES).
static inline uint32_t pinhole_v4l2_get_pix_mp(const struct v4l2_format *format, uint32_t *fourcc, uint32_t *width, uint32_t *height,
                                               uint32_t *quantization) {
    *fourcc = format->fmt.pix_mp.pixelformat;
    *width = format->fmt.pix_mp.width;
    *height = format->fmt.pix_mp.height;
    *quantization = format->fmt.pix_mp.quantization;
    uint32_t planes = format->fmt.pix_mp.num_planes;
    return planes > VIDEO_MAX_PLANES ? VIDEO_MAX_PLANES : planes;
}

/// The row stride and size of memory plane `index` of a multi-planar format.
static inline void pinhole_v4l2_pix_mp_plane(const struct v4l2_format *format, uint32_t index, uint32_t *bytes_per_line, uint32_t *size_image) {
    *bytes_per_line = format->fmt.pix_mp.plane_fmt[index].bytesperline;
    *size_image = format->fmt.pix_mp.plane_fmt[index].sizeimage;
}

#ifdef __cplusplus
}
#endif
#endif
