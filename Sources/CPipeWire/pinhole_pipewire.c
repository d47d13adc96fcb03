// libpipewire through dlopen, and the SPA/PipeWire macros Swift cannot import (see the header).
#include "pinhole_pipewire.h"
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/dma-buf.h>
#include <time.h>
#include <unistd.h>

#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/buffers.h>
#include <spa/buffer/meta.h>
#include <spa/utils/result.h>

// The libpipewire functions the shim calls. The headers' inline functions and macros call only
// pw_proxy_* among these by name; every other call goes through `pw.name`.
#define PINHOLE_PW_FUNCTIONS(X) \
    X(pw_init) X(pw_get_library_version) X(pw_thread_loop_new) X(pw_thread_loop_get_loop) X(pw_thread_loop_start) \
    X(pw_thread_loop_stop) X(pw_thread_loop_destroy) X(pw_thread_loop_lock) X(pw_thread_loop_unlock) \
    X(pw_thread_loop_signal) X(pw_thread_loop_timed_wait_full) X(pw_thread_loop_get_time) X(pw_context_new) \
    X(pw_context_destroy) X(pw_context_connect) X(pw_context_connect_fd) X(pw_core_disconnect) X(pw_proxy_destroy) X(pw_proxy_add_listener) \
    X(pw_properties_new) X(pw_stream_new) X(pw_stream_destroy) X(pw_stream_connect) X(pw_stream_disconnect) \
    X(pw_stream_add_listener) X(pw_stream_dequeue_buffer) X(pw_stream_queue_buffer) X(pw_stream_update_params)

#define PINHOLE_PW_FIELD(name) __typeof__(name) *name;
static struct { PINHOLE_PW_FUNCTIONS(PINHOLE_PW_FIELD) } pw;
#undef PINHOLE_PW_FIELD

const struct pinhole_pw_library *pinhole_pw_load(char *error, size_t size) {
    static struct pinhole_pw_library library;
    void *handle = dlopen("libpipewire-0.3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(error, size, "%s", reason ? reason : "libpipewire-0.3.so.0");
        return NULL;
    }
#define PINHOLE_FIND(name) \
    if (!(*(void **)&pw.name = dlsym(handle, #name))) { \
        snprintf(error, size, "libpipewire-0.3.so.0 has no %s", #name); \
        return NULL; \
    }
    PINHOLE_PW_FUNCTIONS(PINHOLE_FIND)
#undef PINHOLE_FIND
    pw.pw_init(NULL, NULL);
    snprintf(library.version, sizeof library.version, "%s", pw.pw_get_library_version());
    return &library;
}

// --- Formats ---------------------------------------------------------------------------------

/// A V4L2 four-character code.
#define FOURCC(a, b, c, d) ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/// SPA's raw video formats Pinhole reads, with their V4L2 codes (Media's PixelFormat speaks V4L2).
/// The code comes first: the table's printable codes must not run into the soname's string in the
/// object, where scripts/package reads the sonames for Depends.
static const struct { uint32_t fourcc, spa; } raw_formats[] = {
    {FOURCC('Y', 'U', 'Y', 'V'), SPA_VIDEO_FORMAT_YUY2}, {FOURCC('U', 'Y', 'V', 'Y'), SPA_VIDEO_FORMAT_UYVY},
    {FOURCC('N', 'V', '1', '2'), SPA_VIDEO_FORMAT_NV12}, {FOURCC('N', 'V', '2', '1'), SPA_VIDEO_FORMAT_NV21},
    {FOURCC('Y', 'U', '1', '2'), SPA_VIDEO_FORMAT_I420}, {FOURCC('Y', 'V', '1', '2'), SPA_VIDEO_FORMAT_YV12},
    {FOURCC('4', '2', '2', 'P'), SPA_VIDEO_FORMAT_Y42B}, {FOURCC('4', '4', '4', 'P'), SPA_VIDEO_FORMAT_Y444},
    {FOURCC('G', 'R', 'E', 'Y'), SPA_VIDEO_FORMAT_GRAY8}, {FOURCC('R', 'G', 'B', '3'), SPA_VIDEO_FORMAT_RGB},
    {FOURCC('B', 'G', 'R', '3'), SPA_VIDEO_FORMAT_BGR}, {FOURCC('A', 'R', '2', '4'), SPA_VIDEO_FORMAT_BGRA},
    {FOURCC('X', 'R', '2', '4'), SPA_VIDEO_FORMAT_BGRx}, {FOURCC('A', 'B', '2', '4'), SPA_VIDEO_FORMAT_RGBA},
};
/// MJPEG's V4L2 code (SPA has a media subtype for it, not a video format).
static const uint32_t mjpeg_fourcc = FOURCC('M', 'J', 'P', 'G');

/// The V4L2 code of SPA video format `spa` (0: one Pinhole does not read).
static uint32_t fourcc_of(uint32_t spa) {
    for (size_t i = 0; i < SPA_N_ELEMENTS(raw_formats); i++)
        if (raw_formats[i].spa == spa) return raw_formats[i].fourcc;
    return 0;
}

/// The SPA video format of V4L2 code `fourcc` (SPA_VIDEO_FORMAT_UNKNOWN: none).
static uint32_t spa_of(uint32_t fourcc) {
    for (size_t i = 0; i < SPA_N_ELEMENTS(raw_formats); i++)
        if (raw_formats[i].fourcc == fourcc) return raw_formats[i].spa;
    return SPA_VIDEO_FORMAT_UNKNOWN;
}

/// The values a property offers: the one value, an enumeration's alternatives (skipping its
/// default, which SPA repeats among them), or a range's or step's bounds (`*range` set).
static const void *offered(const struct spa_pod *pod, uint32_t *count, uint32_t *child_size, bool *range) {
    uint32_t n = 0, choice = SPA_CHOICE_None;
    struct spa_pod *values = spa_pod_get_values(pod, &n, &choice);
    *child_size = SPA_POD_BODY_SIZE(values);
    const uint8_t *body = SPA_POD_BODY(values);
    *range = false;
    if (n == 0) { *count = 0; return NULL; }
    switch (choice) {
    case SPA_CHOICE_None: *count = 1; return body;
    case SPA_CHOICE_Enum: if (n > 1) { *count = n - 1; return body + *child_size; } *count = 1; return body;
    case SPA_CHOICE_Range: case SPA_CHOICE_Step:
        *range = true;
        if (n < 3) { *count = 1; return body; }
        *count = 2;  // min, max
        return body + *child_size;
    default: *count = 0; return NULL;
    }
}

/// A camera node and what the shim knows about it.
struct camera {
    struct pinhole_pw_monitor *monitor;
    uint32_t id;
    uint64_t serial;
    char *name, *description, *v4l2_path, *location, *vendor;
    struct pw_proxy *proxy;
    struct spa_hook listener;
    struct pinhole_pw_format *formats;
    uint32_t format_count, format_capacity;
    /// The core sync whose answer marks the formats as read (0: read).
    int pending_sync;
    bool ready;
};

/// Adds one size of one layout with its rates (rates of 0 dropped, repeats kept once).
static void add_format(struct camera *camera, uint32_t fourcc, uint32_t width, uint32_t height, const struct spa_fraction *rates, uint32_t rate_count) {
    if (fourcc == 0 || width == 0 || height == 0) return;
    for (uint32_t i = 0; i < camera->format_count; i++) {
        struct pinhole_pw_format *f = &camera->formats[i];
        if (f->fourcc == fourcc && f->width == width && f->height == height) return;
    }
    if (camera->format_count == camera->format_capacity) {
        uint32_t capacity = camera->format_capacity ? camera->format_capacity * 2 : 16;
        void *grown = realloc(camera->formats, capacity * sizeof *camera->formats);
        if (!grown) return;
        camera->formats = grown;
        camera->format_capacity = capacity;
    }
    struct pinhole_pw_format *f = &camera->formats[camera->format_count++];
    memset(f, 0, sizeof *f);
    f->fourcc = fourcc;
    f->width = width;
    f->height = height;
    for (uint32_t i = 0; i < rate_count && f->rate_count < PINHOLE_PW_MAX_RATES; i++) {
        if (rates[i].num == 0 || rates[i].denom == 0) continue;
        bool seen = false;
        for (uint32_t j = 0; j < f->rate_count; j++)
            if ((uint64_t)f->rate_num[j] * rates[i].denom == (uint64_t)rates[i].num * f->rate_denom[j]) seen = true;
        if (seen) continue;
        f->rate_num[f->rate_count] = rates[i].num;
        f->rate_denom[f->rate_count] = rates[i].denom;
        f->rate_count++;
    }
}

/// Reads one EnumFormat param into `camera`'s formats: each pixel layout × each size, with the
/// rates. Ranges give the common sizes and rates inside them, and their bounds.
static void read_enum_format(struct camera *camera, const struct spa_pod *param) {
    uint32_t media_type = 0, media_subtype = 0;
    if (spa_format_parse(param, &media_type, &media_subtype) < 0 || media_type != SPA_MEDIA_TYPE_video) return;
    if (media_subtype != SPA_MEDIA_SUBTYPE_raw && media_subtype != SPA_MEDIA_SUBTYPE_mjpg) return;
    const struct spa_pod_object *object = (const struct spa_pod_object *)param;
    const struct spa_pod_prop *format_prop = spa_pod_object_find_prop(object, NULL, SPA_FORMAT_VIDEO_format);
    const struct spa_pod_prop *size_prop = spa_pod_object_find_prop(object, NULL, SPA_FORMAT_VIDEO_size);
    const struct spa_pod_prop *rate_prop = spa_pod_object_find_prop(object, NULL, SPA_FORMAT_VIDEO_framerate);
    if (!size_prop) return;

    uint32_t fourccs[64], fourcc_count = 0;
    if (media_subtype == SPA_MEDIA_SUBTYPE_mjpg) {
        fourccs[fourcc_count++] = mjpeg_fourcc;
    } else {
        if (!format_prop) return;
        uint32_t count, child; bool range;
        const uint32_t *ids = offered(&format_prop->value, &count, &child, &range);
        if (!ids || child != sizeof(uint32_t) || range) return;
        for (uint32_t i = 0; i < count && fourcc_count < SPA_N_ELEMENTS(fourccs); i++) {
            uint32_t code = fourcc_of(ids[i]);
            if (code) fourccs[fourcc_count++] = code;
        }
    }

    struct spa_rectangle sizes[64]; uint32_t size_count = 0;
    {
        uint32_t count, child; bool range;
        const struct spa_rectangle *values = offered(&size_prop->value, &count, &child, &range);
        if (!values || child != sizeof(struct spa_rectangle)) return;
        if (range && count == 2) {
            static const struct spa_rectangle common[] = {{320, 240}, {640, 480}, {1280, 720}, {1920, 1080}, {2560, 1440}, {3840, 2160}};
            for (size_t i = 0; i < SPA_N_ELEMENTS(common); i++)
                if (common[i].width >= values[0].width && common[i].width <= values[1].width &&
                    common[i].height >= values[0].height && common[i].height <= values[1].height)
                    sizes[size_count++] = common[i];
            sizes[size_count++] = values[1];
        } else {
            for (uint32_t i = 0; i < count && size_count < SPA_N_ELEMENTS(sizes); i++) sizes[size_count++] = values[i];
        }
    }

    struct spa_fraction rates[PINHOLE_PW_MAX_RATES]; uint32_t rate_count = 0;
    if (rate_prop) {
        uint32_t count, child; bool range;
        const struct spa_fraction *values = offered(&rate_prop->value, &count, &child, &range);
        if (values && child == sizeof(struct spa_fraction)) {
            if (range && count == 2) {
                // The maximum, then the usual rates below it down to the minimum.
                static const uint32_t usual[] = {60, 30, 25, 24, 20, 15, 10, 5, 1};
                rates[rate_count++] = values[1];
                for (size_t i = 0; i < SPA_N_ELEMENTS(usual) && rate_count < PINHOLE_PW_MAX_RATES; i++) {
                    uint64_t fps_num = usual[i];  // usual[i]/1 within [min, max]
                    if (fps_num * values[1].denom <= values[1].num && fps_num * values[0].denom >= values[0].num)
                        rates[rate_count++] = (struct spa_fraction){usual[i], 1};
                }
            } else {
                for (uint32_t i = 0; i < count && rate_count < PINHOLE_PW_MAX_RATES; i++) rates[rate_count++] = values[i];
            }
        }
    }
    for (uint32_t f = 0; f < fourcc_count; f++)
        for (uint32_t s = 0; s < size_count; s++) add_format(camera, fourccs[f], sizes[s].width, sizes[s].height, rates, rate_count);
}

// --- Monitor ---------------------------------------------------------------------------------

/// The most camera nodes and streams a monitor keeps.
#define MAX_CAMERAS 32
#define MAX_STREAMS 8

/// The connection, its thread loop, the camera nodes read so far and the streams on it.
struct pinhole_pw_monitor {
    struct pw_thread_loop *loop;
    struct pw_context *context;
    struct pw_core *core;
    struct pw_registry *registry;
    struct spa_hook core_listener, registry_listener;
    struct camera *cameras[MAX_CAMERAS];
    struct pinhole_pw_stream *streams[MAX_STREAMS];
    uint64_t generation;
    int initial_sync;
    bool initialized;
    bool dead;
    int error;
    char message[256];
};

/// A stream: what it asked for, how far it got, the frame waiting for a handler, and the handler.
struct pinhole_pw_stream {
    struct pinhole_pw_monitor *monitor;
    struct pw_stream *stream;
    struct spa_hook listener;
    uint64_t serial;
    /// Written when the stream's state changes (failed, gone) or a handler asks to stop.
    int event_fd;
    uint32_t want_fourcc, want_width, want_height;
    /// Only DMA-BUF buffers asked for (else shared memory first, DMA-BUF as well).
    bool dmabuf_only;
    bool negotiated, mismatch, streaming, failed, gone;
    char error[256];
    /// Guards `waiting`, the handler and every dequeue and queue of a buffer: `process` runs on
    /// PipeWire's data thread (PW_STREAM_FLAG_RT_PROCESS) and calls the handler there, holding
    /// this lock; `pinhole_pw_stream_deliver` sets and clears the handler from the streaming
    /// thread, and the loop's thread forgets removed buffers. Taken after the loop's lock where
    /// both are held, never before.
    pthread_mutex_t buffers_lock;
    /// The newest frame that came while no handler was set (given to the next one).
    struct pw_buffer *waiting;
    pinhole_pw_frame_handler handler;
    void *handler_context;
    uint32_t buffer_count;
};

/// Marks the streams from node `serial` (or every stream, with `all`) as gone and wakes their waiters.
static void wake_streams_for(struct pinhole_pw_monitor *monitor, uint64_t serial, bool all) {
    for (int i = 0; i < MAX_STREAMS; i++) {
        struct pinhole_pw_stream *stream = monitor->streams[i];
        if (stream && (all || stream->serial == serial)) {
            stream->gone = true;
            uint64_t one = 1;
            (void)!write(stream->event_fd, &one, sizeof one);
        }
    }
}

/// Stops listening to a camera's node and frees it.
static void camera_free(struct camera *camera) {
    if (camera->proxy) {
        spa_hook_remove(&camera->listener);
        pw.pw_proxy_destroy(camera->proxy);
    }
    free(camera->name); free(camera->description); free(camera->v4l2_path); free(camera->location); free(camera->vendor);
    free(camera->formats);
    free(camera);
}

/// A node's param: EnumFormat ones become formats.
static void node_param(void *data, int seq, uint32_t id, uint32_t index, uint32_t next, const struct spa_pod *param) {
    (void)seq; (void)index; (void)next;
    struct camera *camera = data;
    if (id == SPA_PARAM_EnumFormat && param) read_enum_format(camera, param);
}

/// A copy of property `key` (empty when the node does not have it).
static char *copy_property(const struct spa_dict *props, const char *key) {
    const char *value = spa_dict_lookup(props, key);
    return strdup(value ? value : "");
}

/// Replaces `*field` with the node's `key` when the node has it.
static void update_property(char **field, const struct spa_dict *props, const char *key) {
    const char *value = spa_dict_lookup(props, key);
    if (!value || !*value) return;
    char *copy = strdup(value);
    if (!copy) return;
    free(*field);
    *field = copy;
}

/// The node's full properties: the registry's global carries only a few (media.class, node.name),
/// while api.v4l2.path, api.libcamera.location and the descriptions come with the node's info,
/// which arrives before the sync that marks the camera as read.
static void node_info(void *data, const struct pw_node_info *info) {
    struct camera *camera = data;
    if (!info || !info->props || !(info->change_mask & PW_NODE_CHANGE_MASK_PROPS)) return;
    update_property(&camera->v4l2_path, info->props, "api.v4l2.path");
    update_property(&camera->location, info->props, "api.libcamera.location");
    update_property(&camera->vendor, info->props, "device.vendor.name");
    update_property(&camera->description, info->props, PW_KEY_NODE_NICK);
    update_property(&camera->description, info->props, PW_KEY_NODE_DESCRIPTION);
}

/// What the shim hears from a camera node.
static const struct pw_node_events node_events = {PW_VERSION_NODE_EVENTS, .info = node_info, .param = node_param};

/// A new global: a camera node is bound, its info and formats asked for, and a sync sent after.
static void registry_global(void *data, uint32_t id, uint32_t permissions, const char *type, uint32_t version, const struct spa_dict *props) {
    (void)permissions; (void)version;
    struct pinhole_pw_monitor *monitor = data;
    if (!props || strcmp(type, PW_TYPE_INTERFACE_Node) != 0) return;
    const char *media_class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
    const char *role = spa_dict_lookup(props, PW_KEY_MEDIA_ROLE);
    if (!media_class || strcmp(media_class, "Video/Source") != 0 || !role || strcmp(role, "Camera") != 0) return;
    int slot = -1;
    for (int i = 0; i < MAX_CAMERAS; i++) if (!monitor->cameras[i]) { slot = i; break; }
    if (slot < 0) return;
    struct camera *camera = calloc(1, sizeof *camera);
    if (!camera) return;
    camera->monitor = monitor;
    camera->id = id;
    const char *serial = spa_dict_lookup(props, PW_KEY_OBJECT_SERIAL);
    camera->serial = serial ? strtoull(serial, NULL, 10) : id;
    camera->name = copy_property(props, PW_KEY_NODE_NAME);
    const char *description = spa_dict_lookup(props, PW_KEY_NODE_DESCRIPTION);
    if (!description || !*description) description = spa_dict_lookup(props, PW_KEY_NODE_NICK);
    camera->description = strdup(description ? description : "");
    camera->v4l2_path = copy_property(props, "api.v4l2.path");
    camera->location = copy_property(props, "api.libcamera.location");
    camera->vendor = copy_property(props, "device.vendor.name");
    camera->proxy = pw_registry_bind(monitor->registry, id, PW_TYPE_INTERFACE_Node, PW_VERSION_NODE, 0);
    if (!camera->name || !camera->description || !camera->v4l2_path || !camera->location || !camera->vendor || !camera->proxy) {
        camera_free(camera);
        return;
    }
    pw_node_add_listener((struct pw_node *)camera->proxy, &camera->listener, &node_events, camera);
    pw_node_enum_params((struct pw_node *)camera->proxy, 0, SPA_PARAM_EnumFormat, 0, UINT32_MAX, NULL);
    // The server answers in order: the params come before this sync's done.
    camera->pending_sync = pw_core_sync(monitor->core, PW_ID_CORE, 0);
    monitor->cameras[slot] = camera;
}

/// A global gone: a camera node leaves the list, and its streams are told.
static void registry_global_remove(void *data, uint32_t id) {
    struct pinhole_pw_monitor *monitor = data;
    for (int i = 0; i < MAX_CAMERAS; i++) {
        struct camera *camera = monitor->cameras[i];
        if (camera && camera->id == id) {
            monitor->cameras[i] = NULL;
            wake_streams_for(monitor, camera->serial, false);
            if (camera->ready) monitor->generation++;
            camera_free(camera);
            pw.pw_thread_loop_signal(monitor->loop, false);
        }
    }
}

/// What the shim hears from the registry.
static const struct pw_registry_events registry_events = {
    PW_VERSION_REGISTRY_EVENTS, .global = registry_global, .global_remove = registry_global_remove};

/// A sync answered: the cameras it was sent for are read; the first look is over once all are.
static void core_done(void *data, uint32_t id, int seq) {
    struct pinhole_pw_monitor *monitor = data;
    if (id != PW_ID_CORE) return;
    for (int i = 0; i < MAX_CAMERAS; i++) {
        struct camera *camera = monitor->cameras[i];
        if (camera && !camera->ready && camera->pending_sync == seq) {
            camera->ready = true;
            monitor->generation++;
        }
    }
    if (!monitor->initialized && seq == monitor->initial_sync) {
        // Every node the registry held is announced by now and its enum_params sent; a second sync
        // answered after their params.
        monitor->initial_sync = pw_core_sync(monitor->core, PW_ID_CORE, 0);
        bool pending = false;
        for (int i = 0; i < MAX_CAMERAS; i++) if (monitor->cameras[i] && !monitor->cameras[i]->ready) pending = true;
        if (!pending) monitor->initialized = true;
    }
    pw.pw_thread_loop_signal(monitor->loop, false);
}

/// An error from the daemon: fatal (EPIPE: it went away, or before the first look ended) kills the monitor.
static void core_error(void *data, uint32_t id, int seq, int res, const char *message) {
    (void)seq;
    struct pinhole_pw_monitor *monitor = data;
    if (id != PW_ID_CORE) return;
    snprintf(monitor->message, sizeof monitor->message, "%s", message ? message : spa_strerror(res));
    monitor->error = res < 0 ? res : -EIO;
    if (res == -EPIPE || !monitor->initialized) {
        monitor->dead = true;
        wake_streams_for(monitor, 0, true);
    }
    pw.pw_thread_loop_signal(monitor->loop, false);
}

/// What the shim hears from the core.
static const struct pw_core_events core_events = {PW_VERSION_CORE_EVENTS, .done = core_done, .error = core_error};

/// Waits on the loop (locked) until `*flag` or `deadline`; false on timeout.
static bool wait_until(struct pw_thread_loop *loop, const bool *flag, const bool *stop, struct timespec *deadline) {
    while (!*flag && !(stop && *stop)) {
        if (pw.pw_thread_loop_timed_wait_full(loop, deadline) == -ETIMEDOUT) return *flag;
    }
    return *flag;
}

pinhole_pw_monitor *pinhole_pw_monitor_new(int fd, int timeout_ms, int *error, char *message, size_t size) {
    struct pinhole_pw_monitor *monitor = calloc(1, sizeof *monitor);
    if (!monitor) { if (fd >= 0) close(fd); *error = -ENOMEM; snprintf(message, size, "out of memory"); return NULL; }
    monitor->loop = pw.pw_thread_loop_new("pinhole-pipewire", NULL);
    if (!monitor->loop) { if (fd >= 0) close(fd); *error = -errno; snprintf(message, size, "pw_thread_loop_new: %s", strerror(errno)); free(monitor); return NULL; }
    monitor->context = pw.pw_context_new(pw.pw_thread_loop_get_loop(monitor->loop), NULL, 0);
    if (!monitor->context) {
        if (fd >= 0) close(fd);
        *error = -errno; snprintf(message, size, "pw_context_new: %s", strerror(errno));
        pw.pw_thread_loop_destroy(monitor->loop); free(monitor); return NULL;
    }
    if (pw.pw_thread_loop_start(monitor->loop) < 0) {
        if (fd >= 0) close(fd);
        *error = -errno; snprintf(message, size, "pw_thread_loop_start: %s", strerror(errno));
        pw.pw_context_destroy(monitor->context); pw.pw_thread_loop_destroy(monitor->loop); free(monitor); return NULL;
    }
    pw.pw_thread_loop_lock(monitor->loop);
    // pw_context_connect_fd takes the descriptor (its connection closes it).
    monitor->core = fd >= 0 ? pw.pw_context_connect_fd(monitor->context, fd, NULL, 0) : pw.pw_context_connect(monitor->context, NULL, 0);
    if (!monitor->core) {
        *error = -errno;
        snprintf(message, size, "cannot connect to PipeWire: %s", strerror(errno));
        pw.pw_thread_loop_unlock(monitor->loop);
        pinhole_pw_monitor_free(monitor);
        return NULL;
    }
    pw_core_add_listener(monitor->core, &monitor->core_listener, &core_events, monitor);
    monitor->registry = pw_core_get_registry(monitor->core, PW_VERSION_REGISTRY, 0);
    pw_registry_add_listener(monitor->registry, &monitor->registry_listener, &registry_events, monitor);
    monitor->initial_sync = pw_core_sync(monitor->core, PW_ID_CORE, 0);
    struct timespec deadline;
    pw.pw_thread_loop_get_time(monitor->loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
    bool ready = wait_until(monitor->loop, &monitor->initialized, &monitor->dead, &deadline);
    bool dead = monitor->dead;
    if (!ready) {
        *error = dead ? monitor->error : -ETIMEDOUT;
        snprintf(message, size, "%s", dead ? monitor->message : "PipeWire did not answer in time");
    }
    pw.pw_thread_loop_unlock(monitor->loop);
    if (!ready) { pinhole_pw_monitor_free(monitor); return NULL; }
    return monitor;
}

void pinhole_pw_monitor_free(pinhole_pw_monitor *monitor) {
    if (monitor->loop) pw.pw_thread_loop_stop(monitor->loop);
    for (int i = 0; i < MAX_CAMERAS; i++) if (monitor->cameras[i]) camera_free(monitor->cameras[i]);
    if (monitor->registry) { spa_hook_remove(&monitor->registry_listener); pw.pw_proxy_destroy((struct pw_proxy *)monitor->registry); }
    if (monitor->core) { spa_hook_remove(&monitor->core_listener); pw.pw_core_disconnect(monitor->core); }
    if (monitor->context) pw.pw_context_destroy(monitor->context);
    if (monitor->loop) pw.pw_thread_loop_destroy(monitor->loop);
    free(monitor);
}

bool pinhole_pw_monitor_is_alive(pinhole_pw_monitor *monitor) {
    pw.pw_thread_loop_lock(monitor->loop);
    bool alive = !monitor->dead;
    pw.pw_thread_loop_unlock(monitor->loop);
    return alive;
}

uint64_t pinhole_pw_monitor_generation(pinhole_pw_monitor *monitor) {
    pw.pw_thread_loop_lock(monitor->loop);
    uint64_t generation = monitor->generation;
    pw.pw_thread_loop_unlock(monitor->loop);
    return generation;
}

struct pinhole_pw_cameras pinhole_pw_monitor_cameras(pinhole_pw_monitor *monitor) {
    struct pinhole_pw_cameras list = {NULL, 0};
    pw.pw_thread_loop_lock(monitor->loop);
    list.cameras = calloc(MAX_CAMERAS, sizeof *list.cameras);
    for (int i = 0; list.cameras && i < MAX_CAMERAS; i++) {
        struct camera *camera = monitor->cameras[i];
        if (!camera || !camera->ready) continue;
        struct pinhole_pw_camera *out = &list.cameras[list.count];
        struct pinhole_pw_format *formats = camera->format_count ? malloc(camera->format_count * sizeof *formats) : NULL;
        if (camera->format_count && !formats) continue;
        if (formats) memcpy(formats, camera->formats, camera->format_count * sizeof *formats);
        *out = (struct pinhole_pw_camera){camera->id, camera->serial, strdup(camera->name), strdup(camera->description),
                                          strdup(camera->v4l2_path), strdup(camera->location), strdup(camera->vendor),
                                          formats, camera->format_count};
        list.count++;
    }
    pw.pw_thread_loop_unlock(monitor->loop);
    return list;
}

void pinhole_pw_cameras_free(struct pinhole_pw_cameras list) {
    for (uint32_t i = 0; i < list.count; i++) {
        struct pinhole_pw_camera *camera = &list.cameras[i];
        free((void *)camera->name); free((void *)camera->description); free((void *)camera->v4l2_path);
        free((void *)camera->location); free((void *)camera->vendor); free((void *)camera->formats);
    }
    free(list.cameras);
}

bool pinhole_pw_monitor_has(pinhole_pw_monitor *monitor, uint64_t serial) {
    pw.pw_thread_loop_lock(monitor->loop);
    bool found = false;
    for (int i = 0; i < MAX_CAMERAS; i++) if (monitor->cameras[i] && monitor->cameras[i]->serial == serial) found = true;
    pw.pw_thread_loop_unlock(monitor->loop);
    return found;
}

/// Whether any camera's formats have been read (the loop locked).
static bool has_ready_camera(const struct pinhole_pw_monitor *monitor) {
    for (int i = 0; i < MAX_CAMERAS; i++) if (monitor->cameras[i] && monitor->cameras[i]->ready) return true;
    return false;
}

bool pinhole_pw_monitor_wait_for_camera(pinhole_pw_monitor *monitor, int timeout_ms) {
    pw.pw_thread_loop_lock(monitor->loop);
    struct timespec deadline;
    pw.pw_thread_loop_get_time(monitor->loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
    // Each camera made ready, removed, or a fatal error signals the loop.
    while (!has_ready_camera(monitor) && !monitor->dead) {
        if (pw.pw_thread_loop_timed_wait_full(monitor->loop, &deadline) == -ETIMEDOUT) break;
    }
    bool found = has_ready_camera(monitor);
    pw.pw_thread_loop_unlock(monitor->loop);
    return found;
}

// --- Stream ----------------------------------------------------------------------------------

static void signal_stream(struct pinhole_pw_stream *stream) {
    uint64_t one = 1;
    (void)!write(stream->event_fd, &one, sizeof one);
    pw.pw_thread_loop_signal(stream->monitor->loop, false);
}

/// The stream's state: errors and the end of a stream that was running are kept for the waiter.
static void stream_state_changed(void *data, enum pw_stream_state old, enum pw_stream_state state, const char *error) {
    (void)old;
    struct pinhole_pw_stream *stream = data;
    if (state == PW_STREAM_STATE_ERROR) {
        stream->failed = true;
        snprintf(stream->error, sizeof stream->error, "%s", error ? error : "the stream failed");
    } else if (state == PW_STREAM_STATE_STREAMING) {
        stream->streaming = true;
    } else if (state == PW_STREAM_STATE_UNCONNECTED && stream->streaming) {
        stream->gone = true;
    }
    signal_stream(stream);
}

/// A Buffers param for `types` (SPA_DATA_* bits), MJPEG's with room for two bytes a pixel.
static const struct spa_pod *buffers_param(struct spa_pod_builder *builder, uint32_t types, int32_t mjpeg_size) {
    if (mjpeg_size > 0)
        return spa_pod_builder_add_object(builder, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
            SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 16),
            SPA_PARAM_BUFFERS_size, SPA_POD_CHOICE_RANGE_Int(mjpeg_size, mjpeg_size, INT32_MAX),
            SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((int32_t)types));
    return spa_pod_builder_add_object(builder, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(4, 2, 16),
        SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((int32_t)types));
}

/// The format agreed: checked against the one asked for, then buffers and the header meta asked for.
static void stream_param_changed(void *data, uint32_t id, const struct spa_pod *param) {
    struct pinhole_pw_stream *stream = data;
    if (id != SPA_PARAM_Format || !param) return;
    uint32_t media_type = 0, media_subtype = 0;
    uint32_t fourcc = 0, width = 0, height = 0;
    if (spa_format_parse(param, &media_type, &media_subtype) >= 0 && media_type == SPA_MEDIA_TYPE_video) {
        if (media_subtype == SPA_MEDIA_SUBTYPE_raw) {
            struct spa_video_info_raw info;
            if (spa_format_video_raw_parse(param, &info) >= 0) { fourcc = fourcc_of(info.format); width = info.size.width; height = info.size.height; }
        } else if (media_subtype == SPA_MEDIA_SUBTYPE_mjpg) {
            struct spa_video_info_mjpg info;
            if (spa_format_video_mjpg_parse(param, &info) >= 0) { fourcc = mjpeg_fourcc; width = info.size.width; height = info.size.height; }
        }
    }
    stream->negotiated = true;
    stream->mismatch = fourcc != stream->want_fourcc || width != stream->want_width || height != stream->want_height;
    if (stream->mismatch) {
        snprintf(stream->error, sizeof stream->error, "the camera offered another format (%.4s %u×%u)", (const char *)&fourcc, width, height);
        signal_stream(stream);
        return;
    }
    // Buffers the shim can read: shared memory first (memfd, or plain memory; spa's V4L2 source
    // then exports the driver's own buffers as memfd, no copy), DMA-BUF second, for producers that
    // offer nothing else (the shim maps those itself); and a header meta for the producer's time
    // stamps and sequence numbers. PipeWire takes the first Buffers param both sides can meet. A
    // compressed frame's size varies from frame to frame: MJPEG buffers are asked to hold up to
    // two bytes a pixel (a producer that sizes its pool from the first frames otherwise cuts, or
    // crashes on, a larger one, as GStreamer's pipewiresink 0.3.65 did).
    uint8_t storage[768];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    const struct spa_pod *params[3];
    uint32_t count = 0;
    int32_t mjpeg_size = fourcc == mjpeg_fourcc ? (int32_t)(width * height * 2) : 0;
    if (!stream->dmabuf_only)
        params[count++] = buffers_param(&builder, (1u << SPA_DATA_MemFd) | (1u << SPA_DATA_MemPtr), mjpeg_size);
    params[count++] = buffers_param(&builder, 1u << SPA_DATA_DmaBuf, mjpeg_size);
    params[count++] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta,
        SPA_PARAM_META_type, SPA_POD_Id(SPA_META_Header), SPA_PARAM_META_size, SPA_POD_Int(sizeof(struct spa_meta_header)));
    pw.pw_stream_update_params(stream->stream, params, count);
    signal_stream(stream);
}

/// What the shim keeps for each of a stream's buffers (the pw_buffer's user_data).
struct buffer_info {
    /// The buffer's number (the Swift side keeps one wrapper per number).
    uint32_t index;
    /// A DMA-BUF the shim mapped itself (pw_stream maps only memfd): the mapping, and where the
    /// buffer's data starts in it.
    void *map;
    size_t map_length;
    uint8_t *data;
};

/// A new buffer gets the next number; a DMA-BUF is mapped for reading (once, here, not per frame).
static void stream_add_buffer(void *data, struct pw_buffer *buffer) {
    struct pinhole_pw_stream *stream = data;
    struct buffer_info *info = calloc(1, sizeof *info);
    if (!info) {
        stream->failed = true;
        snprintf(stream->error, sizeof stream->error, "out of memory for a buffer");
        signal_stream(stream);
        return;
    }
    info->index = stream->buffer_count++;
    struct spa_buffer *spa = buffer->buffer;
    if (spa->n_datas > 0 && spa->datas[0].type == SPA_DATA_DmaBuf && !spa->datas[0].data) {
        struct spa_data *d = &spa->datas[0];
        long page = sysconf(_SC_PAGESIZE);
        size_t start = d->mapoffset - d->mapoffset % (size_t)page;
        size_t length = d->mapoffset - start + d->maxsize;
        void *map = d->fd >= 0 && d->maxsize > 0 ? mmap(NULL, length, PROT_READ, MAP_SHARED, (int)d->fd, (off_t)start) : MAP_FAILED;
        if (map == MAP_FAILED) {
            stream->failed = true;
            snprintf(stream->error, sizeof stream->error, "cannot map the camera's DMA-BUF buffer: %s", strerror(errno));
            signal_stream(stream);
        } else {
            info->map = map;
            info->map_length = length;
            info->data = (uint8_t *)map + (d->mapoffset - start);
        }
    }
    buffer->user_data = info;
}

/// A buffer going away is forgotten if it was waiting, and unmapped.
static void stream_remove_buffer(void *data, struct pw_buffer *buffer) {
    struct pinhole_pw_stream *stream = data;
    pthread_mutex_lock(&stream->buffers_lock);
    if (stream->waiting == buffer) stream->waiting = NULL;
    pthread_mutex_unlock(&stream->buffers_lock);
    struct buffer_info *info = buffer->user_data;
    if (info) {
        if (info->map) munmap(info->map, info->map_length);
        free(info);
        buffer->user_data = NULL;
    }
    if (stream->buffer_count > 0) stream->buffer_count--;
}

/// Describes `buffer` as a frame (its data mapped by pw_stream, or by the shim for a DMA-BUF).
static void describe(struct pinhole_pw_stream *stream, struct pw_buffer *buffer, struct pinhole_pw_frame *frame) {
    struct spa_buffer *spa = buffer->buffer;
    struct buffer_info *info = buffer->user_data;
    memset(frame, 0, sizeof *frame);
    struct spa_data *d = spa->n_datas > 0 ? &spa->datas[0] : NULL;
    uint8_t *mapped = !d ? NULL : d->type == SPA_DATA_DmaBuf ? (info ? info->data : NULL) : d->data;
    if (d && mapped && d->chunk) {
        uint32_t offset = SPA_MIN(d->chunk->offset, d->maxsize);
        frame->data = mapped + offset;
        frame->capacity = d->maxsize - offset;
        frame->size = SPA_MIN(d->chunk->size, frame->capacity);
        frame->stride = d->chunk->stride;
        frame->corrupt = (d->chunk->flags & SPA_CHUNK_FLAG_CORRUPTED) != 0;
        frame->memory = d->type == SPA_DATA_DmaBuf ? PINHOLE_PW_MEMORY_DMABUF : d->type == SPA_DATA_MemFd ? PINHOLE_PW_MEMORY_FD : PINHOLE_PW_MEMORY_PTR;
    } else {
        frame->corrupt = true;
    }
    frame->buffer_index = info ? info->index : UINT32_MAX;
    frame->buffer_count = stream->buffer_count;
    struct spa_meta_header *header = spa_buffer_find_meta_data(spa, SPA_META_Header, sizeof *header);
    if (header) {
        frame->has_header = true;
        frame->pts = header->pts;
        frame->sequence = header->seq;
        if (header->flags & SPA_META_HEADER_FLAG_CORRUPTED) frame->corrupt = true;
    }
}

/// Brackets the CPU's reading of a DMA-BUF (`flags` DMA_BUF_SYNC_START or _END), as the kernel
/// asks of every CPU access to one.
static void sync_dmabuf(struct pw_buffer *buffer, uint64_t flags) {
    struct spa_buffer *spa = buffer->buffer;
    if (spa->n_datas == 0 || spa->datas[0].type != SPA_DATA_DmaBuf || spa->datas[0].fd < 0) return;
    struct dma_buf_sync sync = {flags | DMA_BUF_SYNC_READ};
    while (ioctl((int)spa->datas[0].fd, DMA_BUF_IOCTL_SYNC, &sync) < 0 && (errno == EINTR || errno == EAGAIN)) {}
}

/// Lends `buffer` to the handler, then gives it back to the producer; a handler that says no more
/// is cleared and its waiter woken. The buffers lock is held.
static void hand_over(struct pinhole_pw_stream *stream, struct pw_buffer *buffer) {
    struct pinhole_pw_frame frame;
    describe(stream, buffer, &frame);
    sync_dmabuf(buffer, DMA_BUF_SYNC_START);
    bool more = stream->handler(stream->handler_context, &frame);
    sync_dmabuf(buffer, DMA_BUF_SYNC_END);
    pw.pw_stream_queue_buffer(stream->stream, buffer);
    if (!more) {
        stream->handler = NULL;
        stream->handler_context = NULL;
        uint64_t one = 1;
        (void)!write(stream->event_fd, &one, sizeof one);
    }
}

/// Buffers arrived, on PipeWire's data thread: the newest goes to the handler right here (no
/// other thread is woken), or waits for the next one; older ones go back at once.
static void stream_process(void *data) {
    struct pinhole_pw_stream *stream = data;
    struct pw_buffer *buffer, *newest = NULL;
    pthread_mutex_lock(&stream->buffers_lock);
    while ((buffer = pw.pw_stream_dequeue_buffer(stream->stream))) {
        if (newest) pw.pw_stream_queue_buffer(stream->stream, newest);
        newest = buffer;
    }
    if (newest) {
        if (stream->waiting) pw.pw_stream_queue_buffer(stream->stream, stream->waiting);
        stream->waiting = NULL;
        if (stream->handler) hand_over(stream, newest);
        else stream->waiting = newest;
    }
    pthread_mutex_unlock(&stream->buffers_lock);
}

/// What the shim hears from a stream.
static const struct pw_stream_events stream_events = {
    PW_VERSION_STREAM_EVENTS, .state_changed = stream_state_changed, .param_changed = stream_param_changed,
    .add_buffer = stream_add_buffer, .remove_buffer = stream_remove_buffer, .process = stream_process};

pinhole_pw_stream *pinhole_pw_stream_new(pinhole_pw_monitor *monitor, uint64_t serial, uint32_t fourcc, uint32_t width, uint32_t height,
                                         uint32_t rate_num, uint32_t rate_denom, bool dmabuf_only, int timeout_ms, int *error, char *message, size_t size) {
    uint32_t spa_format = spa_of(fourcc);
    if (fourcc != mjpeg_fourcc && spa_format == SPA_VIDEO_FORMAT_UNKNOWN) {
        *error = -EINVAL; snprintf(message, size, "no PipeWire video format for %.4s", (const char *)&fourcc); return NULL;
    }
    struct pinhole_pw_stream *stream = calloc(1, sizeof *stream);
    if (!stream) { *error = -ENOMEM; snprintf(message, size, "out of memory"); return NULL; }
    stream->monitor = monitor;
    stream->serial = serial;
    stream->want_fourcc = fourcc; stream->want_width = width; stream->want_height = height;
    stream->dmabuf_only = dmabuf_only;
    stream->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stream->event_fd < 0) { *error = -errno; snprintf(message, size, "eventfd: %s", strerror(errno)); free(stream); return NULL; }
    pthread_mutex_init(&stream->buffers_lock, NULL);

    pw.pw_thread_loop_lock(monitor->loop);
    int slot = -1;
    for (int i = 0; i < MAX_STREAMS; i++) if (!monitor->streams[i]) { slot = i; break; }
    if (slot < 0 || monitor->dead) {
        *error = slot < 0 ? -EBUSY : monitor->error;
        snprintf(message, size, "%s", slot < 0 ? "too many PipeWire streams" : monitor->message);
        pw.pw_thread_loop_unlock(monitor->loop);
        close(stream->event_fd); pthread_mutex_destroy(&stream->buffers_lock); free(stream); return NULL;
    }
    char target[32];
    snprintf(target, sizeof target, "%llu", (unsigned long long)serial);
    struct pw_properties *props = pw.pw_properties_new(PW_KEY_MEDIA_TYPE, "Video", PW_KEY_MEDIA_CATEGORY, "Capture",
                                                       PW_KEY_MEDIA_ROLE, "Camera", PW_KEY_TARGET_OBJECT, target, NULL);
    stream->stream = props ? pw.pw_stream_new(monitor->core, "Pinhole", props) : NULL;
    if (!stream->stream) {
        *error = -errno; snprintf(message, size, "pw_stream_new: %s", strerror(errno));
        pw.pw_thread_loop_unlock(monitor->loop);
        close(stream->event_fd); pthread_mutex_destroy(&stream->buffers_lock); free(stream); return NULL;
    }
    monitor->streams[slot] = stream;
    pw.pw_stream_add_listener(stream->stream, &stream->listener, &stream_events, stream);

    uint8_t storage[512];
    struct spa_pod_builder builder = SPA_POD_BUILDER_INIT(storage, sizeof storage);
    struct spa_rectangle size_value = SPA_RECTANGLE(width, height);
    struct spa_fraction rate_value = SPA_FRACTION(rate_num, rate_denom);
    const struct spa_pod *params[1];
    if (fourcc == mjpeg_fourcc) {
        params[0] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
            SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_mjpg),
            SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&size_value), SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&rate_value));
    } else {
        params[0] = spa_pod_builder_add_object(&builder, SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat,
            SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video), SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw),
            SPA_FORMAT_VIDEO_format, SPA_POD_Id(spa_format),
            SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&size_value), SPA_FORMAT_VIDEO_framerate, SPA_POD_Fraction(&rate_value));
    }
    int result = pw.pw_stream_connect(stream->stream, PW_DIRECTION_INPUT, PW_ID_ANY,
                                      PW_STREAM_FLAG_AUTOCONNECT | PW_STREAM_FLAG_MAP_BUFFERS | PW_STREAM_FLAG_RT_PROCESS, params, 1);
    bool started = false;
    if (result >= 0) {
        struct timespec deadline;
        pw.pw_thread_loop_get_time(monitor->loop, &deadline, (int64_t)timeout_ms * SPA_NSEC_PER_MSEC);
        while (!stream->failed && !stream->gone && !stream->mismatch && !(stream->streaming && stream->negotiated)) {
            if (pw.pw_thread_loop_timed_wait_full(monitor->loop, &deadline) == -ETIMEDOUT) break;
        }
        started = stream->streaming && stream->negotiated && !stream->mismatch && !stream->failed && !stream->gone;
        if (!started) {
            *error = stream->failed ? -EIO : stream->gone ? -ENODEV : stream->mismatch ? -EINVAL : -ETIMEDOUT;
            snprintf(message, size, "%s", stream->error[0] ? stream->error
                     : stream->gone ? "the camera went away" : "the camera did not start streaming in time");
        }
    } else {
        *error = result;
        snprintf(message, size, "pw_stream_connect: %s", spa_strerror(result));
    }
    pw.pw_thread_loop_unlock(monitor->loop);
    if (!started) { pinhole_pw_stream_free(stream); return NULL; }
    return stream;
}

void pinhole_pw_stream_free(pinhole_pw_stream *stream) {
    struct pinhole_pw_monitor *monitor = stream->monitor;
    pw.pw_thread_loop_lock(monitor->loop);
    for (int i = 0; i < MAX_STREAMS; i++) if (monitor->streams[i] == stream) monitor->streams[i] = NULL;
    if (stream->stream) {
        pthread_mutex_lock(&stream->buffers_lock);
        if (stream->waiting) pw.pw_stream_queue_buffer(stream->stream, stream->waiting);
        stream->waiting = NULL;
        stream->handler = NULL;
        pthread_mutex_unlock(&stream->buffers_lock);
        spa_hook_remove(&stream->listener);
        pw.pw_stream_disconnect(stream->stream);
        pw.pw_stream_destroy(stream->stream);
    }
    pw.pw_thread_loop_unlock(monitor->loop);
    close(stream->event_fd);
    pthread_mutex_destroy(&stream->buffers_lock);
    free(stream);
}

/// Failed, gone, or still going.
static enum pinhole_pw_wait stream_state(pinhole_pw_stream *stream) {
    pw.pw_thread_loop_lock(stream->monitor->loop);
    enum pinhole_pw_wait result = stream->failed ? PINHOLE_PW_FAILED
        : (stream->gone || stream->monitor->dead) ? PINHOLE_PW_GONE : PINHOLE_PW_ENDED;
    pw.pw_thread_loop_unlock(stream->monitor->loop);
    return result;
}

int pinhole_pw_wake_fd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

enum pinhole_pw_wait pinhole_pw_stream_deliver(pinhole_pw_stream *stream, int timeout_ms, int wake_fd,
                                               pinhole_pw_frame_handler handler, void *context) {
    enum pinhole_pw_wait state = stream_state(stream);
    if (state != PINHOLE_PW_ENDED) return state;
    pthread_mutex_lock(&stream->buffers_lock);
    stream->handler = handler;
    stream->handler_context = context;
    // A frame that came between two calls goes first, on this thread.
    struct pw_buffer *waiting = stream->waiting;
    stream->waiting = NULL;
    if (waiting) hand_over(stream, waiting);
    bool active = stream->handler != NULL;
    pthread_mutex_unlock(&stream->buffers_lock);

    if (active) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        int64_t deadline = (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000 + timeout_ms;
        struct pollfd descriptors[2] = {{stream->event_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
        for (;;) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            int64_t left = deadline - ((int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000);
            if (left <= 0) break;
            int ready = poll(descriptors, wake_fd >= 0 ? 2 : 1, (int)left);
            if (ready > 0) break;
            if (ready == 0 || errno != EINTR) break;
        }
    }
    // Cleared under the lock the data thread holds while it calls the handler: once this
    // returns, the handler runs no more.
    pthread_mutex_lock(&stream->buffers_lock);
    stream->handler = NULL;
    stream->handler_context = NULL;
    pthread_mutex_unlock(&stream->buffers_lock);
    uint64_t count;
    (void)!read(stream->event_fd, &count, sizeof count);
    if (wake_fd >= 0) (void)!read(wake_fd, &count, sizeof count);
    return stream_state(stream);
}

void pinhole_pw_stream_error(pinhole_pw_stream *stream, char *message, size_t size) {
    pw.pw_thread_loop_lock(stream->monitor->loop);
    snprintf(message, size, "%s", stream->error);
    pw.pw_thread_loop_unlock(stream->monitor->loop);
}
