// See include/pinhole_v4l2.h.
#include "pinhole_v4l2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const unsigned long PINHOLE_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
const unsigned long PINHOLE_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
const unsigned long PINHOLE_VIDIOC_G_FMT = VIDIOC_G_FMT;
const unsigned long PINHOLE_VIDIOC_S_FMT = VIDIOC_S_FMT;
const unsigned long PINHOLE_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
const unsigned long PINHOLE_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
const unsigned long PINHOLE_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
const unsigned long PINHOLE_VIDIOC_QBUF = VIDIOC_QBUF;
const unsigned long PINHOLE_VIDIOC_DQBUF = VIDIOC_DQBUF;
const unsigned long PINHOLE_VIDIOC_STREAMON = VIDIOC_STREAMON;
const unsigned long PINHOLE_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
const unsigned long PINHOLE_VIDIOC_G_PARM = VIDIOC_G_PARM;
const unsigned long PINHOLE_VIDIOC_S_PARM = VIDIOC_S_PARM;
const unsigned long PINHOLE_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
const unsigned long PINHOLE_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
const unsigned long PINHOLE_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
const unsigned long PINHOLE_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
const unsigned long PINHOLE_VIDIOC_SUBSCRIBE_EVENT = VIDIOC_SUBSCRIBE_EVENT;
const unsigned long PINHOLE_VIDIOC_UNSUBSCRIBE_EVENT = VIDIOC_UNSUBSCRIBE_EVENT;
const unsigned long PINHOLE_VIDIOC_DQEVENT = VIDIOC_DQEVENT;
const unsigned long PINHOLE_VIDIOC_G_INPUT = VIDIOC_G_INPUT;
const unsigned long PINHOLE_VIDIOC_S_INPUT = VIDIOC_S_INPUT;

/// The name of a V4L2 request, for the debug log.
static const char *request_name(unsigned long request) {
    switch (request) {
    case VIDIOC_QUERYCAP: return "VIDIOC_QUERYCAP";
    case VIDIOC_ENUM_FMT: return "VIDIOC_ENUM_FMT";
    case VIDIOC_G_FMT: return "VIDIOC_G_FMT";
    case VIDIOC_S_FMT: return "VIDIOC_S_FMT";
    case VIDIOC_TRY_FMT: return "VIDIOC_TRY_FMT";
    case VIDIOC_REQBUFS: return "VIDIOC_REQBUFS";
    case VIDIOC_QUERYBUF: return "VIDIOC_QUERYBUF";
    case VIDIOC_QBUF: return "VIDIOC_QBUF";
    case VIDIOC_DQBUF: return "VIDIOC_DQBUF";
    case VIDIOC_STREAMON: return "VIDIOC_STREAMON";
    case VIDIOC_STREAMOFF: return "VIDIOC_STREAMOFF";
    case VIDIOC_G_PARM: return "VIDIOC_G_PARM";
    case VIDIOC_S_PARM: return "VIDIOC_S_PARM";
    case VIDIOC_ENUM_FRAMESIZES: return "VIDIOC_ENUM_FRAMESIZES";
    case VIDIOC_ENUM_FRAMEINTERVALS: return "VIDIOC_ENUM_FRAMEINTERVALS";
    case VIDIOC_QUERY_EXT_CTRL: return "VIDIOC_QUERY_EXT_CTRL";
    case VIDIOC_QUERYMENU: return "VIDIOC_QUERYMENU";
    case VIDIOC_G_EXT_CTRLS: return "VIDIOC_G_EXT_CTRLS";
    case VIDIOC_S_EXT_CTRLS: return "VIDIOC_S_EXT_CTRLS";
    case VIDIOC_SUBSCRIBE_EVENT: return "VIDIOC_SUBSCRIBE_EVENT";
    case VIDIOC_UNSUBSCRIBE_EVENT: return "VIDIOC_UNSUBSCRIBE_EVENT";
    case VIDIOC_DQEVENT: return "VIDIOC_DQEVENT";
    case VIDIOC_G_INPUT: return "VIDIOC_G_INPUT";
    case VIDIOC_S_INPUT: return "VIDIOC_S_INPUT";
    default: return "VIDIOC_?";
    }
}

/// Whether PINHOLE_DEBUG names "v4l2" (read once: -1 unknown, 0 no, 1 yes).
static int debug_v4l2 = -1;

int pinhole_ioctl(int fd, unsigned long request, void *arg) {
    int result;
    do {
        result = ioctl(fd, request, arg);
    } while (result == -1 && errno == EINTR);
    int debug = __atomic_load_n(&debug_v4l2, __ATOMIC_RELAXED);
    if (debug < 0) {
        const char *value = getenv("PINHOLE_DEBUG");
        debug = value != NULL && strstr(value, "v4l2") != NULL;
        __atomic_store_n(&debug_v4l2, debug, __ATOMIC_RELAXED);
    }
    if (debug) {
        // One line per call, with the node the descriptor is open on: what a camera was asked.
        int saved = errno;
        char link[32], node[256];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t length = readlink(link, node, sizeof node - 1);
        node[length > 0 ? length : 0] = 0;
        fprintf(stderr, "pinhole v4l2: %s %s %s\n", node, request_name(request), result == 0 ? "ok" : strerror(saved));
        errno = saved;
    }
    return result;
}

int pinhole_v4l2_get_control(int fd, uint32_t id, int is64, int64_t *value) {
    struct v4l2_ext_control control;
    struct v4l2_ext_controls controls;
    memset(&control, 0, sizeof control);
    memset(&controls, 0, sizeof controls);
    control.id = id;
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    if (pinhole_ioctl(fd, VIDIOC_G_EXT_CTRLS, &controls) == -1) return -1;
    *value = is64 ? control.value64 : control.value;
    return 0;
}

int pinhole_v4l2_set_control(int fd, uint32_t id, int is64, int64_t value) {
    struct v4l2_ext_control control;
    struct v4l2_ext_controls controls;
    memset(&control, 0, sizeof control);
    memset(&controls, 0, sizeof controls);
    control.id = id;
    if (is64) {
        control.value64 = value;
    } else {
        control.value = (int32_t)value;
    }
    controls.which = V4L2_CTRL_WHICH_CUR_VAL;
    controls.count = 1;
    controls.controls = &control;
    return pinhole_ioctl(fd, VIDIOC_S_EXT_CTRLS, &controls);
}
