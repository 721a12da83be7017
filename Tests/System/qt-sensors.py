#!/usr/bin/python3
# What a Qt application reads from net.hadess.SensorProxy on the system bus through QtSensors'
# own iio-sensor-proxy backend (Debian's python3-pyqt5.qtsensors and libqt5sensors5): one line
# per reading, `orientation NAME` (QOrientationReading) and `light LUX` (QLightReading), and a
# line for a sensor that does not start, for SECONDS seconds. The system tier (run-tests.sh)
# runs it against iio-sensor-proxy and against motiond and compares the lines.
#
# Usage: qt-sensors.py SECONDS
import sys

from PyQt5.QtCore import QCoreApplication, QTimer
from PyQt5.QtSensors import QLightSensor, QOrientationReading, QOrientationSensor

app = QCoreApplication(sys.argv)
names = {getattr(QOrientationReading, n): n for n in ("Undefined", "TopUp", "TopDown", "LeftUp", "RightUp", "FaceUp", "FaceDown")}
orientation = QOrientationSensor()
light = QLightSensor()
# The backend by name: QtSensors would otherwise pick the first one registered for the type.
orientation.setIdentifier(b"iio-sensor-proxy.orientationsensor")
light.setIdentifier(b"iio-sensor-proxy.lightsensor")
orientation.readingChanged.connect(lambda: print("orientation", names.get(orientation.reading().orientation(), "?"), flush=True))
light.readingChanged.connect(lambda: print("light %.1f" % light.reading().lux(), flush=True))
for name, sensor in (("orientation", orientation), ("light", light)):
    if not sensor.start():
        print(name, "did not start", flush=True)
QTimer.singleShot(int(float(sys.argv[1]) * 1000), app.quit)
app.exec_()
