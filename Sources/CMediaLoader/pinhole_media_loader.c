// dlopen/dlsym of FFmpeg and libheif for Media (see the header for why).
#include "pinhole_media_loader.h"
#include <dlfcn.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <string.h>

#define PINHOLE_STRING(x) #x
#define PINHOLE_SONAME(name, major) "lib" name ".so." PINHOLE_STRING(major)

/// Copies dlerror()'s text (or `fallback`) into `error`.
static void pinhole_loader_error(char *error, size_t size, const char *fallback) {
    const char *reason = dlerror();
    snprintf(error, size, "%s", reason ? reason : fallback);
}

/// Looks `name` up in the first of `handles` that has it.
static void *pinhole_loader_find(void *const *handles, size_t count, const char *name) {
    for (size_t index = 0; index < count; index++) {
        void *symbol = dlsym(handles[index], name);
        if (symbol) return symbol;
    }
    return NULL;
}

const struct pinhole_ffmpeg *pinhole_ffmpeg_load(char *error, size_t size) {
    static struct pinhole_ffmpeg table;
    // In dependency order; RTLD_LOCAL keeps their symbols out of the process's global scope.
    const char *names[] = {
        PINHOLE_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), PINHOLE_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR),
        PINHOLE_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), PINHOLE_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR),
    };
    void *handles[4];
    for (size_t index = 0; index < 4; index++) {
        handles[index] = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (!handles[index]) {
            pinhole_loader_error(error, size, names[index]);
            return NULL;
        }
    }
    struct pinhole_ffmpeg loaded;
#define PINHOLE_FIND(name) \
    if (!(*(void **)&loaded.name = pinhole_loader_find(handles, 4, #name))) { \
        snprintf(error, size, "FFmpeg has no %s", #name); \
        return NULL; \
    }
    PINHOLE_FFMPEG_FUNCTIONS(PINHOLE_FIND)
#undef PINHOLE_FIND
    memcpy(&table, &loaded, sizeof loaded);
    return &table;
}

const struct pinhole_heif *pinhole_heif_load(char *error, size_t size) {
    static struct pinhole_heif table;
    // libheif's soname has been libheif.so.1 through all of its 1.x releases.
    void *handle = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        pinhole_loader_error(error, size, "libheif.so.1");
        return NULL;
    }
    struct pinhole_heif loaded;
#define PINHOLE_FIND(name) \
    if (!(*(void **)&loaded.name = dlsym(handle, #name))) { \
        snprintf(error, size, "libheif has no %s", #name); \
        return NULL; \
    }
    PINHOLE_HEIF_FUNCTIONS(PINHOLE_FIND)
#undef PINHOLE_FIND
    memcpy(&table, &loaded, sizeof loaded);
    return &table;
}

void pinhole_tune_memory_for_recording(void) {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}
