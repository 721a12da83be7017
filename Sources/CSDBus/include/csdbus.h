#ifndef CSDBUS_H
#define CSDBUS_H

#include <systemd/sd-bus.h>

/// What the vtables call back into (Swift): every method call and property read of the two
/// net.hadess.SensorProxy objects, with `context` as given to csdbus_add_sensor_proxy.
typedef int (*csdbus_method_fn)(sd_bus_message *call, void *context, sd_bus_error *error);
typedef int (*csdbus_property_fn)(const char *path, const char *property, sd_bus_message *reply, void *context,
                                  sd_bus_error *error);

typedef struct csdbus_handlers {
    csdbus_method_fn method;
    csdbus_property_fn property;
    void *context;
} csdbus_handlers;

/// Registers /net/hadess/SensorProxy (net.hadess.SensorProxy) and /net/hadess/SensorProxy/Compass
/// (net.hadess.SensorProxy.Compass), with iio-sensor-proxy's members, on `bus`; `handlers` must
/// outlive both slots. Returns 0 or a negative errno.
int csdbus_add_sensor_proxy(sd_bus *bus, sd_bus_slot **main_slot, sd_bus_slot **compass_slot, csdbus_handlers *handlers);

#endif
