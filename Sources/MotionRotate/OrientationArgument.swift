import ArgumentParser
import MotionCore

/// An upright orientation given on the command line (`--apply`): motiond's name (`portrait`,
/// `portraitUpsideDown`, `landscapeLeft`, `landscapeRight`), iio-sensor-proxy's (`normal`,
/// `bottom-up`, `right-up`, `left-up`) or the xrandr rotation that shows it (`normal`,
/// `inverted`, `right`, `left`; rot8 uses the same four). Flat and unknown are refused: they
/// have no rotation.
struct OrientationArgument: ExpressibleByArgument {
    let rotation: ScreenRotation

    init?(argument: String) {
        let match = DeviceOrientation.allCases.compactMap(ScreenRotation.init).first { rotation in
            [rotation.orientation.rawValue, rotation.orientation.iioSensorProxyName, rotation.xrandrName].contains(argument)
        }
        guard let match else { return nil }
        rotation = match
    }

    static var allValueStrings: [String] {
        DeviceOrientation.allCases.compactMap(ScreenRotation.init).map(\.orientation.rawValue)
    }
}
