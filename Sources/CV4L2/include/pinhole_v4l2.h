// Pinhole's shim over the V4L2 kernel interface: the VIDIOC_* request numbers (function-like
// macros Swift cannot import), a non-variadic ioctl that retries on EINTR, and control access
// through the packed v4l2_ext_control structure. Everything returns 0 or -1 with errno set.
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
int pinhole_ioctl(int fd, unsigned long request, void *arg);

/// Reads the current value of a (non-compound) control; is64 for V4L2_CTRL_TYPE_INTEGER64.
int pinhole_v4l2_get_control(int fd, uint32_t id, int is64, int64_t *value);

/// Sets a (non-compound) control; is64 for V4L2_CTRL_TYPE_INTEGER64.
int pinhole_v4l2_set_control(int fd, uint32_t id, int is64, int64_t value);

/// The offset of a single-planar mmap buffer (the `m.offset` member of the union).
static inline uint32_t pinhole_v4l2_buffer_offset(const struct v4l2_buffer *buffer) { return buffer->m.offset; }

#ifdef __cplusplus
}
#endif
#endif
