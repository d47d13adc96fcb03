// See include/pinhole_v4l2.h.
#include "pinhole_v4l2.h"

#include <errno.h>
#include <string.h>

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

int pinhole_ioctl(int fd, unsigned long request, void *arg) {
    int result;
    do {
        result = ioctl(fd, request, arg);
    } while (result == -1 && errno == EINTR);
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
