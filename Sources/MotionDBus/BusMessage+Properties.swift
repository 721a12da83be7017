import CSDBus

extension BusMessage {
    /// Reads a property dictionary (`a{sv}`, as `GetAll` and `PropertiesChanged` carry it):
    /// the values of the three types the API uses; a property of another type is skipped.
    /// Nil when the next argument is not one.
    func readProperties() -> [String: PropertyValue]? {
        guard enter("a", "{sv}") else { return nil }
        var properties: [String: PropertyValue] = [:]
        while enter("e", "sv") {
            guard let name = readString() else { return nil }
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            guard sd_bus_message_peek_type(pointer, &type, &contents) > 0, let contents,
                  sd_bus_message_enter_container(pointer, Self.type("v"), contents) > 0 else { return nil }
            switch String(cString: contents) {
            case "b": if let flag = readBool() { properties[name] = .bool(flag) }
            case "s": if let text = readString() { properties[name] = .string(text) }
            case "d":
                var number = 0.0
                if sd_bus_message_read_basic(pointer, Self.type("d"), &number) > 0 { properties[name] = .double(number) }
            default: sd_bus_message_skip(pointer, contents)
            }
            sd_bus_message_exit_container(pointer)  // the variant
            sd_bus_message_exit_container(pointer)  // the entry
        }
        sd_bus_message_exit_container(pointer)
        return properties
    }

    /// Reads an array of strings (`as`); nil when the next argument is not one.
    func readStrings() -> [String]? {
        guard enter("a", "s") else { return nil }
        var strings: [String] = []
        while let text = readString() { strings.append(text) }
        sd_bus_message_exit_container(pointer)
        return strings
    }
}
