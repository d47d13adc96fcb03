/* The apps stage's count of frames an app shows (scripts/vm/apps-bench): the same count for every
 * app, from the X server rather than from the app. It asks the X Damage extension to report each
 * time WINDOW, or any window inside it, is drawn into, for SECONDS, and counts frames: a frame is
 * a run of such reports each less than GAP milliseconds (server time) after the one before, so a
 * picture put in several requests counts once and a camera's frames, 33 ms apart at 30 fps,
 * count one by one.
 *
 * It prints
 *
 *     frames <frames> reports <damage reports> windows <windows watched> seconds <seconds>
 *
 * and exits 0; 1 when WINDOW is not there or the server has no Damage extension.
 *
 * Usage: damage-count WINDOW SECONDS [GAP]   (WINDOW as xdotool prints it; GAP 5 by default;
 *                                             DISPLAY from the environment)
 *
 * scripts/vm/apps-bench compiles it:
 *     cc -O2 -o damage-count damage-count.c $(pkg-config --cflags --libs x11 xdamage xfixes)
 */
#include <X11/Xlib.h>
#include <X11/extensions/Xdamage.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <time.h>

/* Windows gone meanwhile (a popup closed) give BadWindow or BadDamage: not fatal here. */
static int ignore_errors(Display *display, XErrorEvent *event) {
    (void)display;
    (void)event;
    return 0;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Watches `window` and every window inside it; returns how many. */
static int watch(Display *display, Window window) {
    XDamageCreate(display, window, XDamageReportNonEmpty);
    int count = 1;
    Window root, parent, *children = NULL;
    unsigned int n = 0;
    if (XQueryTree(display, window, &root, &parent, &children, &n)) {
        for (unsigned int i = 0; i < n; i++) count += watch(display, children[i]);
        if (children) XFree(children);
    }
    return count;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: damage-count WINDOW SECONDS [GAP]\n");
        return 2;
    }
    Window window = (Window)strtoul(argv[1], NULL, 0);
    double seconds = atof(argv[2]);
    unsigned long gap = argc > 3 ? strtoul(argv[3], NULL, 10) : 5;
    Display *display = XOpenDisplay(NULL);
    if (!display) {
        fprintf(stderr, "damage-count: cannot open the display\n");
        return 1;
    }
    int event_base, error_base;
    if (!XDamageQueryExtension(display, &event_base, &error_base)) {
        fprintf(stderr, "damage-count: the X server has no Damage extension\n");
        return 1;
    }
    XWindowAttributes attributes;
    if (!XGetWindowAttributes(display, window, &attributes)) {
        fprintf(stderr, "damage-count: no window %s\n", argv[1]);
        return 1;
    }
    XSetErrorHandler(ignore_errors);
    int windows = watch(display, window);
    XSync(display, False);
    /* Damage already there when watching began is reported at once: not part of the count. */
    while (XPending(display)) {
        XEvent event;
        XNextEvent(display, &event);
        if (event.type == event_base + XDamageNotify) XDamageSubtract(display, ((XDamageNotifyEvent *)&event)->damage, None, None);
    }
    long frames = 0, reports = 0;
    Time last = 0;
    double end = now_seconds() + seconds;
    int fd = ConnectionNumber(display);
    while (1) {
        while (XPending(display)) {
            XEvent event;
            XNextEvent(display, &event);
            if (event.type != event_base + XDamageNotify) continue;
            XDamageNotifyEvent *damage = (XDamageNotifyEvent *)&event;
            XDamageSubtract(display, damage->damage, None, None);
            reports++;
            if (frames == 0 || damage->timestamp - last >= gap) frames++;
            last = damage->timestamp;
        }
        double left = end - now_seconds();
        if (left <= 0) break;
        fd_set readable;
        FD_ZERO(&readable);
        FD_SET(fd, &readable);
        struct timeval timeout = {(time_t)left, (suseconds_t)((left - (time_t)left) * 1e6)};
        XFlush(display);
        if (select(fd + 1, &readable, NULL, NULL, &timeout) < 0 && errno != EINTR) break;
    }
    printf("frames %ld reports %ld windows %d seconds %.3f\n", frames, reports, windows, seconds);
    XCloseDisplay(display);
    return 0;
}
