// See include/pinhole_sensor_proxy.h.
#include "pinhole_sensor_proxy.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define SERVICE "net.hadess.SensorProxy"
#define PATH "/net/hadess/SensorProxy"
#define INTERFACE "net.hadess.SensorProxy"

struct pinhole_sensor {
    sd_bus *bus;
    sd_bus_slot *slot;
    int changed;
};

static int on_properties_changed(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)message;
    (void)error;
    ((pinhole_sensor *)userdata)->changed = 1;
    return 0;
}

static int call(sd_bus *bus, const char *member) {
    sd_bus_message *request = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_message_new_method_call(bus, &request, SERVICE, PATH, INTERFACE, member);
    if (r >= 0) r = sd_bus_call(bus, request, 2 * 1000 * 1000, &error, &reply);
    sd_bus_error_free(&error);
    sd_bus_message_unref(request);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

int pinhole_sensor_open(pinhole_sensor **out) {
    *out = NULL;
    pinhole_sensor *sensor = calloc(1, sizeof *sensor);
    if (!sensor) return -ENOMEM;
    int r = sd_bus_open_system(&sensor->bus);
    if (r < 0) { free(sensor); return r; }
    int has = 0;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    r = sd_bus_get_property_trivial(sensor->bus, SERVICE, PATH, INTERFACE, "HasAccelerometer", &error, 'b', &has);
    sd_bus_error_free(&error);
    if (r < 0 || !has) {
        sd_bus_flush_close_unref(sensor->bus);
        free(sensor);
        return r < 0 ? r : -ENODEV;
    }
    r = sd_bus_match_signal(sensor->bus, &sensor->slot, SERVICE, PATH, "org.freedesktop.DBus.Properties",
                            "PropertiesChanged", on_properties_changed, sensor);
    if (r >= 0) r = call(sensor->bus, "ClaimAccelerometer");
    if (r < 0) {
        pinhole_sensor_close(sensor);
        return r;
    }
    *out = sensor;
    return 0;
}

int pinhole_sensor_orientation(pinhole_sensor *sensor, char *buffer, size_t size) {
    char *value = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_get_property_string(sensor->bus, SERVICE, PATH, INTERFACE, "AccelerometerOrientation", &error, &value);
    sd_bus_error_free(&error);
    if (r < 0) return r;
    snprintf(buffer, size, "%s", value ? value : "undefined");
    free(value);
    return 0;
}

int pinhole_sensor_wait(pinhole_sensor *sensor, uint64_t timeout_usec) {
    int r = sd_bus_wait(sensor->bus, timeout_usec);
    if (r < 0 && r != -EINTR) return r;
    while ((r = sd_bus_process(sensor->bus, NULL)) > 0) {}
    if (r < 0) return r;
    int changed = sensor->changed;
    sensor->changed = 0;
    return changed;
}

void pinhole_sensor_close(pinhole_sensor *sensor) {
    if (!sensor) return;
    if (sensor->slot) {
        call(sensor->bus, "ReleaseAccelerometer");
        sd_bus_slot_unref(sensor->slot);
    }
    sd_bus_flush_close_unref(sensor->bus);
    free(sensor);
}
