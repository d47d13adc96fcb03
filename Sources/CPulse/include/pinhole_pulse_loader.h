// PulseAudio's client library (served by PulseAudio and by PipeWire's pipewire-pulse), opened on
// first use instead of at process start: the simple API records from a source, the asynchronous
// API lists sources (microphones).
//
// Linked, libpulse and its dependencies (libsndfile with FLAC, Vorbis, Opus and MP3 codecs, X11's
// client libraries, D-Bus, …: 20 shared objects) were mapped and relocated by
// every process before `main`, though only a recording with sound or a microphone list calls
// them. Capture calls them through this table of function pointers, filled by dlopen of the
// sonames and dlsym of each function; the pointer types come from the headers (`__typeof__`),
// so a signature that differs from the library's is a compile error, not a crash. The types
// and constants (`pa_sample_spec`, `PA_STREAM_RECORD`, …) are the headers' own.
#pragma once
#include <stddef.h>
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

/// The libpulse-simple functions Capture calls (X(name) for each).
#define PINHOLE_PULSE_SIMPLE_FUNCTIONS(X) \
    X(pa_simple_new) X(pa_simple_free) X(pa_simple_read) X(pa_simple_get_latency)

/// The libpulse functions Capture calls.
#define PINHOLE_PULSE_FUNCTIONS(X) \
    X(pa_strerror) X(pa_mainloop_new) X(pa_mainloop_free) X(pa_mainloop_get_api) X(pa_mainloop_prepare) \
    X(pa_mainloop_poll) X(pa_mainloop_dispatch) X(pa_context_new) X(pa_context_unref) X(pa_context_connect) \
    X(pa_context_disconnect) X(pa_context_errno) X(pa_context_get_state) X(pa_context_set_state_callback) \
    X(pa_context_get_server_info) X(pa_context_get_source_info_list) X(pa_operation_unref)

#define PINHOLE_PULSE_FIELD(name) __typeof__(name) * _Nonnull name;

/// libpulse's and libpulse-simple's functions, once `pinhole_pulse_load` has filled them.
struct pinhole_pulse {
    PINHOLE_PULSE_SIMPLE_FUNCTIONS(PINHOLE_PULSE_FIELD)
    PINHOLE_PULSE_FUNCTIONS(PINHOLE_PULSE_FIELD)
};

#undef PINHOLE_PULSE_FIELD

/// Opens libpulse and libpulse-simple and returns their table, or NULL with the reason
/// (dlerror's text) in `error`. Call once (Capture keeps the result; not thread-safe); the
/// libraries stay loaded for the process's life.
const struct pinhole_pulse * _Nullable pinhole_pulse_load(char * _Nonnull error, size_t size);
