import CSDBus
import Glibc

/// One reference to an sd-bus message (`sd_bus_message`), given back when the last Swift
/// reference to this object goes: a message kept for later (a claim answered at its sensor's
/// first reading) is kept by keeping its `BusMessage`, and nobody counts references by hand.
/// A message sd-bus creates for us is taken over (``init(owning:)``); one it lends to a
/// callback is retained (``init(retaining:)``).
///
/// Its methods are small, non-variadic helpers over the message (Swift cannot call sd-bus's
/// variadic `sd_bus_message_append`/`_read`); negative returns are sd-bus's errnos. Like every
/// sd-bus object it belongs to one thread at a time (the D-Bus face's queue).
final class BusMessage {
    /// The message; valid while this object lives.
    let pointer: OpaquePointer

    /// Takes over a reference the caller holds (a message just created by sd-bus).
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Takes a reference of its own to a message sd-bus lends for the length of a callback.
    init(retaining pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)
    }

    deinit {
        sd_bus_message_unref(pointer)
    }

    // MARK: - Writing

    @discardableResult
    func append(_ value: PropertyValue) -> Int32 {
        switch value {
        case .bool(let flag):
            var raw: Int32 = flag ? 1 : 0
            return sd_bus_message_append_basic(pointer, Self.type("b"), &raw)
        case .double(let number):
            var raw = number
            return sd_bus_message_append_basic(pointer, Self.type("d"), &raw)
        case .string(let text):
            return appendString(text)
        }
    }

    @discardableResult
    func appendString(_ text: String) -> Int32 {
        text.withCString { sd_bus_message_append_basic(pointer, Self.type("s"), $0) }
    }

    @discardableResult
    func appendUInt32(_ value: UInt32) -> Int32 {
        var raw = value
        return sd_bus_message_append_basic(pointer, Self.type("u"), &raw)
    }

    @discardableResult
    func open(_ kind: Character, _ contents: String) -> Int32 {
        sd_bus_message_open_container(pointer, Self.type(kind), contents)
    }

    @discardableResult
    func close() -> Int32 { sd_bus_message_close_container(pointer) }

    /// Sends a signal to `destination` only (a unicast signal).
    @discardableResult
    func setDestination(_ destination: String) -> Int32 { sd_bus_message_set_destination(pointer, destination) }

    /// Queues the message on `bus` (sd-bus takes its own reference).
    @discardableResult
    func send(on bus: OpaquePointer) -> Int32 { sd_bus_send(bus, pointer, nil) }

    // MARK: - Reading

    /// Reads a string argument; nil when the next argument is not one.
    func readString() -> String? {
        var text: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(pointer, Self.type("s"), &text) > 0, let text else { return nil }
        return String(cString: text)
    }

    /// Reads a boolean argument.
    func readBool() -> Bool? {
        var raw: Int32 = 0
        guard sd_bus_message_read_basic(pointer, Self.type("b"), &raw) > 0 else { return nil }
        return raw != 0
    }

    /// Reads a uint32 argument.
    func readUInt32() -> UInt32? {
        var raw: UInt32 = 0
        guard sd_bus_message_read_basic(pointer, Self.type("u"), &raw) > 0 else { return nil }
        return raw
    }

    /// Enters a container of `kind` holding `contents`; false when the next argument is not one.
    func enter(_ kind: Character, _ contents: String) -> Bool {
        sd_bus_message_enter_container(pointer, Self.type(kind), contents) > 0
    }

    /// The method called (a method call's member).
    var member: String? { Self.string(sd_bus_message_get_member(pointer)) }

    /// The unique bus name of the sender.
    var sender: String? { Self.string(sd_bus_message_get_sender(pointer)) }

    /// The error's name and text, when the message is an error reply.
    var error: (name: String, message: String)? {
        guard sd_bus_message_is_method_error(pointer, nil) != 0 else { return nil }
        let error = sd_bus_message_get_error(pointer)
        return (Self.string(error?.pointee.name) ?? "an error", Self.string(error?.pointee.message) ?? "")
    }

    // MARK: - Replies to a method call

    /// A new, empty method return for this call; nil when sd-bus cannot make one.
    func methodReturn() -> BusMessage? {
        var reply: OpaquePointer?
        guard sd_bus_message_new_method_return(pointer, &reply) >= 0, let reply else { return nil }
        return BusMessage(owning: reply)
    }

    /// Answers this call with the D-Bus error `name` and its `text`.
    func replyError(_ name: String, _ text: String) {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        sd_bus_error_set(&error, name, text)
        sd_bus_reply_method_error(pointer, &error)
        sd_bus_error_free(&error)
    }

    // MARK: - Types

    static func type(_ character: Character) -> CChar { CChar(character.asciiValue!) }

    static func signature(_ value: PropertyValue) -> String {
        switch value {
        case .bool: return "b"
        case .double: return "d"
        case .string: return "s"
        }
    }

    /// A C string property of a message (member, sender, error name), if set.
    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
}
