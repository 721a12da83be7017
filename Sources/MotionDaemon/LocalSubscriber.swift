import MotionProtocol

/// One of the daemon's own subscribers (``LocalRecipient``): its printing, the D-Bus face, the
/// tablet-mode switch. The pipeline hands it its messages as values — never encoded — on the
/// pipeline's queue, a burst's messages in one call, in order. It must not block: anything slow
/// (a terminal, the bus) goes to a queue of its own.
protocol LocalSubscriber: AnyObject, Sendable {
    func deliver(_ messages: [ServerMessage])
}
