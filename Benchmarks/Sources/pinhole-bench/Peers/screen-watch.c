/* The gallery stage's eye on the X screen: tells pinhole-bench when a picture carrying the
 * bench's markers is on screen, whoever drew it (the camera app's viewer or eog), by reading the
 * screen itself, as a person would see it. The bench's test photo has a magenta square at its
 * centre and a cyan band along its bottom edge; a viewer has drawn the photo when both show, at
 * least MAGENTA and CYAN samples of each (samples: every 4th pixel of every 4th row), so a
 * gallery thumbnail of the same photo (a few dozen samples) does not count, and a picture drawn
 * from the top down counts only once its bottom is there.
 *
 * It captures the whole root window (XShmGetImage, or XGetImage without MIT-SHM) every
 * INTERVAL milliseconds. It first waits until the markers are absent and prints
 *
 *     ready
 *
 * then, when a capture shows them,
 *
 *     seen <CLOCK_MONOTONIC ns when that capture returned> <ns the capture took> <captures>
 *
 * and exits 0; after TIMEOUT seconds it exits 1. The picture reached the screen between the
 * previous capture and that one: the resolution is one interval plus one capture.
 *
 * Usage: screen-watch TIMEOUT INTERVAL MAGENTA CYAN   (DISPLAY from the environment)
 *
 * With --bars it watches for vivid's colour bars instead (scripts/vm/apps-bench: whichever camera
 * app drew them): at least MIN samples each of the 75 % bars' yellow, cyan and magenta (a channel
 * at 75 % is 180–200 after each app's conversion, one at 0 stays low), so a few pixels of those
 * colours elsewhere (icons, a toolbar) do not count; mirrored or scaled bars count.
 *
 * Usage: screen-watch --bars TIMEOUT INTERVAL MIN
 *
 * pinhole-bench compiles it during the stage:
 *     cc -O2 -o screen-watch screen-watch.c $(pkg-config --cflags --libs x11 xext)
 */
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

static long long monotonic_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

/* Counts marker samples in a 32-bit ZPixmap image (0x00RRGGBB in each pixel). */
static void count_markers(XImage *image, long *magenta, long *cyan) {
    *magenta = 0;
    *cyan = 0;
    for (int y = 0; y < image->height; y += 4) {
        const unsigned int *row = (const unsigned int *)(image->data + (long)y * image->bytes_per_line);
        for (int x = 0; x < image->width; x += 4) {
            unsigned int pixel = row[x];
            int r = (pixel >> 16) & 0xFF, g = (pixel >> 8) & 0xFF, b = pixel & 0xFF;
            if (r > 200 && g < 70 && b > 200) (*magenta)++;
            else if (r < 70 && g > 200 && b > 200) (*cyan)++;
        }
    }
}

/* Counts samples of vivid's 75 % yellow, cyan and magenta bars (see --bars above). */
static void count_bars(XImage *image, long counts[3]) {
    counts[0] = counts[1] = counts[2] = 0;
    for (int y = 0; y < image->height; y += 4) {
        const unsigned int *row = (const unsigned int *)(image->data + (long)y * image->bytes_per_line);
        for (int x = 0; x < image->width; x += 4) {
            unsigned int pixel = row[x];
            int r = (pixel >> 16) & 0xFF, g = (pixel >> 8) & 0xFF, b = pixel & 0xFF;
            int hr = r > 140, hg = g > 140, hb = b > 140, lr = r < 70, lg = g < 70, lb = b < 70;
            if (hr && hg && lb) counts[0]++;
            else if (lr && hg && hb) counts[1]++;
            else if (hr && lg && hb) counts[2]++;
        }
    }
}

int main(int argc, char **argv) {
    int bars = argc == 5 && strcmp(argv[1], "--bars") == 0;
    if (bars) {
        argv++;
        argc = 5;
    } else if (argc != 5) {
        fprintf(stderr, "usage: screen-watch TIMEOUT INTERVAL-MS MAGENTA CYAN\n       screen-watch --bars TIMEOUT INTERVAL-MS MIN\n");
        return 2;
    }
    double timeout = atof(argv[1]);
    long interval_us = atol(argv[2]) * 1000L;
    long min_magenta = atol(argv[3]), min_cyan = bars ? 0 : atol(argv[4]);
    Display *display = XOpenDisplay(NULL);
    if (!display) {
        fprintf(stderr, "screen-watch: cannot open the display\n");
        return 2;
    }
    int screen = DefaultScreen(display);
    Window root = RootWindow(display, screen);
    int width = DisplayWidth(display, screen), height = DisplayHeight(display, screen);
    if (DefaultDepth(display, screen) < 24) {
        fprintf(stderr, "screen-watch: the screen is not 24-bit\n");
        return 2;
    }
    XShmSegmentInfo segment = {0};
    XImage *shared = NULL;
    if (XShmQueryExtension(display)) {
        shared = XShmCreateImage(display, DefaultVisual(display, screen), (unsigned)DefaultDepth(display, screen), ZPixmap, NULL,
                                 &segment, (unsigned)width, (unsigned)height);
        if (shared) {
            segment.shmid = shmget(IPC_PRIVATE, (size_t)shared->bytes_per_line * (size_t)shared->height, IPC_CREAT | 0600);
            segment.shmaddr = shared->data = segment.shmid >= 0 ? shmat(segment.shmid, NULL, 0) : (char *)-1;
            segment.readOnly = False;
            if (segment.shmid < 0 || segment.shmaddr == (char *)-1 || !XShmAttach(display, &segment)) {
                if (segment.shmid >= 0) shmctl(segment.shmid, IPC_RMID, NULL);
                XDestroyImage(shared);
                shared = NULL;
            } else {
                XSync(display, False);
                shmctl(segment.shmid, IPC_RMID, NULL); /* freed once both sides detach */
            }
        }
    }

    long long deadline = monotonic_ns() + (long long)(timeout * 1e9);
    int ready = 0;
    long captures = 0;
    while (monotonic_ns() < deadline) {
        long long before = monotonic_ns();
        XImage *image = shared;
        if (shared) {
            if (!XShmGetImage(display, root, shared, 0, 0, AllPlanes)) image = NULL;
        } else {
            image = XGetImage(display, root, 0, 0, (unsigned)width, (unsigned)height, AllPlanes, ZPixmap);
        }
        long long after = monotonic_ns();
        if (!image || image->bits_per_pixel != 32) {
            fprintf(stderr, "screen-watch: cannot read the screen\n");
            return 2;
        }
        captures++;
        int present;
        if (bars) {
            long counts[3];
            count_bars(image, counts);
            present = counts[0] >= min_magenta && counts[1] >= min_magenta && counts[2] >= min_magenta;
        } else {
            long magenta, cyan;
            count_markers(image, &magenta, &cyan);
            present = magenta >= min_magenta && cyan >= min_cyan;
        }
        if (!shared) XDestroyImage(image);
        if (!ready && !present) {
            ready = 1;
            printf("ready\n");
            fflush(stdout);
        } else if (ready && present) {
            printf("seen %lld %lld %ld\n", after, after - before, captures);
            fflush(stdout);
            return 0;
        }
        usleep((useconds_t)interval_us);
    }
    fprintf(stderr, "screen-watch: %s in %.0f s\n", ready ? "no marked picture appeared" : "the marked picture never left the screen", timeout);
    return 1;
}
