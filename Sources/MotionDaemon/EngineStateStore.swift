import FoundationEssentials
import Glibc
import Logging
import MotionSync
import MotionCore
import MotionIIO

/// Keeps the motion engine's persistent state (gyroscope bias, magnetometer calibration,
/// applied axis correction) in a JSON file, so a restarted daemon does not come back
/// uncalibrated — even after a crash or `kill -9`, since changes are saved as they happen (at
/// most every `minimumInterval` seconds) and again at exit.
///
/// Writes are atomic and durable: a temporary file in the same directory, fsync, rename, fsync
/// of the directory. The temporary file (`PATH.tmp`) is always created afresh, never opened
/// through whatever is at that path: a symlink planted there is removed, not followed. A file
/// that cannot be decoded, or whose state the engine could not have learned, is never
/// overwritten: it is moved aside to `PATH.corrupt` with an error naming it (and the field at
/// fault) and the engine starts fresh; if it cannot even be moved, saving stays off for this
/// run. A save that fails is logged once with its reason, again only when the reason changes
/// (a read-only directory fails every save interval alike). Used from the pipeline queue (and
/// at start and exit); its bookkeeping sits behind a lock all the same, so the compiler checks
/// it.
final class EngineStateStore: Sendable {
    let path: String
    /// Seconds between saves of a changing state.
    let minimumInterval: Double
    private let logger: Logger
    private struct Record {
        var lastSaved: MotionEngine.PersistentState?
        var lastSaveTime = -Double.infinity
        var savingDisabled = false
        /// Why the last save failed, as logged; nil after a save that worked.
        var failure: String?
    }
    private let record = Lock(Record())

    init(path: String, minimumInterval: Double = 30, logger: Logger) {
        self.path = path
        self.minimumInterval = minimumInterval
        self.logger = logger
    }

    /// The saved state, or nil when there is none (or it was unusable, which is logged). A file
    /// that cannot be decoded, or that holds a state the engine running with `configuration`
    /// could never have learned (``MotionEngine/PersistentState/implausibility(for:)``: a bias
    /// of 1e308 rad/s, a singular soft iron…), is moved aside to `PATH.corrupt`.
    func load(for configuration: MotionEngine.Configuration = .init()) -> MotionEngine.PersistentState? {
        guard FileManager.default.fileExists(atPath: path) else {
            logger.info("no saved engine state at \(path): starting uncalibrated")
            return nil
        }
        let (problem, reason): (String, String)
        do {
            // Not through Foundation, which calls a FIFO or a device "Permission denied".
            let data = Data(try RegularFile.contents(of: path))
            let state = try JSONDecoder().decode(MotionEngine.PersistentState.self, from: data)
            if let implausibility = state.implausibility(for: configuration) {
                (problem, reason) = ("cannot use", "not a state the engine learns: \(implausibility)")
            } else {
                logger.info("engine state restored from \(path): magnetometer calibration \(state.magnetometerCalibration.accuracy)")
                record.withLock { $0.lastSaved = state }
                return state
            }
        } catch {
            (problem, reason) = ("cannot read", "\(error)")
        }
        let aside = path + ".corrupt"
        try? FileManager.default.removeItem(atPath: aside)
        if (try? FileManager.default.moveItem(atPath: path, toPath: aside)) != nil {
            logger.error("\(problem) engine state \(path): \(reason); moved it to \(aside) and starting uncalibrated")
        } else {
            record.withLock { $0.savingDisabled = true }
            logger.error("\(problem) engine state \(path): \(reason); cannot move it aside either, so it is left as it is and nothing is saved this run")
        }
        return nil
    }

    /// Saves `state` if it changed in a way worth keeping since the last save and the last save
    /// is at least `minimumInterval` old; `now` is any monotonic clock in seconds.
    func saveIfChanged(_ state: MotionEngine.PersistentState, now: Double) {
        let due = record.withLock { record in
            guard now - record.lastSaveTime >= minimumInterval, Self.differs(state, from: record.lastSaved) else { return false }
            record.lastSaveTime = now
            return true
        }
        if due { save(state) }
    }

    /// Saves `state` now (at exit); failures are logged, never fatal.
    func save(_ state: MotionEngine.PersistentState) {
        guard !record.withLock({ $0.savingDisabled }) else { return }
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try write(encoder.encode(state))
            let recovered = record.withLock { record in
                defer { (record.lastSaved, record.failure) = (state, nil) }
                return record.failure != nil
            }
            if recovered {
                logger.info("engine state saved to \(path) again")
            } else {
                logger.debug("engine state saved to \(path)")
            }
        } catch {
            let reason = reason(error)
            let changed = record.withLock { record in
                defer { record.failure = reason }
                return record.failure != reason
            }
            if changed { logger.error("cannot save the engine state to \(path): \(reason)") }
        }
    }

    /// A change worth a write: any calibration or correction change, the gyroscope bias moving
    /// by more than 0.001 rad/s (0.06 °/s) on an axis, or a sensor lag by more than 0.5 ms; not
    /// the constant jitter of either.
    static func differs(_ state: MotionEngine.PersistentState, from saved: MotionEngine.PersistentState?) -> Bool {
        guard let saved else { return true }
        let bias = state.gyroscopeBias - saved.gyroscopeBias
        let lags: Bool = switch (state.sensorLags, saved.sensorLags) {
        case let (now?, before?): now.distance(to: before) > 0.0005
        case (nil, nil): false
        default: true
        }
        return state.magnetometerCalibration != saved.magnetometerCalibration || state.gyroscopeCorrection != saved.gyroscopeCorrection
            || max(abs(bias.x), abs(bias.y), abs(bias.z)) > 0.001 || lags
    }

    /// Why a save failed, in words. On a read-only file system every step fails so, even
    /// removing a temporary file that is not there: what to name is the directory.
    private func reason(_ error: any Error) -> String {
        guard let error = error as? SystemError, error.code == EROFS else { return "\(error)" }
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        return "\(directory) is read-only (\(error.reason))"
    }

    /// Writes `data` to `path` durably: temporary file, fsync, rename, fsync of the directory.
    private func write(_ data: Data) throws {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let temporary = path + ".tmp"
        // Whatever is at the temporary path (a file left by a crash, or a symlink someone
        // planted) is removed, not opened: O_EXCL creates a new file or fails, and O_NOFOLLOW
        // refuses a symlink that reappears in between, so nothing else is ever written to.
        if unlink(temporary) != 0 && errno != ENOENT { throw SystemError.last("remove the stale \(temporary)") }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError.last("create \(temporary)") }
        var failure: SystemError?
        let written = data.withUnsafeBytes { writeAll($0, to: fd) }
        if written != 0 { failure = SystemError(written, "write \(temporary)") }
        if failure == nil && fsync(fd) != 0 { failure = SystemError.last("fsync \(temporary)") }
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let error = SystemError.last("rename into place \(path)")
            unlink(temporary)
            throw error
        }
        let directoryFD = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }
}
