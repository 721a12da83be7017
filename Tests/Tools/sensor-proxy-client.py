#!/usr/bin/python3
"""A net.hadess.SensorProxy client for the end-to-end tests: one bus connection that runs the
steps given as arguments in order, printing one line per result and per PropertiesChanged signal
it receives (so a test can tell what reached a client that claimed, and what did not):

  claim SENSOR / release SENSOR     ClaimAccelerometer, ReleaseLight, … (prints "claimed SENSOR"
                                    or "failed SENSOR ERROR-NAME MESSAGE")
  other-claim SENSOR                the same claim over a second connection (another client)
  get PROPERTY                      prints "get PROPERTY VALUE"
  wait PROPERTY VALUE SECONDS       reads the property until it is VALUE; prints "waited PROPERTY
                                    VALUE" or "timeout PROPERTY LAST-VALUE"
  sleep SECONDS                     receives signals for that long
  write FILE VALUE                  writes VALUE and a newline to FILE (a testbed's attribute)
  mark TEXT                         prints "mark TEXT"

Signals print as "changed PROPERTY VALUE". Values print as Python's repr of floats, true/false,
and strings as they are. The system bus is DBUS_SYSTEM_BUS_ADDRESS.
"""

import os
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "net.hadess.SensorProxy"
PATH = "/net/hadess/SensorProxy"


def text(value):
    if isinstance(value, dbus.Boolean):
        return "true" if value else "false"
    if isinstance(value, dbus.Double):
        return repr(float(value))
    return str(value)


def say(line):
    print(line, flush=True)


def connect():
    return dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])


def pump(seconds):
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while True:
        while context.iteration(False):
            pass
        if time.monotonic() >= deadline:
            return
        time.sleep(min(0.02, max(0, deadline - time.monotonic())))


def main(steps):
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = connect()
    others = []
    proxy = bus.get_object(NAME, PATH)
    interface = dbus.Interface(proxy, NAME)
    properties = dbus.Interface(proxy, "org.freedesktop.DBus.Properties")

    def changed(name, values, invalidated):
        for key, value in values.items():
            say(f"changed {key} {text(value)}")

    bus.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties", path=PATH)
    steps = list(steps)
    while steps:
        step = steps.pop(0)
        if step in ("claim", "release", "other-claim"):
            sensor = steps.pop(0)
            target = interface
            if step == "other-claim":
                other = connect()
                others.append(other)
                target = dbus.Interface(other.get_object(NAME, PATH), NAME)
            method = ("Release" if step == "release" else "Claim") + sensor
            try:
                getattr(target, method)()
                say(f"{'released' if step == 'release' else 'claimed'} {sensor}")
            except dbus.DBusException as error:
                say(f"failed {sensor} {error.get_dbus_name()} {error.get_dbus_message()}")
        elif step == "get":
            name = steps.pop(0)
            pump(0)
            say(f"get {name} {text(properties.Get(NAME, name))}")
        elif step == "wait":
            name, wanted, seconds = steps.pop(0), steps.pop(0), float(steps.pop(0))
            deadline = time.monotonic() + seconds
            value = text(properties.Get(NAME, name))
            while value != wanted and time.monotonic() < deadline:
                pump(0.05)
                value = text(properties.Get(NAME, name))
            # The change's signal came before the reply that showed it (one connection, in
            # order), but is only dispatched by the main loop: print it first.
            pump(0)
            say(f"waited {name} {value}" if value == wanted else f"timeout {name} {value}")
        elif step == "sleep":
            pump(float(steps.pop(0)))
        elif step == "write":
            path, value = steps.pop(0), steps.pop(0)
            with open(path, "w") as f:
                f.write(value + "\n")
        elif step == "mark":
            say(f"mark {steps.pop(0)}")
        else:
            sys.exit(f"unknown step {step!r}")
    pump(0.1)


if __name__ == "__main__":
    main(sys.argv[1:])
