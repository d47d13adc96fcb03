/* The toolkit's floor for the apps stage (scripts/vm/apps-bench): the least a GTK 4 program does
 * to show a V4L2 camera, set beside guvcview (SDL, no toolkit) so that the table shows what a
 * toolkit costs. It opens the camera (YUYV at WIDTHxHEIGHT, at the rate asked), maps 4 buffers,
 * and on the main loop, whenever a frame is ready, converts it to BGRA with libyuv, makes it a
 * GdkMemoryTexture and hands it to a GtkPicture (content fit: contain, as Pinhole's preview) in
 * a window of its own: no threads, no pooled buffers, no controls. It runs until SIGTERM, then
 * prints to standard error
 *
 *     gtk4-camera-floor: frames <camera frames> shown <frames painted with a new picture>
 *
 * Usage: gtk4-camera-floor DEVICE WIDTHxHEIGHT FPS
 *
 * scripts/vm/apps-bench compiles it:
 *     cc -O2 -o gtk4-camera-floor gtk4-camera-floor.c $(pkg-config --cflags --libs gtk4) -lyuv
 */
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <gtk/gtk.h>
#include <libyuv/convert_argb.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

enum { BUFFERS = 4 };

static int camera = -1;
static void *mapped[BUFFERS];
static size_t lengths[BUFFERS];
static int width, height, stride;
static GtkWidget *picture;
static long frames, shown;
static gboolean fresh;

static int xioctl(int fd, unsigned long request, void *argument) {
    int result;
    do result = ioctl(fd, request, argument);
    while (result < 0 && errno == EINTR);
    return result;
}

static void fail(const char *what) {
    fprintf(stderr, "gtk4-camera-floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* Opens DEVICE at the size and rate asked, maps its buffers and starts streaming. */
static void open_camera(const char *device, int fps) {
    camera = open(device, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (camera < 0) fail(device);
    struct v4l2_format format = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    format.fmt.pix.width = (unsigned)width;
    format.fmt.pix.height = (unsigned)height;
    format.fmt.pix.pixelformat = V4L2_PIX_FMT_YUYV;
    format.fmt.pix.field = V4L2_FIELD_NONE;
    if (xioctl(camera, VIDIOC_S_FMT, &format) < 0) fail("VIDIOC_S_FMT");
    width = (int)format.fmt.pix.width;
    height = (int)format.fmt.pix.height;
    stride = (int)format.fmt.pix.bytesperline;
    struct v4l2_streamparm parm = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    parm.parm.capture.timeperframe.numerator = 1;
    parm.parm.capture.timeperframe.denominator = (unsigned)fps;
    xioctl(camera, VIDIOC_S_PARM, &parm);
    struct v4l2_requestbuffers request = {.count = BUFFERS, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP};
    if (xioctl(camera, VIDIOC_REQBUFS, &request) < 0 || request.count < BUFFERS) fail("VIDIOC_REQBUFS");
    for (unsigned i = 0; i < BUFFERS; i++) {
        struct v4l2_buffer buffer = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP, .index = i};
        if (xioctl(camera, VIDIOC_QUERYBUF, &buffer) < 0) fail("VIDIOC_QUERYBUF");
        lengths[i] = buffer.length;
        mapped[i] = mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, camera, buffer.m.offset);
        if (mapped[i] == MAP_FAILED) fail("mmap");
        if (xioctl(camera, VIDIOC_QBUF, &buffer) < 0) fail("VIDIOC_QBUF");
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(camera, VIDIOC_STREAMON, &type) < 0) fail("VIDIOC_STREAMON");
}

/* A frame is ready: the newest one becomes the picture. */
static gboolean frame_ready(gint fd, GIOCondition condition, gpointer data) {
    (void)condition;
    (void)data;
    struct v4l2_buffer buffer = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_MMAP};
    if (xioctl(fd, VIDIOC_DQBUF, &buffer) < 0) return errno == EAGAIN ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
    frames++;
    gsize size = (gsize)width * 4 * (gsize)height;
    guint8 *pixels = g_malloc(size);
    YUY2ToARGB(mapped[buffer.index], stride, pixels, width * 4, width, height);
    xioctl(fd, VIDIOC_QBUF, &buffer);
    GBytes *bytes = g_bytes_new_take(pixels, size);
    GdkTexture *texture = gdk_memory_texture_new(width, height, GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, bytes, (gsize)width * 4);
    g_bytes_unref(bytes);
    gtk_picture_set_paintable(GTK_PICTURE(picture), GDK_PAINTABLE(texture));
    g_object_unref(texture);
    fresh = TRUE;
    return G_SOURCE_CONTINUE;
}

/* Counts the frames painted with a picture not painted before. */
static void after_paint(GdkFrameClock *clock, gpointer data) {
    (void)clock;
    (void)data;
    if (fresh) shown++;
    fresh = FALSE;
}

static void realized(GtkWidget *window, gpointer data) {
    (void)data;
    g_signal_connect(gtk_widget_get_frame_clock(window), "after-paint", G_CALLBACK(after_paint), NULL);
}

static gboolean terminate(gpointer data) {
    fprintf(stderr, "gtk4-camera-floor: frames %ld shown %ld\n", frames, shown);
    g_application_quit(G_APPLICATION(data));
    return G_SOURCE_REMOVE;
}

static void activate(GtkApplication *app, gpointer data) {
    (void)data;
    GtkWidget *window = gtk_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "GTK 4 camera floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 720);
    picture = gtk_picture_new();
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_CONTAIN);
    gtk_window_set_child(GTK_WINDOW(window), picture);
    g_signal_connect(window, "realize", G_CALLBACK(realized), NULL);
    g_unix_fd_add(camera, G_IO_IN, frame_ready, NULL);
    gtk_window_present(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
    if (argc != 4 || sscanf(argv[2], "%dx%d", &width, &height) != 2) {
        fprintf(stderr, "usage: gtk4-camera-floor DEVICE WIDTHxHEIGHT FPS\n");
        return 2;
    }
    open_camera(argv[1], atoi(argv[3]));
    GtkApplication *app = gtk_application_new("io.github.pinhole.CameraFloor", G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "activate", G_CALLBACK(activate), NULL);
    g_unix_signal_add(SIGTERM, terminate, app);
    char *args[] = {argv[0], NULL};
    int status = g_application_run(G_APPLICATION(app), 1, args);
    g_object_unref(app);
    return status;
}
