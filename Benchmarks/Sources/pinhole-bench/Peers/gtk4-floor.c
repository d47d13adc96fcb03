/* The toolkit's floor for the app stage of pinhole-bench: the least a GTK 4 program does to put
 * one camera-sized picture on screen. It opens a 960×720 window (the camera app's default size)
 * holding a GtkPicture (content fit: contain, as the app's preview) of a 1920×1080 BGRA
 * GdkMemoryTexture, and prints to standard error, as the app does with PINHOLE_BENCH_REPORT=1,
 *
 *     pinhole-bench: first-frame <CLOCK_MONOTONIC nanoseconds>
 *
 * from the frame clock's "after-paint" of the first frame painted with the picture mapped. It
 * then idles until it is sent SIGTERM. It is a GtkApplication with an ID of its own, so that it
 * registers on the session bus as the app does.
 *
 * pinhole-bench compiles it during the stage:
 *     cc -O2 -o gtk4-floor gtk4-floor.c $(pkg-config --cflags --libs gtk4)
 */
#include <gtk/gtk.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { WIDTH = 1920, HEIGHT = 1080 };

static GtkWidget *picture;
static gboolean reported;

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static void after_paint(GdkFrameClock *clock, gpointer data) {
    (void)data;
    if (reported || !gtk_widget_get_mapped(picture)) return;
    reported = TRUE;
    char line[64];
    int length = snprintf(line, sizeof line, "pinhole-bench: first-frame %lld\n", monotonic_ns());
    if (write(STDERR_FILENO, line, (size_t)length) < 0) { /* nothing to do */ }
    g_signal_handlers_disconnect_by_func(clock, after_paint, data);
}

static void realized(GtkWidget *window, gpointer data) {
    (void)data;
    g_signal_connect(gtk_widget_get_frame_clock(window), "after-paint", G_CALLBACK(after_paint), NULL);
}

/* A BGRA test picture, colour bars, like a camera frame's bytes: one row computed, then copied. */
static GdkTexture *camera_sized_texture(void) {
    gsize stride = WIDTH * 4;
    guint8 *pixels = g_malloc(stride * HEIGHT);
    static const guint8 bars[8][3] = {
        {255, 255, 255}, {0, 255, 255}, {255, 255, 0}, {0, 255, 0}, {255, 0, 255}, {0, 0, 255}, {255, 0, 0}, {0, 0, 0}};
    for (int x = 0; x < WIDTH; x++) {
        const guint8 *bar = bars[x * 8 / WIDTH];
        pixels[4 * x + 0] = bar[2];
        pixels[4 * x + 1] = bar[1];
        pixels[4 * x + 2] = bar[0];
        pixels[4 * x + 3] = 255;
    }
    for (int y = 1; y < HEIGHT; y++) memcpy(pixels + (gsize)y * stride, pixels, stride);
    GBytes *bytes = g_bytes_new_take(pixels, stride * HEIGHT);
    GdkTexture *texture = gdk_memory_texture_new(WIDTH, HEIGHT, GDK_MEMORY_B8G8R8A8_PREMULTIPLIED, bytes, stride);
    g_bytes_unref(bytes);
    return texture;
}

static void activate(GtkApplication *app, gpointer data) {
    (void)data;
    GtkWidget *window = gtk_application_window_new(app);
    gtk_window_set_title(GTK_WINDOW(window), "GTK 4 floor");
    gtk_window_set_default_size(GTK_WINDOW(window), 960, 720);
    GdkTexture *texture = camera_sized_texture();
    picture = gtk_picture_new_for_paintable(GDK_PAINTABLE(texture));
    g_object_unref(texture);
    gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_CONTAIN);
    gtk_window_set_child(GTK_WINDOW(window), picture);
    g_signal_connect(window, "realize", G_CALLBACK(realized), NULL);
    gtk_window_present(GTK_WINDOW(window));
}

int main(int argc, char **argv) {
    GtkApplication *app = gtk_application_new("io.github.pinhole.BenchFloor", G_APPLICATION_DEFAULT_FLAGS);
    g_signal_connect(app, "activate", G_CALLBACK(activate), NULL);
    int status = g_application_run(G_APPLICATION(app), argc, argv);
    g_object_unref(app);
    return status;
}
