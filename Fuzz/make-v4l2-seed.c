// Writes the `v4l2` fuzz target's seed to standard output: the answers a small USB camera's
// driver gives, in the order Pinhole asks (DeviceScanner.describe, then V4L2Backend's
// controls, configure and start), in ScriptedDriver's form: for each ioctl a verdict byte
// (its low three bits 0 or 1: fail; its top bit: keep the caller's first eight bytes), then the
// argument's bytes. Built and run by Fuzz/make-seeds.
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/videodev2.h>

/// Writes one successful answer: `size` bytes of `answer` (after the first eight when `keep`).
static void answer(const void *answer, size_t size, int keep) {
    putchar(keep ? 0x82 : 0x02);
    fwrite((const char *)answer + (keep ? 8 : 0), 1, size - (keep ? 8 : 0), stdout);
}

/// Writes one failure (EINVAL: the end of an enumeration).
static void fail(void) { putchar(0x00); }

static void capabilities(void) {
    struct v4l2_capability caps = {0};
    strcpy((char *)caps.driver, "uvcvideo");
    strcpy((char *)caps.card, "Fuzz Camera");
    strcpy((char *)caps.bus_info, "usb-0000:00:14.0-1");
    caps.capabilities = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING | V4L2_CAP_DEVICE_CAPS;
    caps.device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
    answer(&caps, sizeof caps, 0);
}

static void controls(void) {
    struct v4l2_query_ext_ctrl brightness = {.id = V4L2_CID_BRIGHTNESS, .type = V4L2_CTRL_TYPE_INTEGER, .minimum = 0,
                                             .maximum = 255, .step = 1, .default_value = 128, .elem_size = 4, .elems = 1};
    strcpy(brightness.name, "Brightness");
    answer(&brightness, sizeof brightness, 0);
    struct v4l2_query_ext_ctrl power = {.id = V4L2_CID_POWER_LINE_FREQUENCY, .type = V4L2_CTRL_TYPE_MENU, .minimum = 0,
                                        .maximum = 2, .step = 1, .default_value = 1, .elem_size = 4, .elems = 1};
    strcpy(power.name, "Power Line Frequency");
    answer(&power, sizeof power, 0);
    const char *items[] = {"Disabled", "50 Hz", "60 Hz"};
    for (unsigned index = 0; index < 3; index++) {
        struct v4l2_querymenu item = {.id = V4L2_CID_POWER_LINE_FREQUENCY, .index = index};
        strcpy((char *)item.name, items[index]);
        answer(&item, sizeof item, 1);
    }
    fail();
}

static void intervals(unsigned count) {
    for (unsigned index = 0; index < count; index++) {
        struct v4l2_frmivalenum interval = {.index = index, .type = V4L2_FRMIVAL_TYPE_DISCRETE,
                                            .discrete = {.numerator = 1, .denominator = index == 0 ? 30 : 15}};
        answer(&interval, sizeof interval, 1);
    }
    fail();
}

int main(void) {
    // DeviceScanner.describe: capabilities, formats, sizes, rates, controls.
    capabilities();
    struct v4l2_fmtdesc yuyv = {.index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .pixelformat = V4L2_PIX_FMT_YUYV};
    strcpy((char *)yuyv.description, "YUYV 4:2:2");
    answer(&yuyv, sizeof yuyv, 1);
    struct v4l2_fmtdesc mjpeg = {.index = 1, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .flags = V4L2_FMT_FLAG_COMPRESSED,
                                 .pixelformat = V4L2_PIX_FMT_MJPEG};
    strcpy((char *)mjpeg.description, "Motion-JPEG");
    answer(&mjpeg, sizeof mjpeg, 1);
    fail();
    struct v4l2_frmsizeenum discrete = {.index = 0, .pixel_format = V4L2_PIX_FMT_YUYV, .type = V4L2_FRMSIZE_TYPE_DISCRETE,
                                        .discrete = {.width = 640, .height = 480}};
    answer(&discrete, sizeof discrete, 1);
    struct v4l2_frmsizeenum stepwise = {.index = 1, .pixel_format = V4L2_PIX_FMT_YUYV, .type = V4L2_FRMSIZE_TYPE_STEPWISE,
                                        .stepwise = {.min_width = 160, .max_width = 1280, .step_width = 16,
                                                     .min_height = 120, .max_height = 720, .step_height = 8}};
    answer(&stepwise, sizeof stepwise, 1);
    // 640×480, then the stepwise range's 320×240, 640×480 and 1280×720.
    for (int size = 0; size < 4; size++) intervals(2);
    struct v4l2_frmsizeenum hd = {.index = 0, .pixel_format = V4L2_PIX_FMT_MJPEG, .type = V4L2_FRMSIZE_TYPE_DISCRETE,
                                  .discrete = {.width = 1280, .height = 720}};
    answer(&hd, sizeof hd, 1);
    fail();
    intervals(1);
    controls();
    // V4L2Backend: capabilities and controls again, then configure (S_FMT, G_PARM, S_PARM,
    // G_PARM) and start (REQBUFS, QUERYBUF; mapping /dev/null then fails).
    capabilities();
    controls();
    struct v4l2_format format = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    format.fmt.pix = (struct v4l2_pix_format){.width = 640, .height = 480, .pixelformat = V4L2_PIX_FMT_YUYV, .field = V4L2_FIELD_NONE,
                                              .bytesperline = 1280, .sizeimage = 614400};
    answer(&format, sizeof format, 0);
    struct v4l2_streamparm parameters = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    parameters.parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
    parameters.parm.capture.timeperframe = (struct v4l2_fract){.numerator = 1, .denominator = 30};
    for (int step = 0; step < 3; step++) answer(&parameters, sizeof parameters, 0);
    struct v4l2_requestbuffers request = {.count = 4, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP};
    answer(&request, sizeof request, 0);
    struct v4l2_buffer buffer = {.index = 0, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP, .length = 614400};
    answer(&buffer, sizeof buffer, 0);
    return 0;
}
