import MotionProtocol
import MotionSync

/// The entry points of the daemon's own subscribers (``LocalRecipient``): its printing, the
/// D-Bus face and the tablet-mode switch attach, subscribe and detach here with typed calls;
/// their messages reach them as values (``MessageRouter``).
extension Pipeline {
    /// From now on `subscriber` takes the messages for `recipient`. `subscriptions`: the
    /// printing's, made before ``start(clients:outbox:)`` (which asks the source for what they
    /// need): every value, no decimation. Waits until it is attached.
    func attach(_ subscriber: any LocalSubscriber, as recipient: LocalRecipient, subscriptions: [Subscription] = []) {
        queue.assertNotOnQueue()
        queue.sync {
            router.attach(subscriber, as: recipient)
            for subscription in subscriptions { publisher.add(subscription, recipient: .local(recipient)) }
        }
    }

    /// Subscribes one of the daemon's own subscribers as a client's `subscribe` would; what it
    /// learns at once (a state stream's current state) follows. A refusal is logged.
    func subscribe(_ recipient: LocalRecipient, to wanted: ClientRequest.Subscription) {
        queue.async { [self] in
            var out: [Addressed] = []
            do throws(ProtocolError) {
                for message in try subscribe(.local(recipient), to: wanted, into: &out).current {
                    out.append(.local(recipient, message))
                }
            } catch {
                logger.error("\(recipient) cannot subscribe to \(wanted.stream): \(error)")
            }
            send(out)
        }
    }

    /// Ends a subscription of one of the daemon's own subscribers.
    func unsubscribe(_ recipient: LocalRecipient, from stream: StreamName) {
        queue.async { [self] in
            var out: [Addressed] = []
            do throws(ProtocolError) {
                try unsubscribe(.local(recipient), from: stream, into: &out)
            } catch {
                logger.error("\(recipient) cannot unsubscribe from \(stream): \(error)")
            }
            send(out)
        }
    }

    /// Ends every subscription of `recipient` and delivers nothing more to it.
    func detach(_ recipient: LocalRecipient) {
        queue.async { [self] in
            router.detach(recipient)
            remove(.local(recipient))
        }
    }
}
