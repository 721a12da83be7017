import CSDBus
import Glibc

/// Small, non-variadic helpers over an `sd_bus_message` (Swift cannot call sd-bus's variadic
/// `sd_bus_message_append`/`_read`). Negative returns are sd-bus's errnos.
enum BusMessage {
    static func type(_ character: Character) -> CChar { CChar(character.asciiValue!) }

    @discardableResult
    static func append(_ message: OpaquePointer, _ value: PropertyValue) -> Int32 {
        switch value {
        case .bool(let flag):
            var raw: Int32 = flag ? 1 : 0
            return sd_bus_message_append_basic(message, type("b"), &raw)
        case .double(let number):
            var raw = number
            return sd_bus_message_append_basic(message, type("d"), &raw)
        case .string(let text):
            return appendString(message, text)
        }
    }

    @discardableResult
    static func appendString(_ message: OpaquePointer, _ text: String) -> Int32 {
        text.withCString { sd_bus_message_append_basic(message, type("s"), $0) }
    }

    @discardableResult
    static func appendUInt32(_ message: OpaquePointer, _ value: UInt32) -> Int32 {
        var raw = value
        return sd_bus_message_append_basic(message, type("u"), &raw)
    }

    @discardableResult
    static func open(_ message: OpaquePointer, _ kind: Character, _ contents: String) -> Int32 {
        sd_bus_message_open_container(message, type(kind), contents)
    }

    @discardableResult
    static func close(_ message: OpaquePointer) -> Int32 { sd_bus_message_close_container(message) }

    static func signature(_ value: PropertyValue) -> String {
        switch value {
        case .bool: return "b"
        case .double: return "d"
        case .string: return "s"
        }
    }

    /// Reads a string argument; nil when the next argument is not one.
    static func readString(_ message: OpaquePointer) -> String? {
        var pointer: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, type("s"), &pointer) > 0, let pointer else { return nil }
        return String(cString: pointer)
    }

    /// Reads a boolean argument.
    static func readBool(_ message: OpaquePointer) -> Bool? {
        var raw: Int32 = 0
        guard sd_bus_message_read_basic(message, type("b"), &raw) > 0 else { return nil }
        return raw != 0
    }

    /// A C string property of a message (member, sender, error name), if set.
    static func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
}
