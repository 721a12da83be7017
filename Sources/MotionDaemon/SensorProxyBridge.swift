import Logging
import MotionDBus
import MotionProtocol
import MotionSync

/// The D-Bus face (`net.hadess.SensorProxy`, ``SensorProxyService``) wired to the pipeline:
/// one of the daemon's own subscribers (``LocalRecipient/sensorProxy``). It always follows every
/// sensor's availability (the `Has*` properties); a sensor's first D-Bus claim subscribes it to
/// the streams that sensor's properties need, its last release unsubscribes — so sensors are
/// read only while someone claims them, beside whatever socket clients ask for. The messages
/// become properties through ``SensorProxyModel``.
final class SensorProxyBridge: LocalSubscriber {
    private let pipeline: Pipeline
    private let model: Lock<SensorProxyModel>
    private let service: SensorProxyService

    init(pipeline: Pipeline, logger: Logger) {
        let model = Lock(SensorProxyModel())
        self.pipeline = pipeline
        self.model = model
        service = SensorProxyService(backend: Claims(pipeline: pipeline), logger: logger)
    }

    /// Follows availability and offers the name on the bus (waiting for it while another
    /// process owns it).
    func start() {
        pipeline.attach(self, as: .sensorProxy)
        pipeline.subscribe(.sensorProxy, to: .init(stream: .availability))
        service.start()
    }

    /// Gives the name up and ends every subscription of the face.
    func stop() {
        service.stop()
        pipeline.detach(.sensorProxy)
    }

    /// The pipeline's messages for the face (on the pipeline's queue): the properties they
    /// change go out as `PropertiesChanged`, and pending claims of sensors they bring a reading
    /// of are answered.
    func deliver(_ messages: [ServerMessage]) {
        let (state, readings) = model.withLock { model in
            let readings = model.take(messages)
            return (model.state, readings)
        }
        service.update(state, readings: readings)
    }

    /// Claims become subscriptions of the face.
    private struct Claims: SensorProxyBackend {
        let pipeline: Pipeline

        func startReading(_ sensor: ProxySensor) {
            for subscription in Self.subscriptions(sensor) { pipeline.subscribe(.sensorProxy, to: subscription) }
        }

        func stopReading(_ sensor: ProxySensor) {
            for subscription in Self.subscriptions(sensor) { pipeline.unsubscribe(.sensorProxy, from: subscription.stream) }
        }

        /// What each sensor's properties are made of: orientation and tilt at the detectors'
        /// default rate (at the rest rate while the device lies still); the heading at 10 Hz, sent
        /// when it turns by a degree; light every ``lightInterval``, proximity every
        /// ``proximityInterval``.
        static func subscriptions(_ sensor: ProxySensor) -> [ClientRequest.Subscription] {
            switch sensor {
            case .accelerometer: return [.init(stream: .orientation), .init(stream: .tilt)]
            case .compass: return [.init(stream: .heading, interval: 0.1)]
            case .light: return [.init(stream: .light, interval: lightInterval)]
            case .proximity: return [.init(stream: .proximity, interval: proximityInterval)]
            }
        }

        /// iio-sensor-proxy polls light every 800 ms (or its integration time): the same
        /// pace, so auto-brightness costs no more wake-ups than it did.
        static let lightInterval = 0.8
        /// Blanking the screen when a phone meets an ear should not wait: 5 Hz (iio-sensor-proxy
        /// polls every 700 ms).
        static let proximityInterval = 0.2
    }
}
