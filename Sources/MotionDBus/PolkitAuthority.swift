import CSDBus

/// polkit's `CheckAuthorization` through its D-Bus API (`org.freedesktop.PolicyKit1`): the
/// request for one bus client and action, and what the answer means.
enum PolkitAuthority {
    static let name = "org.freedesktop.PolicyKit1"
    static let path = "/org/freedesktop/PolicyKit1/Authority"
    static let interface = "org.freedesktop.PolicyKit1.Authority"

    /// The call asking whether bus client `sender` may do `action` (subject `system-bus-name`,
    /// no details, no interaction: iio-sensor-proxy's request); nil if it cannot be built.
    static func request(on bus: OpaquePointer, sender: String, action: String) -> BusMessage? {
        var created: OpaquePointer?
        guard sd_bus_message_new_method_call(bus, &created, name, path, interface, "CheckAuthorization") >= 0, let created else { return nil }
        let message = BusMessage(owning: created)
        var ok = message.open("r", "sa{sv}") >= 0
        ok = ok && message.appendString("system-bus-name") >= 0
        ok = ok && message.open("a", "{sv}") >= 0
        ok = ok && message.open("e", "sv") >= 0
        ok = ok && message.appendString("name") >= 0
        ok = ok && message.open("v", "s") >= 0
        ok = ok && message.appendString(sender) >= 0
        ok = ok && message.close() >= 0 && message.close() >= 0 && message.close() >= 0
        ok = ok && message.close() >= 0
        ok = ok && message.appendString(action) >= 0
        ok = ok && message.open("a", "{ss}") >= 0 && message.close() >= 0
        ok = ok && message.appendUInt32(0) >= 0
        ok = ok && message.appendString("") >= 0
        return ok ? message : nil
    }

    /// What an answer says.
    enum Answer: Equatable {
        case authorized
        /// polkit says no (or polkit itself failed).
        case denied(String)
        /// polkit is not on the bus at all (`ServiceUnknown`).
        case absent
        /// The client asked about has left the bus (polkit could not look it up:
        /// `NameHasNoOwner`): nobody to answer.
        case subjectGone
        /// The bus did not pass the question on (too many calls of ours waiting for replies,
        /// or it is out of memory): not an answer; ask again.
        case busy(String)
        /// No answer came (polkit hung, the connection dropped): not a refusal either.
        case unanswered(String)
    }

    static func answer(_ reply: BusMessage) -> Answer {
        if let error = reply.error { return answer(error: error.name, error.message) }
        guard reply.enter("r", "bba{ss}"), let authorized = reply.readBool() else {
            return .denied("polkit's answer could not be read")
        }
        return authorized ? .authorized : .denied("polkit does not allow it")
    }

    /// What an error in place of polkit's answer means: the bus's errors about polkit
    /// (absent), about the client (gone) or about the bus itself (busy, no answer) are not
    /// polkit saying no; anything else is polkit failing, a refusal.
    static func answer(error name: String, _ message: String) -> Answer {
        switch name {
        case "org.freedesktop.DBus.Error.ServiceUnknown": return .absent
        case "org.freedesktop.DBus.Error.NameHasNoOwner": return .subjectGone
        case "org.freedesktop.DBus.Error.LimitsExceeded", "org.freedesktop.DBus.Error.NoMemory": return .busy("\(name): \(message)")
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut",
             "org.freedesktop.DBus.Error.Disconnected":
            return .unanswered("\(name): \(message)")
        default: return .denied("polkit failed: \(name): \(message)")
        }
    }
}
