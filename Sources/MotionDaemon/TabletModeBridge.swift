import Logging
import MotionCore
import MotionProtocol
import MotionSync

/// The tablet-mode switch for the desktop (`[convertible]`), wired to the pipeline: one of the
/// daemon's own subscribers (``LocalRecipient/tabletMode``). It follows the sensors' availability; while a base
/// accelerometer is there it subscribes to the posture (every 0.1 s: a fold is reported well
/// within 300 ms), and as the posture enters or leaves one of `postures` it reports
/// `SW_TABLET_MODE` through a uinput device (``TabletModeSwitch``), created at the first
/// posture — a machine without a base accelerometer never opens `/dev/uinput`. A device that
/// cannot be created is said once and not tried again until a reload or restart, and the
/// posture subscription ends (the two accelerometers are no longer read for it); the streams
/// go on regardless. Messages come on the pipeline's queue; start and stop on the daemon's.
final class TabletModeBridge: LocalSubscriber {
    private struct State {
        var subscribed = false
        var device: TabletModeSwitch?
        var on: Bool?
        var failed = false
    }

    private let pipeline: Pipeline
    private let postures: Set<Posture>
    private let devicePath: String
    private let logger: Logger
    private let state = Lock(State())

    /// The posture subscription: the accelerometer period the posture needs.
    static let interval = 0.1

    init(pipeline: Pipeline, postures: Set<Posture>, devicePath: String = "/dev/uinput", logger: Logger) {
        self.pipeline = pipeline
        self.postures = postures
        self.devicePath = devicePath
        self.logger = logger
    }

    /// Follows the sensors' availability (the posture follows the base accelerometer).
    func start() {
        pipeline.attach(self, as: .tabletMode)
        pipeline.subscribe(.tabletMode, to: .init(stream: .availability))
    }

    /// Ends the subscriptions and removes the device (the desktop sees the switch go).
    func stop() {
        pipeline.detach(.tabletMode)
        state.withLock { $0 = State() }
    }

    /// The pipeline's messages for the switch (on the pipeline's queue).
    func deliver(_ messages: [ServerMessage]) {
        for message in messages {
            switch message {
            case .availability(.baseAccelerometer, let sensor):
                follow(baseAccelerometer: sensor.available)
            case .event(.posture(let posture, _)):
                report(posture)
            default:
                break
            }
        }
    }

    /// Subscribes to the posture while a base accelerometer is there and the switch has not
    /// failed, and not otherwise (the posture would read both accelerometers for nothing).
    private func follow(baseAccelerometer available: Bool) {
        let change = state.withLock { state -> Bool? in
            let wanted = available && !state.failed
            guard wanted != state.subscribed else { return nil }
            state.subscribed = wanted
            return wanted
        }
        guard let subscribe = change else { return }
        if subscribe {
            pipeline.subscribe(.tabletMode, to: .init(stream: .posture, interval: Self.interval))
        } else {
            pipeline.unsubscribe(.tabletMode, from: .posture)
        }
    }

    private func report(_ posture: Posture) {
        guard posture != .unknown else { return }
        let on = postures.contains(posture)
        let failed = state.withLock { state -> Bool in
            guard !state.failed, state.on != on else { return false }
            do throws(SystemError) {
                if let device = state.device {
                    try device.report(on)
                } else {
                    state.device = try TabletModeSwitch(path: devicePath, on: on)
                    logger.notice("created the tablet-mode switch '\(TabletModeSwitch.name)' for the desktop (tablet mode in: \(postures.map(\.rawValue).sorted().joined(separator: ", ")))")
                }
                state.on = on
                logger.info("posture \(posture): tablet mode \(on ? "on" : "off")")
            } catch {
                state.failed = true
                state.device = nil
                logger.warning("no tablet-mode switch for the desktop: \(error) (the posture stream goes on; docs/EVENTS.md, \"Tablet mode\")")
                return true
            }
            return false
        }
        if failed { follow(baseAccelerometer: false) }
    }
}
