// libpipewire (PipeWire's client library) for Capture's PipeWire cameras, opened on first use.
//
// Linked, libpipewire would be mapped and relocated by every process before `main`, though only a
// look for PipeWire cameras needs it; so `pinhole_pw_load` opens "libpipewire-0.3.so.0" with dlopen
// and the shim calls it through a table of function pointers (typed from the headers with
// `__typeof__`, so a signature that differs from the library's is a compile error). SPA's POD
// builders and parsers, and PipeWire's proxy methods (pw_registry_bind, pw_node_enum_params, …),
// are macros and inline functions Swift cannot import: they live in the shim, which keeps
// PipeWire's own thread loop and hands Swift plain structures. This header names no PipeWire
// type, so Swift needs none of PipeWire's headers.
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// What `pinhole_pw_load` found: the library's version.
struct pinhole_pw_library {
    /// pw_get_library_version()'s text ("0.3.65").
    char version[32];
};

/// Opens libpipewire and calls pw_init; returns the library's description, or NULL with the reason
/// (dlerror's text) in `error`. Call once (Capture keeps the result; not thread-safe); the library
/// stays loaded for the process's life.
const struct pinhole_pw_library * _Nullable pinhole_pw_load(char * _Nonnull error, size_t size);

/// The most frame rates kept for one format.
#define PINHOLE_PW_MAX_RATES 16

/// One size of one pixel format a camera node offers, with its frame rates.
struct pinhole_pw_format {
    /// The V4L2 four-character code of the pixel layout ('YUYV', 'NV12', 'YU12', 'MJPG', …).
    uint32_t fourcc;
    /// Size in pixels.
    uint32_t width, height;
    /// How many of `rate_num`/`rate_denom` are used: frames per second as fractions.
    uint32_t rate_count;
    /// Frame-rate numerators (frames).
    uint32_t rate_num[PINHOLE_PW_MAX_RATES];
    /// Frame-rate denominators (seconds).
    uint32_t rate_denom[PINHOLE_PW_MAX_RATES];
};

/// A camera node as the registry describes it (strings empty when the node does not say).
struct pinhole_pw_camera {
    /// The node's global id (reused by PipeWire after the node goes) and its serial (never reused).
    uint32_t id;
    uint64_t serial;
    /// node.name, node.description (else node.nick), api.v4l2.path, api.libcamera.location,
    /// device.vendor.name: NUL-terminated, owned by the list.
    const char * _Nonnull name;
    const char * _Nonnull description;
    const char * _Nonnull v4l2_path;
    const char * _Nonnull location;
    const char * _Nonnull vendor;
    /// The formats its EnumFormat params offer (raw layouts Pinhole reads, and MJPEG).
    const struct pinhole_pw_format * _Nullable formats;
    uint32_t format_count;
};

/// A snapshot of the camera nodes, freed with `pinhole_pw_cameras_free`.
struct pinhole_pw_cameras {
    /// The cameras, in the order the registry announced them.
    struct pinhole_pw_camera * _Nullable cameras;
    uint32_t count;
};

/// A connection to the PipeWire daemon with its own thread loop, watching the registry for camera
/// nodes (`media.class` Video/Source, `media.role` Camera) and their formats.
typedef struct pinhole_pw_monitor pinhole_pw_monitor;

/// Connects over `fd` (a connected socket the monitor takes and closes: the camera portal's
/// PipeWire remote), or with `fd` -1 to $PIPEWIRE_REMOTE, else pipewire-0 in $XDG_RUNTIME_DIR; and
/// waits up to `timeout_ms` for the registry's cameras and their formats. NULL with a negative
/// errno in `error` (ECONNREFUSED/ENOENT: no daemon; ETIMEDOUT: it did not answer) and PipeWire's message.
pinhole_pw_monitor * _Nullable pinhole_pw_monitor_new(int fd, int timeout_ms, int * _Nonnull error, char * _Nonnull message, size_t size);
/// Disconnects and stops the thread loop.
void pinhole_pw_monitor_free(pinhole_pw_monitor * _Nonnull monitor);
/// Whether the connection still stands (false once the daemon went away or reported a fatal error).
bool pinhole_pw_monitor_is_alive(pinhole_pw_monitor * _Nonnull monitor);
/// Counts changes to the camera list (a node added with its formats, or removed).
uint64_t pinhole_pw_monitor_generation(pinhole_pw_monitor * _Nonnull monitor);
/// The cameras now (only nodes whose formats have been read).
struct pinhole_pw_cameras pinhole_pw_monitor_cameras(pinhole_pw_monitor * _Nonnull monitor);
/// Frees a snapshot.
void pinhole_pw_cameras_free(struct pinhole_pw_cameras cameras);
/// Whether the node with this serial is still in the registry.
bool pinhole_pw_monitor_has(pinhole_pw_monitor * _Nonnull monitor, uint64_t serial);
/// Waits up to `timeout_ms` until a camera (with its formats) is known; false when none came, or
/// the connection died. Over the camera portal's remote every node starts hidden and the session
/// manager grants the cameras a moment after the connection appears: the first look waits here.
bool pinhole_pw_monitor_wait_for_camera(pinhole_pw_monitor * _Nonnull monitor, int timeout_ms);

/// A capture stream from one camera node, on a monitor's connection.
typedef struct pinhole_pw_stream pinhole_pw_stream;

/// Where a frame's bytes live.
enum pinhole_pw_memory {
    /// Memory the producer's process shares with no one (a producer in this process).
    PINHOLE_PW_MEMORY_PTR = 0,
    /// A shared-memory descriptor (memfd, or a V4L2 buffer spa's V4L2 source exported as one).
    PINHOLE_PW_MEMORY_FD = 1,
    /// A DMA-BUF, mapped by the shim and read between DMA_BUF_IOCTL_SYNC calls.
    PINHOLE_PW_MEMORY_DMABUF = 2,
};

/// A frame lent to a `pinhole_pw_frame_handler`, valid during the call.
struct pinhole_pw_frame {
    /// The frame's bytes (the buffer's mapping plus the chunk's offset) and how many there are.
    uint8_t * _Nullable data;
    uint32_t size;
    /// Bytes mapped from `data` on (the buffer's size less the chunk's offset).
    uint32_t capacity;
    /// Bytes per row of the first plane (0 when the producer did not say).
    int32_t stride;
    /// The buffer's number among the stream's buffers (stable while the stream's format stands).
    uint32_t buffer_index;
    /// How many buffers the stream has now (a wrapper cache resizes on a change).
    uint32_t buffer_count;
    /// The producer's time stamp (ns) and sequence number, when it attached a header (`has_header`).
    int64_t pts;
    uint64_t sequence;
    bool has_header;
    /// The producer marked the data corrupted.
    bool corrupt;
    /// A `pinhole_pw_memory`.
    uint32_t memory;
};

/// Connects a stream to node `serial` (`target.object`) asking for exactly `fourcc` at
/// `width`×`height` and `rate_num`/`rate_denom` frames per second (in shared memory, else in
/// DMA-BUF; in DMA-BUF only with `dmabuf_only`), and waits up to `timeout_ms` for
/// the format to be agreed and the stream to start. NULL with a negative errno in `error` and the
/// reason in `message` (the stream's error, or "the camera offered another format").
pinhole_pw_stream * _Nullable pinhole_pw_stream_new(pinhole_pw_monitor * _Nonnull monitor, uint64_t serial, uint32_t fourcc, uint32_t width,
                                                    uint32_t height, uint32_t rate_num, uint32_t rate_denom, bool dmabuf_only, int timeout_ms,
                                                    int * _Nonnull error, char * _Nonnull message, size_t size);
/// Disconnects and destroys the stream (a frame still acquired is given back first).
void pinhole_pw_stream_free(pinhole_pw_stream * _Nonnull stream);

/// How a delivery ended.
enum pinhole_pw_wait {
    /// The time ran out, the handler said no more, or the wake descriptor was written.
    PINHOLE_PW_ENDED = 0,
    /// The camera node left the registry (unplugged), or the daemon went away.
    PINHOLE_PW_GONE = 2,
    /// The stream failed; `pinhole_pw_stream_error` says why.
    PINHOLE_PW_FAILED = 3,
};

/// Receives a frame, on PipeWire's data thread or the thread in `pinhole_pw_stream_deliver`,
/// never two at once; returns whether to go on. The frame goes back to the producer after it returns.
typedef bool (*pinhole_pw_frame_handler)(void * _Nullable context, const struct pinhole_pw_frame * _Nonnull frame);

/// A new eventfd (non-blocking, close-on-exec) for `pinhole_pw_stream_deliver`'s `wake_fd`; -1 with errno.
int pinhole_pw_wake_fd(void);

/// Hands frames to `handler` for up to `timeout_ms`: each frame on PipeWire's data thread as it
/// arrives (the newest that came since the last call first, on this thread), while this thread
/// sleeps, so no thread is woken per frame. Ends early when the handler returns false, when
/// `wake_fd` (an eventfd, or -1) becomes readable (it is read), or when the stream fails or its
/// camera goes; the handler is not called after this returns.
enum pinhole_pw_wait pinhole_pw_stream_deliver(pinhole_pw_stream * _Nonnull stream, int timeout_ms, int wake_fd,
                                               pinhole_pw_frame_handler _Nonnull handler, void * _Nullable context);
/// The stream's error message (empty when none), copied into `message`.
void pinhole_pw_stream_error(pinhole_pw_stream * _Nonnull stream, char * _Nonnull message, size_t size);
