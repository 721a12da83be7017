import Dispatch
import Foundation
import MotionCore
import MotionProtocol

/// Device orientation (as `UIDevice`), shakes (as UIKit's responders) and compass calibration
/// (as `CLLocationManager`'s calibration prompt).
extension MotionManager {
    /// Posted on `NotificationCenter.default` (object: the manager) when the device orientation
    /// changes while notifications are being generated, like
    /// `UIDevice.orientationDidChangeNotification`. The new orientation is in `userInfo` under
    /// ``orientationUserInfoKey``. It is posted from a private serial queue, never the manager's,
    /// in the order of the changes: an observer (on any queue, or with none) may read
    /// ``orientation`` and the rest of the manager's API.
    public static let orientationDidChangeNotification = Notification.Name("MotionManagerOrientationDidChange")

    /// The `userInfo` key of ``orientationDidChangeNotification``: the ``DeviceOrientation`` the
    /// device turned to (``orientation`` may have moved on by the time an observer runs).
    public static let orientationUserInfoKey = "orientation"

    /// Where orientation notifications are posted from: `NotificationCenter` calls observers
    /// without a queue on the posting thread and waits for those with one, so posting on the
    /// manager's queue would deadlock an observer that reads the manager.
    static let notificationQueue = DispatchQueue(label: "motionclient.notifications")

    /// Starts following the device orientation (calls nest, as UIDevice's do).
    public func beginGeneratingDeviceOrientationNotifications() {
        sync {
            orientationNotificationCount += 1
            guard orientationNotificationCount == 1 else { return }
            _ = addConsumer(.orientation, interval: nil, id: Self.ownConsumer) { [weak self] result in
                guard let self, case .success(.event(.orientation(let orientation, _))) = result else { return }
                Self.notificationQueue.async {
                    NotificationCenter.default.post(name: Self.orientationDidChangeNotification, object: self,
                                                    userInfo: [Self.orientationUserInfoKey: orientation])
                }
            }
        }
    }

    public func endGeneratingDeviceOrientationNotifications() {
        sync {
            guard orientationNotificationCount > 0 else { return }
            orientationNotificationCount -= 1
            if orientationNotificationCount == 0 { removeConsumer(.orientation, id: Self.ownConsumer) }
        }
    }

    public var isGeneratingDeviceOrientationNotifications: Bool { sync { orientationNotificationCount > 0 } }

    /// The device orientation: `unknown` until the first is known, and while nothing follows it
    /// (begin generating notifications, observe it, or iterate ``deviceOrientations()``).
    public var orientation: DeviceOrientation { sync { currentOrientation } }

    /// Calls `handler` on `queue` with every orientation change (and the current orientation,
    /// when known) until the observation is cancelled.
    public func observeOrientation(on queue: OperationQueue, _ handler: @escaping @Sendable (DeviceOrientation) -> Void) -> MotionObservation {
        observe(.orientation) { result in
            guard case .success(.event(.orientation(let orientation, _))) = result else { return }
            queue.addOperation { handler(orientation) }
        }
    }

    /// Sends shakes to `responder` on `queue` until the observation is cancelled (or the
    /// responder is gone: it is held weakly).
    public func addMotionResponder(_ responder: any MotionResponder, queue: OperationQueue) -> MotionObservation {
        observe(.shake) { [weak responder] result in
            guard case .success(.event(let event)) = result, case .shake(let phase, _) = event, let responder else { return }
            queue.addOperation {
                switch phase {
                case .began: responder.motionBegan(.motionShake, with: event)
                case .ended: responder.motionEnded(.motionShake, with: event)
                case .cancelled: responder.motionCancelled(.motionShake, with: event)
                }
            }
        }
    }

    /// Calls `handler` on `queue` with the magnetometer calibration's accuracy and whether the
    /// user should calibrate (move the device in a figure eight), now and on every change.
    public func observeCalibration(on queue: OperationQueue,
                                   _ handler: @escaping @Sendable (MagneticFieldCalibrationAccuracy, _ calibrationNeeded: Bool) -> Void) -> MotionObservation {
        observe(.calibration) { result in
            guard case .success(.calibration(let accuracy, let needed)) = result else { return }
            queue.addOperation { handler(accuracy, needed) }
        }
    }

    /// A consumer of `stream` (every `interval` seconds, for a sample stream) that lasts until
    /// the observation is cancelled; an observer of a state (orientation, tilt, proximity,
    /// calibration) gets the current one at once when it is known — the daemon sends it only
    /// to the stream's first consumer here, with the subscription.
    func observe(_ stream: StreamName, interval: Double? = nil, _ deliver: @escaping (Result<ServerMessage, MotionClientError>) -> Void) -> MotionObservation {
        let id = sync {
            let id = addConsumer(stream, interval: interval, deliver: deliver)
            if let state = currentState(of: stream) { deliver(.success(state)) }
            return id
        }
        return MotionObservation { [weak self] in self?.removeConsumerLater(stream, id: id) }
    }
}
