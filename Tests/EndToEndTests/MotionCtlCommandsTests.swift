import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MotionCore
@testable import TestSupport
import Testing

/// `motionctl status`, `get`, `record`, `calibrate` against a real `motiond` on a private
/// socket, and `plot` on a trace, run as a user would.
@Suite("motionctl daemon commands and plot")
struct MotionCtlCommandsTests {
    static let g = PhysicalConstants.standardGravity
    static let header = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z"

    static func motionctl(_ arguments: [String], environment: [String: String]? = nil) async throws -> ProcessOutput {
        try await Emulation.run([MotionCtlTests.motionctl] + arguments, environment: environment)
    }

    /// A file in a fresh temporary directory with `text`; the directory is the caller's to remove.
    static func write(_ text: String, named name: String) throws -> (directory: URL, path: String) {
        let directory = try Emulation.temporaryDirectory()
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (directory, path)
    }

    // MARK: status

    @Test("status: the sensors, the access tier and the clients, as text and as the daemon's JSON object")
    func status() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let text = try await Self.motionctl(["status", "--socket", daemon.socket, "--wait", "10"])
        #expect(text.status == 0, "\(text.stderr)")
        for expected in ["source         sim:", "accelerometer  available", "gyroscope      available", "magnetometer   available",
                         "light          available", "proximity      available", "baseAccelerometer unavailable: the simulated IMU is a slate", "baseGyroscope  unavailable: the simulated IMU is a slate", "access         full (every stream)", "clients        1", "calibration    uncalibrated", "heap in use",
                         "sensor lags behind the gyroscope: accelerometer "] {
            #expect(text.stdout.contains(expected), "no '\(expected)' in:\n\(text.stdout)")
        }

        let json = try await Self.motionctl(["status", "--socket", daemon.socket, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let lines = json.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let status = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sensors = try #require(status["sensors"] as? [String: Any])
        #expect(Set(sensors.keys) == ["accelerometer", "gyroscope", "magnetometer", "light", "proximity", "baseAccelerometer", "baseGyroscope"])
        #expect(status["clients"] as? Int == 1 && status["source"] as? String == "sim:")
        #expect((status["engine"] as? [String: Any])?["calibrationAccuracy"] as? String == "uncalibrated")
        #expect((status["engine"] as? [String: Any])?["magnetometerLag"] is Double)
    }

    // MARK: get

    @Test("get: orientation and acceleration of a device lying still face up; the sensors are started when nothing has read them")
    func get() async throws {
        // A replayed still device, not the simulation: its script leaves the rest pose after
        // 2 s, which a loaded machine could take to get here (seen once in CI).
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(try SocketStreamTests.stillTrace(in: directory))"])
        defer { _ = daemon.stop() }
        // Nothing runs yet: get has to subscribe, wait for the detector's first decision, and pull.
        let orientation = try await Self.motionctl(["get", "orientation", "--socket", daemon.socket, "--wait", "10"])
        #expect(orientation.status == 0, "\(orientation.stderr)")
        #expect(orientation.stdout.hasSuffix("orientation faceUp\n"), "\(orientation.stdout)")

        let json = try await Self.motionctl(["get", "accelerometer", "--json", "--socket", daemon.socket])
        #expect(json.status == 0, "\(json.stderr)")
        let sample = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(sample["type"] as? String == "accelerometer" && sample["timestamp"] is Double)
        let a = jsonVector(sample["acceleration"])
        // Face up at rest, Core Motion's sign: (0, 0, −1) G.
        #expect(abs((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).squareRoot() - 1) < 0.05 && a[2] < -0.95, "\(a)")

        let text = try await Self.motionctl(["get", "accelerometer", "--socket", daemon.socket])
        #expect(text.status == 0 && text.stdout.contains("accelerometer x=") && text.stdout.hasSuffix(" G\n"), "\(text.stdout)")
        let motion = try await Self.motionctl(["get", "deviceMotion", "--frame", "xMagneticNorthZVertical", "--socket", daemon.socket])
        #expect(motion.status == 0 && motion.stdout.contains("roll=") && motion.stdout.contains("heading="), "\(motion.stdout) \(motion.stderr)")

        let event = try await Self.motionctl(["get", "shake", "--socket", daemon.socket])
        #expect(event.status == 64 && event.stderr.contains("motionctl monitor shake"), "\(event.stderr)")
    }

    @Test("get: exit 69 without a daemon, 1 with a clear message when the stream's sensor is absent")
    func getFailures() async throws {
        let missing = try await Self.motionctl(["get", "accelerometer", "--socket", "/nonexistent/motiond.sock"])
        #expect(missing.status == 69 && missing.stderr.contains("cannot reach motiond"), "\(missing.stderr)")

        let trace = try Self.write("t,acc_x,acc_y,acc_z\n" + (0..<3000).map { "\(Double($0) / 100),0,0,9.80665" }.joined(separator: "\n"), named: "acc.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(trace.path)"])
        defer { _ = daemon.stop() }
        let gyro = try await Self.motionctl(["get", "gyro", "--socket", daemon.socket, "--wait", "10"])
        #expect(gyro.status == 1 && gyro.stderr.contains("gyro: the sensors it needs are not available"), "\(gyro.stderr)")
    }

    @Test("a goodbye (motiond stopping) ends monitor, record and the Python example with exit 75, not 69 (unreachable)")
    func goodbyeIsNotUnreachable() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        _ = try await daemon.connect()
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var commands = [
            ("monitor", try RunningProcess([MotionCtlTests.motionctl, "monitor", "--socket", daemon.socket, "deviceMotion", "--interval", "0.1"])),
            ("record", try RunningProcess([MotionCtlTests.motionctl, "record", "--socket", daemon.socket, "--duration", "60",
                                           directory.appendingPathComponent("trace.csv").path])),
        ]
        if let python = PythonExampleTests.python {
            commands.append(("python", try RunningProcess([python, PythonExampleTests.script, daemon.socket], environment: PythonExampleTests.installed)))
        }
        for (name, process) in commands {
            #expect(await process.wait(timeout: 10) { !$0.stdout.isEmpty || $0.stderr.contains("recording for") }, "\(name): \(process.stderr)")
        }
        // Something recorded, so the recording is written too.
        try await Task.sleep(for: .milliseconds(500))
        #expect(daemon.process.stop() == 0)
        for (name, process) in commands {
            #expect(await process.wait(timeout: 10) { _ in !process.isRunning }, "\(name) still runs after the goodbye")
            #expect(process.status == 75 && process.stderr.contains("goodbye"), "\(name): exit \(process.status), \(process.stderr)")
        }
    }

    // MARK: record

    /// A device turning slowly about x (0.02 rad/s) from face up, 100 Hz for 30 s, in trace
    /// units; `gyr_z` carries the row index × 10⁻⁴, so a recorded row names the row it came from.
    static func turningTrace() -> [[Double]] {
        (0..<3000).map { i in
            let t = Double(i) / 100, angle = 0.02 * t
            return [t, 0.02, 0, Double(i) * 1e-4, 0, g * sin(angle), g * cos(angle), 20, -44 * sin(angle), -44 * cos(angle)]
        }
    }

    /// The data rows of a trace CSV, as numbers.
    static func rows(_ text: String) -> [[Double]] {
        text.split(separator: "\n").dropFirst().map { $0.split(separator: ",").map { Double(String($0)) ?? .nan } }
    }

    @Test("record: a replayed trace is written back in trace units, one row per sample time, and replays to the same samples")
    func record() async throws {
        let original = Self.turningTrace()
        let trace = try Self.write(([Self.header] + original.map { $0.map { "\($0)" }.joined(separator: ",") }).joined(separator: "\n") + "\n",
                                   named: "turning.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(trace.path)"])
        defer { _ = daemon.stop() }
        let recording = trace.directory.appendingPathComponent("recorded.csv").path

        let run = try await Self.motionctl(["record", recording, "--duration", "2", "--socket", daemon.socket, "--wait", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOfFile: recording, encoding: .utf8)
        #expect(text.hasPrefix(Self.header + "\n"))
        let rows = Self.rows(text)
        #expect(run.stdout.hasPrefix("recorded \(rows.count) rows to \(recording)"), "\(run.stdout)")
        // At least most of 2 s at the trace's 100 Hz (a loaded machine may stop the recording
        // late: how many rows past 2 s is the clock's, not motionctl's); the three sensors of a
        // trace row share its time, so its row: exactly one row per trace row in the span (the
        // gyroscope's column 3 counts the trace rows). The recording may start or stop between
        // the sensors of one time: only the first and last rows may lack one.
        #expect(rows.count >= 150, "\(rows.count) rows")
        let traceRows = rows.compactMap { $0[3].isFinite ? Int(($0[3] / 1e-4).rounded()) : nil }
        #expect(traceRows == Array((traceRows.first ?? 0)...(traceRows.last ?? 0)), "trace rows recorded: \(traceRows)")
        #expect(rows.allSatisfy { $0.count == 10 && $0[0].isFinite })
        let whole = rows.dropFirst().dropLast()
        #expect(whole.allSatisfy { $0.allSatisfy(\.isFinite) }, "a sensor missing from a row inside the recording")
        #expect(rows.first?[0] == 0)
        let start = try #require(whole.first)
        let startTime = original[Int((start[3] / 1e-4).rounded())][0] - start[0]
        for row in whole {
            let index = Int((row[3] / 1e-4).rounded())
            let source = original[index]
            // Times keep their spacing; acceleration comes back in m/s², +g on the up axis (z, face up).
            #expect(abs(row[0] - (source[0] - startTime)) < 2e-6, "t \(row[0]) for trace row \(index)")
            for column in 1..<10 { #expect(abs(row[column] - source[column]) < 1e-9, "column \(column) of trace row \(index): \(row[column]) vs \(source[column])") }
            #expect(abs((row[4] * row[4] + row[5] * row[5] + row[6] * row[6]).squareRoot() - Self.g) < 1e-9 && row[6] > 8)
        }

        // The recording plays back through motiond's replay source as the samples it holds.
        let replay = try await Emulation.run([Emulation.motiond, "--source", "replay:\(recording)", "--print-samples", "--json",
                                              "--count", "60", "--replay-fast", "--no-config"])
        #expect(replay.status == 0, "\(replay.stderr)")
        let accelerometer = replay.samples("accelerometer")
        #expect(accelerometer.count >= 19 && replay.samples("gyro").count >= 19 && replay.samples("magnetometer").count >= 19)
        for (sample, row) in zip(accelerometer, rows.filter { $0[4].isFinite }) {
            #expect(abs(sample.timestamp - row[0]) < 1e-9)
            // Core Motion's units and sign again: G, gravity-vector sign (face up: z ≈ −1).
            #expect(abs(sample.x + row[4] / Self.g) < 1e-12 && abs(sample.y + row[5] / Self.g) < 1e-12 && abs(sample.z + row[6] / Self.g) < 1e-12)
            #expect(sample.z < -0.8)
        }
        let fused = try await Self.motionctl(["fuse", "--input", recording, "--output", trace.directory.appendingPathComponent("q.csv").path])
        #expect(fused.status == 0, "\(fused.stderr)")
    }

    @Test("record: sensors sampled at different times get rows of their own, nan elsewhere, and replay unchanged")
    func recordSeparateSamples() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let directory = try Emulation.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = directory.appendingPathComponent("sim.csv").path
        let run = try await Self.motionctl(["record", recording, "--duration", "1", "--interval", "0.02", "--json", "--socket", daemon.socket, "--wait", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let counts = try #require(report["samples"] as? [String: Int])
        let total = counts.values.reduce(0, +)
        // The simulated device is a slate: no base accelerometer, no base_acc columns.
        #expect(Set(counts.keys) == ["accelerometer", "gyroscope", "magnetometer"] && counts.values.allSatisfy { $0 >= 40 }, "\(counts)")

        let rows = Self.rows(try String(contentsOfFile: recording, encoding: .utf8))
        #expect(report["rows"] as? Int == rows.count && rows.count >= total / 3 && rows.count <= total)
        let filled = rows.map { row in (0..<3).filter { row[1 + 3 * $0].isFinite } }
        #expect(filled.reduce(0) { $0 + $1.count } == total, "every sample in exactly one row")
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0[0] < $1[0] }, "one row per time")

        let replay = try await Emulation.run([Emulation.motiond, "--source", "replay:\(recording)", "--print-samples", "--json",
                                              "--count", "\(total)", "--replay-fast", "--no-config"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.samples("accelerometer").count == counts["accelerometer"] && replay.samples("gyro").count == counts["gyroscope"]
                && replay.samples("magnetometer").count == counts["magnetometer"])
    }

    @Test("record: samples of different sensors less than a microsecond apart share a row (the trace's resolution), so no two rows have the same time")
    func recordSubMicrosecondNeighbours() async throws {
        let server = try await MotionCtlDeadlineTests.FakeServer("neighbours")
        let recording = server.directory.appendingPathComponent("near.csv").path
        let run = try await Self.motionctl(["record", recording, "--duration", "1", "--interval", "0.02", "--socket", server.socket])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = Self.rows(try String(contentsOfFile: recording, encoding: .utf8))
        #expect(rows.count >= 20, "\(rows.count) rows")
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0[0] < $1[0] }, "one row per time")
        #expect(rows.dropFirst().dropLast().allSatisfy { $0[1...].allSatisfy(\.isFinite) }, "all three sensors in every row but the edges")
    }

    // MARK: calibrate

    /// A magnetometer swept through every direction: a spiral from +z to −z and back every 2 s,
    /// 48 µT plus a hard-iron offset, 100 Hz for 30 s (only magnetometer columns).
    static func sweptField() -> String {
        var lines = ["t,mag_x,mag_y,mag_z"]
        for i in 0..<3000 {
            let t = Double(i) / 100
            var u = t.truncatingRemainder(dividingBy: 2) / 2
            if Int(t / 2) % 2 == 1 { u = 1 - u }
            let polar = Double.pi * u, azimuth = 16 * Double.pi * u
            let field = [sin(polar) * cos(azimuth), sin(polar) * sin(azimuth), cos(polar)].map { 48 * $0 }
            lines.append("\(t),\(field[0] + 6),\(field[1] - 4),\(field[2] + 3)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("calibrate: the accuracy rises to high as the field is swept through every direction; --accept-medium stops at medium")
    func calibrate() async throws {
        let trace = try Self.write(Self.sweptField(), named: "swept.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let daemon = try ServedDaemon(["--source", "replay:\(trace.path)"])
        defer { _ = daemon.stop() }
        let run = try await Self.motionctl(["calibrate", "--timeout", "20", "--socket", daemon.socket, "--wait", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let levels = run.stdout.split(separator: "\n").filter { $0.hasPrefix("accuracy ") }.map { String($0.split(separator: " ")[1]) }
        #expect(levels.first == "uncalibrated" && levels.last == "high", "\(run.stdout)")
        let ranks = levels.compactMap { MagneticFieldCalibrationAccuracy(name: $0)?.rawValue }
        #expect(ranks.count == levels.count && ranks == ranks.sorted() && Set(ranks).count == ranks.count, "\(levels)")
        #expect(run.stdout.contains("figure eight") && run.stdout.hasSuffix("calibrated: the compass accuracy is high\n"))

        let medium = try ServedDaemon(["--source", "replay:\(trace.path)"])
        defer { _ = medium.stop() }
        let json = try await Self.motionctl(["calibrate", "--accept-medium", "--json", "--timeout", "20", "--socket", medium.socket, "--wait", "10"])
        #expect(json.status == 0, "\(json.stderr)")
        let messages = json.jsonLines
        #expect(messages.count == json.stdout.split(separator: "\n").count && messages.allSatisfy { $0["type"] as? String == "calibration" })
        #expect(messages.last?["accuracy"] as? String == "medium" && messages.last?["calibrationNeeded"] as? Bool == false, "\(json.stdout)")
    }

    @Test("calibrate: the simulated device only turns between a few poses, so it stays uncalibrated: a timeout, exit 1; no magnetometer, exit 1")
    func calibrateFailures() async throws {
        let daemon = try ServedDaemon(["--source", "sim:"])
        defer { _ = daemon.stop() }
        let run = try await Self.motionctl(["calibrate", "--timeout", "1.5", "--socket", daemon.socket, "--wait", "10"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("accuracy uncalibrated after"), "\(run.stdout)")
        #expect(run.stderr.contains("not calibrated within 1.5 s: the accuracy is uncalibrated, high is needed"), "\(run.stderr)")

        let trace = try Self.write("t,acc_x,acc_y,acc_z\n" + (0..<3000).map { "\(Double($0) / 100),0,0,9.80665" }.joined(separator: "\n"), named: "acc.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let noMagnetometer = try ServedDaemon(["--source", "replay:\(trace.path)"])
        defer { _ = noMagnetometer.stop() }
        let refused = try await Self.motionctl(["calibrate", "--socket", noMagnetometer.socket, "--wait", "10"])
        #expect(refused.status == 1 && refused.stderr.contains("no magnetometer, so no compass to calibrate"), "\(refused.stderr)")
    }

    // MARK: plot

    /// The simulated IMU's standard script (rest, the four screen orientations, a shake, face
    /// up, face down), 50 Hz for 24 s, as a trace in trace units.
    static func scriptTrace() -> String {
        var imu = SimulatedIMU()
        var lines = [header]
        for i in 0..<1200 {
            let t = Double(i) / 50
            let gyro = imu.sample(.gyroscope, at: t, timestamp: t).vector
            let acc = imu.sample(.accelerometer, at: t, timestamp: t).vector * -g
            let mag = imu.sample(.magnetometer, at: t, timestamp: t).vector
            lines.append(([t] + gyro.components + acc.components + mag.components).map { "\($0)" }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The parts of an SVG document the tests look at, read with an XML parser (so it must be
    /// well-formed).
    final class SVGSummary: NSObject, XMLParserDelegate {
        var groups: [String] = []
        /// Points of each polyline, by the group it is in.
        var polylines: [String: [[(Double, Double)]]] = [:]
        var texts: [String] = []
        var size: (Double, Double) = (0, 0)
        private var text: String?

        init(_ data: Data) throws {
            super.init()
            let parser = XMLParser(data: data)
            parser.delegate = self
            guard parser.parse() else { throw TestFailure("not well-formed XML: \(parser.parserError.map(String.init(describing:)) ?? "?")") }
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
            switch name {
            case "svg":
                size = (Double(attributes["width"] ?? "") ?? 0, Double(attributes["height"] ?? "") ?? 0)
            case "g":
                groups.append(attributes["id"] ?? "")
            case "polyline":
                let points = (attributes["points"] ?? "").split(separator: " ").map { pair -> (Double, Double) in
                    let xy = pair.split(separator: ",").map { Double(String($0)) ?? .nan }
                    return (xy.first ?? .nan, xy.count == 2 ? xy[1] : .nan)
                }
                polylines[groups.last ?? "", default: []].append(points)
            case "text":
                text = ""
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            text? += string
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text", let text { texts.append(text) }
            text = nil
        }
    }

    @Test("plot: stacked panels (attitude, heading, sensors, events) with axes, legends and lines, as well-formed SVG")
    func plotSVG() async throws {
        let trace = try Self.write(Self.scriptTrace(), named: "script.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let output = trace.directory.appendingPathComponent("plot.svg").path
        let run = try await Self.motionctl(["plot", trace.path, "--output", output, "--fuse"])
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try SVGSummary(Data(contentsOf: URL(fileURLWithPath: output)))
        let panels = ["panel-attitude", "panel-heading", "panel-acceleration", "panel-rotation-rate", "panel-magnetic-field", "panel-events"]
        #expect(svg.groups == panels)
        for panel in panels.dropLast() {
            let lines = svg.polylines[panel] ?? []
            #expect(!lines.isEmpty && lines.allSatisfy { $0.count >= 2 }, "\(panel): \(lines.count) lines")
            let points = lines.flatMap { $0 }
            #expect(points.allSatisfy { $0.0 >= 0 && $0.0 <= svg.size.0 && $0.1 >= 0 && $0.1 <= svg.size.1 }, "\(panel): a point outside the image")
        }
        // A 24 s trace spans the time axis: the lines reach from its left to its right end.
        let acceleration = (svg.polylines["panel-acceleration"] ?? []).flatMap { $0 }.map(\.0)
        #expect((acceleration.max() ?? 0) - (acceleration.min() ?? 0) > 800)
        for label in ["Attitude (°, xMagneticNorthZVertical)", "Heading (° from magnetic north)", "Acceleration (G)", "Rotation rate (rad/s)",
                      "Magnetic field (µT)", "roll", "pitch", "yaw", "heading", "x", "y", "z", "time (s)", "orientation", "shake", "gesture", "tilt",
                      "portrait", "landscapeLeft", "landscapeRight", "portraitUpsideDown", "faceDown", "began", "ended", "180", "-90", "20"] {
            #expect(svg.texts.contains(label), "no text '\(label)'")
        }
        #expect(svg.texts.contains { $0.hasPrefix("Events (") && $0 != "Events (0)" })

        let plain = trace.directory.appendingPathComponent("sensors.svg").path
        let sensors = try await Self.motionctl(["plot", trace.path, "--output", plain])
        #expect(sensors.status == 0, "\(sensors.stderr)")
        #expect(try SVGSummary(Data(contentsOf: URL(fileURLWithPath: plain))).groups == Array(panels.dropFirst(2)))

        let wrong = try await Self.motionctl(["plot", trace.path, "--output", trace.directory.appendingPathComponent("plot.pdf").path])
        #expect(wrong.status == 64 && wrong.stderr.contains(".svg or .png"))
    }

    @Test("plot: values at the ends of the finite numbers (±1e308, a constant 1e308, −1.8e308…1.8e308) are drawn at once, inside their panels, with tick labels",
          arguments: [[1e308, -1e308], [1e308], [-Double.greatestFiniteMagnitude, Double.greatestFiniteMagnitude, 0]])
    func plotExtremeValues(values: [Double]) async throws {
        // Every axis of every sensor; the rotation rate and the field are plotted as they are.
        let rows = (0..<50).map { i in
            "\(Double(i) / 50)," + Array(repeating: "\(values[i % values.count])", count: 9).joined(separator: ",")
        }
        let trace = try Self.write(([Self.header] + rows).joined(separator: "\n") + "\n", named: "extreme.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let output = trace.directory.appendingPathComponent("plot.svg").path
        let run = try await Emulation.run([MotionCtlTests.motionctl, "plot", trace.path, "--output", output], timeout: 20)
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try SVGSummary(Data(contentsOf: URL(fileURLWithPath: output)))
        for panel in ["panel-acceleration", "panel-rotation-rate", "panel-magnetic-field"] {
            let points = (svg.polylines[panel] ?? []).flatMap { $0 }
            #expect(!points.isEmpty && points.allSatisfy { $0.0 >= 0 && $0.0 <= svg.size.0 && $0.1 >= 0 && $0.1 <= svg.size.1 },
                    "\(panel): \(points.prefix(5))")
        }
        #expect(svg.texts.contains { $0.hasSuffix("e+308") }, "no tick label near 1e308: \(svg.texts)")
    }

    @Test("plot: rows from t = −1e308 to 1e308 s, a span no number holds, are refused at once, not drawn at NaN")
    func plotTimeSpanOverflow() async throws {
        let trace = try Self.write("t,acc_x,acc_y,acc_z\n-1e308,0,0,9.8\n0,0,0,9.8\n1e308,0,0,9.8\n", named: "eons.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let run = try await Emulation.run([MotionCtlTests.motionctl, "plot", trace.path, "--output", trace.directory.appendingPathComponent("plot.svg").path],
                                          timeout: 20)
        #expect(run.status == 64 && run.stderr.contains("\(trace.path): the rows span more seconds than a number holds"), "\(run.stderr)")
    }

    static let rsvgConvert = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].contains { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("plot: PNG through rsvg-convert", .enabled(if: rsvgConvert, "rsvg-convert not installed (Debian package librsvg2-bin)"))
    func plotPNG() async throws {
        let trace = try Self.write(Self.scriptTrace(), named: "script.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        let output = trace.directory.appendingPathComponent("plot.png").path
        let run = try await Self.motionctl(["plot", trace.path, "--output", output, "--fuse"])
        #expect(run.status == 0, "\(run.stderr)")
        let png = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] && png.count > 10_000)
        // Nothing is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: trace.directory.path).sorted() == ["plot.png", "script.csv"])
    }

    @Test("plot: without rsvg-convert a PNG is refused, naming the package")
    func plotPNGWithoutTool() async throws {
        let trace = try Self.write(Self.scriptTrace(), named: "script.csv")
        defer { try? FileManager.default.removeItem(at: trace.directory) }
        var environment = RunningProcess.plainEnvironment
        environment["PATH"] = trace.directory.path
        let output = trace.directory.appendingPathComponent("plot.png").path
        let run = try await Emulation.run([MotionCtlTests.motionctl, "plot", trace.path, "--output", output], environment: environment)
        #expect(run.status == 1 && run.stderr.contains("apt-get install librsvg2-bin"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
