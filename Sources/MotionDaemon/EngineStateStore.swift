import FoundationEssentials
import Logging
import MotionCore

/// Keeps the motion engine's persistent state (gyroscope bias, magnetometer calibration,
/// applied axis correction) in a JSON file, so a restarted daemon does not come back
/// uncalibrated. Writes are atomic (temporary file + rename). A file that cannot be decoded is
/// never overwritten blindly: it is moved aside to `PATH.corrupt` with an error naming it, and
/// the engine starts fresh.
struct EngineStateStore {
    let path: String
    let logger: Logger

    /// The saved state, or nil when there is none (or it was unreadable, which is logged).
    func load() -> MotionEngine.PersistentState? {
        guard FileManager.default.fileExists(atPath: path) else {
            logger.info("no saved engine state at \(path): starting uncalibrated")
            return nil
        }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let state = try JSONDecoder().decode(MotionEngine.PersistentState.self, from: data)
            logger.info("engine state restored from \(path): magnetometer calibration \(state.magnetometerCalibration.accuracy)")
            return state
        } catch {
            let aside = path + ".corrupt"
            try? FileManager.default.removeItem(atPath: aside)
            let moved = (try? FileManager.default.moveItem(atPath: path, toPath: aside)) != nil
            logger.error("cannot read engine state \(path): \(error); \(moved ? "moved it to \(aside) and " : "")starting uncalibrated")
            return nil
        }
    }

    /// Saves `state` atomically; failures are logged, never fatal.
    func save(_ state: MotionEngine.PersistentState) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(state).write(to: url, options: .atomic)
        } catch {
            logger.error("cannot save engine state to \(path): \(error)")
        }
    }
}
