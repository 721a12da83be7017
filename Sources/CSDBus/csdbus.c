// The sd-bus vtables of the D-Bus face: SD_BUS_VTABLE_* are C macros building static tables,
// which Swift cannot write. Every entry calls back into Swift through csdbus_handlers.
#include "csdbus.h"

static int method(sd_bus_message *call, void *userdata, sd_bus_error *error) {
    csdbus_handlers *handlers = userdata;
    return handlers->method(call, handlers->context, error);
}

static int property(sd_bus *bus, const char *path, const char *interface, const char *name, sd_bus_message *reply,
                    void *userdata, sd_bus_error *error) {
    (void)bus;
    (void)interface;
    csdbus_handlers *handlers = userdata;
    return handlers->property(path, name, reply, handlers->context, error);
}

// As iio-sensor-proxy's net.hadess.SensorProxy.xml: read-only properties that emit changes.
static const sd_bus_vtable sensor_proxy[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasAccelerometer", "b", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerOrientation", "s", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("AccelerometerTilt", "s", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasAmbientLight", "b", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevelUnit", "s", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("LightLevel", "d", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("HasProximity", "b", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("ProximityNear", "b", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("ClaimAccelerometer", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseAccelerometer", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimLight", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseLight", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ClaimProximity", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseProximity", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable compass[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_PROPERTY("HasCompass", "b", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_PROPERTY("CompassHeading", "d", property, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
    SD_BUS_METHOD("ClaimCompass", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("ReleaseCompass", "", "", method, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

int csdbus_add_sensor_proxy(sd_bus *bus, sd_bus_slot **main_slot, sd_bus_slot **compass_slot, csdbus_handlers *handlers) {
    int r = sd_bus_add_object_vtable(bus, main_slot, "/net/hadess/SensorProxy", "net.hadess.SensorProxy", sensor_proxy, handlers);
    if (r < 0) return r;
    r = sd_bus_add_object_vtable(bus, compass_slot, "/net/hadess/SensorProxy/Compass", "net.hadess.SensorProxy.Compass", compass, handlers);
    if (r < 0) {
        *main_slot = sd_bus_slot_unref(*main_slot);
        return r;
    }
    return 0;
}
