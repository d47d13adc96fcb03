// dlopen/dlsym of libpulse for Capture (see the header for why).
#include "pinhole_pulse_loader.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

const struct pinhole_pulse *pinhole_pulse_load(char *error, size_t size) {
    static struct pinhole_pulse table;
    // libpulse's sonames have been .so.0 since 0.9; libpulse-simple needs libpulse, so it goes
    // second. RTLD_LOCAL keeps their symbols out of the process's global scope.
    const char *names[] = {"libpulse.so.0", "libpulse-simple.so.0"};
    void *handles[2];
    for (size_t index = 0; index < 2; index++) {
        handles[index] = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (!handles[index]) {
            const char *reason = dlerror();
            snprintf(error, size, "%s", reason ? reason : names[index]);
            return NULL;
        }
    }
    struct pinhole_pulse loaded;
#define PINHOLE_FIND(index, name) \
    if (!(*(void **)&loaded.name = dlsym(handles[index], #name))) { \
        snprintf(error, size, "%s has no %s", names[index], #name); \
        return NULL; \
    }
#define PINHOLE_FIND_PULSE(name) PINHOLE_FIND(0, name)
#define PINHOLE_FIND_SIMPLE(name) PINHOLE_FIND(1, name)
    PINHOLE_PULSE_FUNCTIONS(PINHOLE_FIND_PULSE)
    PINHOLE_PULSE_SIMPLE_FUNCTIONS(PINHOLE_FIND_SIMPLE)
#undef PINHOLE_FIND_SIMPLE
#undef PINHOLE_FIND_PULSE
#undef PINHOLE_FIND
    memcpy(&table, &loaded, sizeof loaded);
    return &table;
}
