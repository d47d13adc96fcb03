// See include/pinhole_camera_portal.h.
#include "pinhole_camera_portal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#define PORTAL "org.freedesktop.portal.Desktop"
#define PORTAL_PATH "/org/freedesktop/portal/desktop"
#define CAMERA "org.freedesktop.portal.Camera"
#define REQUEST "org.freedesktop.portal.Request"
/// How long a plain method call may take (the portal answers at once; a dialog comes through the Request).
#define CALL_TIMEOUT_USEC (10ULL * 1000 * 1000)

/// A connection to the session bus; the reason in `message` when there is none.
static int open_bus(sd_bus **bus, char *message, size_t size) {
    int r = sd_bus_open_user(bus);
    if (r < 0) snprintf(message, size, "no session bus: %s", strerror(-r));
    return r;
}

/// A failed call as a negative errno, with the D-Bus error's name and text in `message`: the
/// portal, or its Camera interface, missing is -ENOENT; the portal refusing is -EACCES.
static int failure(int r, const sd_bus_error *error, char *message, size_t size) {
    if (!sd_bus_error_is_set(error)) {
        snprintf(message, size, "%s", strerror(r < 0 ? -r : EIO));
        return r < 0 ? r : -EIO;
    }
    snprintf(message, size, "%s: %s", error->name, error->message ? error->message : "");
    if (sd_bus_error_has_names(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER, SD_BUS_ERROR_UNKNOWN_OBJECT,
                               SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_PROPERTY))
        return -ENOENT;
    if (sd_bus_error_has_name(error, "org.freedesktop.portal.Error.NotAllowed")) return -EACCES;
    return r < 0 ? r : -EIO;
}

int pinhole_portal_is_camera_present(bool *present, char *message, size_t size) {
    sd_bus *bus = NULL;
    int r = open_bus(&bus, message, size);
    if (r < 0) return r;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int value = 0;
    r = sd_bus_get_property_trivial(bus, PORTAL, PORTAL_PATH, CAMERA, "IsCameraPresent", &error, 'b', &value);
    if (r < 0) r = failure(r, &error, message, size);
    else *present = value != 0;
    sd_bus_error_free(&error);
    sd_bus_flush_close_unref(bus);
    return r < 0 ? r : 0;
}

/// A Request's answer, filled by `on_response`.
struct response {
    /// The handle paths the answer may come on: the one the portal's documentation predicts, and
    /// the one the call returned (older portals differ).
    char expected[256];
    const char *returned;
    bool done;
    uint32_t code;
};

/// The Request's Response signal: its code (results are empty for AccessCamera).
static int on_response(sd_bus_message *signal, void *userdata, sd_bus_error *error) {
    (void)error;
    struct response *state = userdata;
    const char *path = sd_bus_message_get_path(signal);
    if (!path || (strcmp(path, state->expected) != 0 && !(state->returned && strcmp(path, state->returned) == 0))) return 0;
    uint32_t code = PINHOLE_PORTAL_DENIED;
    if (sd_bus_message_read(signal, "u", &code) < 0) code = PINHOLE_PORTAL_DENIED;
    state->code = code;
    state->done = true;
    return 0;
}

/// Monotonic microseconds.
static uint64_t now_usec(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000ULL + (uint64_t)t.tv_nsec / 1000ULL;
}

int pinhole_portal_access_camera(int timeout_ms, enum pinhole_portal_answer *answer, char *message, size_t size) {
    sd_bus *bus = NULL;
    int r = open_bus(&bus, message, size);
    if (r < 0) return r;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_slot *expected_slot = NULL, *returned_slot = NULL;
    struct response state = {.code = PINHOLE_PORTAL_DENIED};
    // The handle is /org/freedesktop/portal/desktop/request/SENDER/TOKEN, SENDER being the unique
    // name without its ':' and with '.' as '_': listened to before the call, so an answer the
    // portal sends at once (a stored permission) is not missed.
    const char *unique = NULL;
    r = sd_bus_get_unique_name(bus, &unique);
    if (r < 0) { snprintf(message, size, "no session bus: %s", strerror(-r)); goto done; }
    char sender[128];
    snprintf(sender, sizeof sender, "%s", unique[0] == ':' ? unique + 1 : unique);
    for (char *c = sender; *c; c++) if (*c == '.') *c = '_';
    char token[64];
    snprintf(token, sizeof token, "pinhole_%ld_%llu", (long)getpid(), (unsigned long long)now_usec());
    snprintf(state.expected, sizeof state.expected, PORTAL_PATH "/request/%s/%s", sender, token);
    r = sd_bus_match_signal(bus, &expected_slot, NULL, state.expected, REQUEST, "Response", on_response, &state);
    if (r < 0) { snprintf(message, size, "cannot listen for the portal's answer: %s", strerror(-r)); goto done; }
    r = sd_bus_message_new_method_call(bus, &call, PORTAL, PORTAL_PATH, CAMERA, "AccessCamera");
    if (r >= 0) r = sd_bus_message_open_container(call, 'a', "{sv}");
    if (r >= 0) r = sd_bus_message_append(call, "{sv}", "handle_token", "s", token);
    if (r >= 0) r = sd_bus_message_close_container(call);
    if (r >= 0) r = sd_bus_call(bus, call, CALL_TIMEOUT_USEC, &error, &reply);
    if (r < 0) { r = failure(r, &error, message, size); goto done; }
    r = sd_bus_message_read(reply, "o", &state.returned);
    if (r < 0) { snprintf(message, size, "AccessCamera returned no request handle"); goto done; }
    if (strcmp(state.returned, state.expected) != 0) {
        r = sd_bus_match_signal(bus, &returned_slot, NULL, state.returned, REQUEST, "Response", on_response, &state);
        if (r < 0) { snprintf(message, size, "cannot listen for the portal's answer: %s", strerror(-r)); goto done; }
    }
    uint64_t deadline = now_usec() + (uint64_t)timeout_ms * 1000ULL;
    while (!state.done) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) { snprintf(message, size, "the session bus failed: %s", strerror(-r)); goto done; }
        if (r > 0) continue;
        uint64_t now = now_usec();
        if (now >= deadline) { r = -ETIMEDOUT; snprintf(message, size, "the camera portal did not answer within %d s", timeout_ms / 1000); goto done; }
        r = sd_bus_wait(bus, deadline - now);
        if (r < 0 && r != -EINTR) { snprintf(message, size, "the session bus failed: %s", strerror(-r)); goto done; }
    }
    *answer = state.code == PINHOLE_PORTAL_ALLOWED ? PINHOLE_PORTAL_ALLOWED
            : state.code == PINHOLE_PORTAL_CANCELLED ? PINHOLE_PORTAL_CANCELLED : PINHOLE_PORTAL_DENIED;
    r = 0;
done:
    sd_bus_slot_unref(expected_slot);
    sd_bus_slot_unref(returned_slot);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
    sd_bus_error_free(&error);
    sd_bus_flush_close_unref(bus);
    return r;
}

int pinhole_portal_open_pipewire_remote(int *fd, char *message, size_t size) {
    sd_bus *bus = NULL;
    int r = open_bus(&bus, message, size);
    if (r < 0) return r;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *call = NULL, *reply = NULL;
    r = sd_bus_message_new_method_call(bus, &call, PORTAL, PORTAL_PATH, CAMERA, "OpenPipeWireRemote");
    if (r >= 0) r = sd_bus_message_append(call, "a{sv}", 0);
    if (r >= 0) r = sd_bus_call(bus, call, CALL_TIMEOUT_USEC, &error, &reply);
    if (r < 0) {
        r = failure(r, &error, message, size);
    } else {
        int received = -1;
        r = sd_bus_message_read(reply, "h", &received);
        // The message owns the descriptor it carried: the caller gets a copy of its own.
        int copy = r >= 0 ? fcntl(received, F_DUPFD_CLOEXEC, 3) : -1;
        if (copy < 0) {
            r = r < 0 ? r : -errno;
            snprintf(message, size, "OpenPipeWireRemote returned no descriptor: %s", strerror(-r));
        } else {
            *fd = copy;
            r = 0;
        }
    }
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
    sd_bus_error_free(&error);
    sd_bus_flush_close_unref(bus);
    return r;
}
