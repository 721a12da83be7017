import FoundationEssentials
import Glibc
import Logging
@testable import MotionCore
import MotionSync
import Testing
@testable import MotionDaemon

/// The persisted engine state: written without following anything planted at its temporary
/// path, and restored only when it is something the engine could have learned.
@Suite("Engine state store")
struct EngineStateStoreTests {
    /// A state the engine could have saved: a small bias, a learned calibration.
    static let plausible: MotionEngine.PersistentState = {
        var calibration = MagnetometerCalibrator.State()
        calibration.calibration = MagnetometerCalibration(offset: Vector3(25, -40, 12), softIron: .identity, fieldStrength: 48)
        calibration.accuracy = .low
        calibration.fitAccuracy = .low
        calibration.residual = 0.03
        calibration.binCentre = Vector3(25, -40, 12)
        return MotionEngine.PersistentState(gyroscopeBias: Vector3(0.01, -0.005, 0.008), magnetometerCalibration: calibration,
                                            gyroscopeCorrection: Matrix3(rows: Vector3(1, 0, 0), Vector3(0, -1, 0), Vector3(0, 0, 1)),
                                            sensorLags: MotionEngine.SensorLags(accelerometer: 0.004, magnetometer: 0.011))
    }()

    @Test("a state saved before the sensor lags were (no sensorLags in the file) loads as it is, the lags to be learned")
    func savedBeforeSensorLags() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.json").path
        var older = Self.plausible
        older.sensorLags = nil
        let written = try JSONEncoder().encode(older)
        #expect(!String(decoding: written, as: UTF8.self).contains("sensorLags"))
        try written.write(to: URL(fileURLWithPath: path))
        let log = LogRecorder()
        #expect(EngineStateStore(path: path, logger: log.logger).load() == older)
        #expect(log.messages(.error) == [])
    }

    @Test("a sensor lag moving by 1 ms is worth a write, by 0.1 ms not; learning them for the first time is")
    func lagChanges() {
        var moved = Self.plausible
        moved.sensorLags?.magnetometer += 0.001
        #expect(EngineStateStore.differs(moved, from: Self.plausible))
        moved = Self.plausible
        moved.sensorLags?.accelerometer += 0.0001
        #expect(!EngineStateStore.differs(moved, from: Self.plausible))
        var unknown = Self.plausible
        unknown.sensorLags = nil
        #expect(EngineStateStore.differs(Self.plausible, from: unknown))
    }

    @Test("a symlink planted at the temporary path is not followed: its target stays as it was, the state is saved")
    func symlinkAtTemporaryPath() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.json").path
        let victim = directory.appendingPathComponent("victim").path
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        #expect(symlink(victim, path + ".tmp") == 0)

        let log = LogRecorder()
        let store = EngineStateStore(path: path, logger: log.logger)
        store.save(Self.plausible)

        #expect(try String(decoding: Data(contentsOf: URL(fileURLWithPath: victim)), as: UTF8.self) == "precious\n")
        #expect(log.messages(.error) == [])
        #expect(EngineStateStore(path: path, logger: log.logger).load() == Self.plausible)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        // The state file is the store's own regular file, readable by nobody else.
        var info = stat()
        #expect(lstat(path, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFREG)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test("a temporary file left by a crash is replaced")
    func staleTemporaryFile() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.json").path
        try Data("{\"half\":".utf8).write(to: URL(fileURLWithPath: path + ".tmp"))
        let log = LogRecorder()
        EngineStateStore(path: path, logger: log.logger).save(Self.plausible)
        #expect(log.messages(.error) == [])
        #expect(EngineStateStore(path: path, logger: log.logger).load() == Self.plausible)
    }

    /// Mounts a small tmpfs on `directory`, read-only unless `writable` (again, with `remount`):
    /// a read-only file system stops root too, as a permission would not.
    static func mountTmpfs(on directory: String, writable: Bool, remount: Bool = false) -> Bool {
        let flags = UInt(writable ? 0 : MS_RDONLY) | UInt(remount ? MS_REMOUNT : 0)
        return "size=64k".withCString { mount("tmpfs", directory, "tmpfs", flags, $0) } == 0
    }

    @Test("a read-only state directory: one error naming the directory and why, not one a save; a save that works again says so")
    func readOnlyDirectory() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try #require(Self.mountTmpfs(on: directory.path, writable: false), "mount: \(String(cString: strerror(errno)))")
        defer { umount2(directory.path, Int32(MNT_DETACH)) }
        let path = directory.appendingPathComponent("engine.json").path

        let log = LogRecorder()
        let store = EngineStateStore(path: path, minimumInterval: 1, logger: log.logger)
        var state = Self.plausible
        for second in 0..<4 {
            state.gyroscopeBias.x += 0.002
            store.saveIfChanged(state, now: Double(second))
        }
        #expect(log.messages(.error) == ["cannot save the engine state to \(path): \(directory.path) is read-only (Read-only file system)"])

        try #require(Self.mountTmpfs(on: directory.path, writable: true, remount: true), "remount: \(String(cString: strerror(errno)))")
        state.gyroscopeBias.x += 0.002
        store.saveIfChanged(state, now: 4)
        #expect(log.messages(.info) == ["engine state saved to \(path) again"])
        #expect(log.messages(.error).count == 1)
        #expect(EngineStateStore(path: path, logger: log.logger).load() == state)
    }

    @Test("a FIFO or a link to /dev/zero as the state file is moved aside as not a regular file, without waiting on it",
          arguments: ["FIFO", "link to /dev/zero"])
    func notRegularFile(kind: String) throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.json").path
        try #require((kind == "FIFO" ? mkfifo(path, 0o600) : symlink("/dev/zero", path)) == 0)

        let log = LogRecorder()
        #expect(EngineStateStore(path: path, logger: log.logger).load() == nil)
        #expect(log.messages(.error) == ["cannot read engine state \(path): not a regular file; moved it to \(path).corrupt and starting uncalibrated"])
        var info = stat()
        #expect(lstat(path + ".corrupt", &info) == 0 && lstat(path, &info) != 0)
    }

    /// A saved state the engine could never have learned, and the field its error must name.
    struct Implausible: Sendable, CustomTestStringConvertible {
        var what: String
        var field: String
        var change: @Sendable (inout MotionEngine.PersistentState) -> Void
        var testDescription: String { what }
    }

    @Test("an implausible saved state is moved aside to PATH.corrupt with the field named, and the engine starts fresh", arguments: [
        Implausible(what: "a bias of 1e308 rad/s", field: "gyroscopeBias") { $0.gyroscopeBias = Vector3(1e308, 0, 0) },
        Implausible(what: "a bias of 0.1 rad/s (beyond the estimator's 2 °/s clip)", field: "gyroscopeBias") { $0.gyroscopeBias = Vector3(0, 0.1, 0) },
        Implausible(what: "a hard-iron offset of 1e308 µT", field: "magnetometerCalibration.calibration.offset") {
            $0.magnetometerCalibration.calibration.offset = Vector3(0, 0, 1e308)
        },
        Implausible(what: "a field strength of 1e300 µT", field: "magnetometerCalibration.calibration.fieldStrength") {
            $0.magnetometerCalibration.calibration.fieldStrength = 1e300
        },
        Implausible(what: "a soft iron of determinant 8", field: "magnetometerCalibration.calibration.softIron") {
            $0.magnetometerCalibration.calibration.softIron = Matrix3.identity * 2
        },
        Implausible(what: "a soft iron of axis ratio 100", field: "magnetometerCalibration.calibration.softIron") {
            $0.magnetometerCalibration.calibration.softIron = Matrix3(rows: Vector3(10, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 0.1))
        },
        Implausible(what: "a retained reading of 1e308 µT", field: "magnetometerCalibration.samples[3]") {
            $0.magnetometerCalibration.samples[3] = MagnetometerCalibrator.RetainedSample(field: Vector3(1e308, 0, 0), time: 1)
        },
        Implausible(what: "a sample count at Int.max", field: "magnetometerCalibration.samplesSinceFit") {
            $0.magnetometerCalibration.samplesSinceFit = .max
        },
        Implausible(what: "a high accuracy without a calibration", field: "magnetometerCalibration.accuracy") {
            $0.magnetometerCalibration.calibration = .identity
            $0.magnetometerCalibration.accuracy = .high
        },
        Implausible(what: "a residual of -1", field: "magnetometerCalibration.residual") { $0.magnetometerCalibration.residual = -1 },
        Implausible(what: "an axis correction that scales", field: "gyroscopeCorrection") { $0.gyroscopeCorrection = Matrix3.identity * 1e308 },
        Implausible(what: "an accelerometer lag of 1 s", field: "sensorLags.accelerometer") { $0.sensorLags?.accelerometer = 1 },
        Implausible(what: "a magnetometer lag of −5 ms", field: "sensorLags.magnetometer") { $0.sensorLags?.magnetometer = -0.005 },
    ])
    func implausibleState(bad: Implausible) throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.json").path
        var state = Self.plausible
        bad.change(&state)
        let written = try JSONEncoder().encode(state)
        try written.write(to: URL(fileURLWithPath: path))

        let log = LogRecorder()
        let store = EngineStateStore(path: path, logger: log.logger)
        #expect(store.load() == nil)
        let errors = log.messages(.error)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("\(bad.field):") == true, "\(errors)")
        #expect(errors.first?.contains(path + ".corrupt") == true, "\(errors)")
        // Kept for a person to look at, not overwritten by the fresh engine's first save.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".corrupt")) == written)
        store.save(MotionEngine().persistentState)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".corrupt")) == written)
        #expect(EngineStateStore(path: path, logger: log.logger).load() == MotionEngine().persistentState)
    }

    @Test("not-a-number and infinity are refused wherever they are")
    func nonFinite() {
        for value in [Double.nan, .infinity, -.infinity] {
            var state = Self.plausible
            state.gyroscopeBias.z = value
            #expect(state.implausibility()?.hasPrefix("gyroscopeBias:") == true)
            state = Self.plausible
            state.magnetometerCalibration.calibration.softIron = Matrix3(rows: Vector3(1, 0, 0), Vector3(0, value, 0), Vector3(0, 0, 1))
            #expect(state.implausibility()?.hasPrefix("magnetometerCalibration.calibration.softIron:") == true)
            state = Self.plausible
            state.magnetometerCalibration.deviation = value
            #expect(state.implausibility()?.hasPrefix("magnetometerCalibration.deviation:") == true)
            state = Self.plausible
            state.magnetometerCalibration.lastTime = value
            #expect(state.implausibility()?.hasPrefix("magnetometerCalibration.lastTime:") == true)
            state = Self.plausible
            state.sensorLags?.accelerometer = value
            #expect(state.implausibility()?.hasPrefix("sensorLags.accelerometer:") == true)
        }
        #expect(Self.plausible.implausibility() == nil)
        #expect(MotionEngine().persistentState.implausibility() == nil)
    }
}

/// Keeps what a logger is given, to check what a person would read in the log.
final class LogRecorder: Sendable {
    private let entries = Lock<[(Logger.Level, String)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    func messages(_ level: Logger.Level) -> [String] {
        entries.withLock { $0.filter { $0.0 == level }.map(\.1) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel = Logger.Level.trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.entries.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}
