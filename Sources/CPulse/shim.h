// PulseAudio's client library (served by PulseAudio and by PipeWire's pipewire-pulse): the simple
// API records from a source; the asynchronous API lists sources (microphones).
#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>
