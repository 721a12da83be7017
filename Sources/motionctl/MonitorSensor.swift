import ArgumentParser
import MotionDBus
import MotionProtocol
import MotionToolSupport

/// monitor-sensor: iio-sensor-proxy's client of the same name, for motiond's
/// motiond-sensor-proxy package (which replaces iio-sensor-proxy, and so its monitor-sensor).
/// Talks to whichever daemon owns `net.hadess.SensorProxy` on the system bus and prints what
/// upstream's monitor-sensor (3.9) prints, line for line (``SensorWatch``). The `motionctl`
/// binary runs it when started as `monitor-sensor` (a link to it). Exit status 0 (also after a
/// refused claim, as upstream's), 1 when the system bus cannot be used, 64 for a usage error.
struct MonitorSensor: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor-sensor",
        abstract: "Show the sensors net.hadess.SensorProxy serves (iio-sensor-proxy's API) and their changes.",
        discussion: """
            Waits for the owner of net.hadess.SensorProxy on the system bus (motiond with the \
            motiond-sensor-proxy package, or iio-sensor-proxy), claims the chosen sensors, prints \
            their values (=== lines), then every change (indented lines) and every sensor that \
            appears or goes (+++ and --- lines), until interrupted; when the service leaves the \
            bus, waits for it to come back. Without an option, or with --all, every sensor. The \
            output is iio-sensor-proxy's monitor-sensor's, for the scripts that read it.
            """,
        version: MotionVersion.current)

    @Flag(name: [.customShort("a"), .long], help: "Monitor all the sensor changes.")
    var all = false

    @Flag(name: .customLong("accel"), help: "Monitor accelerometer changes.")
    var accelerometer = false

    @Flag(help: "Monitor proximity sensor changes.")
    var proximity = false

    @Flag(help: "Monitor compass changes.")
    var compass = false

    @Flag(help: "Monitor light changes.")
    var light = false

    func run() throws {
        let chosen: [(Bool, ProxySensor)] = [(accelerometer, .accelerometer), (light, .light), (proximity, .proximity), (compass, .compass)]
        let sensors = all || !chosen.contains { $0.0 } ? Set(ProxySensor.allCases) : Set(chosen.filter { $0.0 }.map { $0.1 })
        var watch = SensorWatch(sensors: sensors)
        do throws(SensorProxyClient.Failure) {
            try watch.run()
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
    }
}
