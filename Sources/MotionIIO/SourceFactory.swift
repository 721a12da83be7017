import Logging

/// Makes the ``MotionSource`` for a `--source` URI.
public enum SourceFactory {
    public static func make(_ uri: SourceURI, discovery: SensorDiscovery = SensorDiscovery(), replayPacing: ReplaySource.Pacing = .realtime, logger: Logger) throws(SourceError) -> MotionSource {
        switch uri {
        case .local:
            return LocalSource(iio: IIOSource(uri: uri.iioURI!, discovery: discovery, logger: logger), platform: PlatformSource(logger: logger))
        case .network:
            return IIOSource(uri: uri.iioURI!, discovery: discovery, logger: logger)
        case .simulated:
            return SimulatedSource()
        case .replay(let path):
            return try ReplaySource(path: path, pacing: replayPacing, logger: logger)
        }
    }
}
