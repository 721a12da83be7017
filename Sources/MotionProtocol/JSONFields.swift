import MotionCore

/// Typed access to the fields of one JSON object line, with errors that name the field and
/// what was expected. Both directions parse with it: the daemon its clients' requests, clients
/// the daemon's messages. Absent and `null` fields read as nil; unknown fields are ignored.
struct JSONFields {
    let object: [String: JSONValue]

    init(_ object: [String: JSONValue]) {
        self.object = object
    }

    /// Parses a line that must hold one JSON object.
    static func object(_ line: some Collection<UInt8>) throws(ProtocolError) -> [String: JSONValue] {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(line)
        } catch {
            throw ProtocolError(.malformedJSON, "not valid JSON \(error) (expected one JSON object per line)")
        }
        guard case .object(let object) = parsed else {
            throw ProtocolError(.malformedJSON, "expected a JSON object, got \(parsed.kind)")
        }
        return object
    }

    /// The value of `key`, nil when absent or null.
    private func value(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(ProtocolError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw ProtocolError(.invalidValue, "\(key): expected a string, got \(value.kind)") }
        return text
    }

    func number(_ key: String) throws(ProtocolError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value else { throw ProtocolError(.invalidValue, "\(key): expected a number, got \(value.kind)") }
        return number
    }

    func integer(_ key: String) throws(ProtocolError) -> Int? {
        guard let number = try number(key) else { return nil }
        guard number == number.rounded(), abs(number) < 9.0e15 else {
            throw ProtocolError(.invalidValue, "\(key): expected an integer")
        }
        return Int(number)
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw ProtocolError(.invalidValue, "\(key): expected true or false, got \(value.kind)") }
        return flag
    }

    func nested(_ key: String) throws(ProtocolError) -> JSONFields? {
        guard let value = value(key) else { return nil }
        guard case .object(let nested) = value else { throw ProtocolError(.invalidValue, "\(key): expected an object, got \(value.kind)") }
        return JSONFields(nested)
    }

    func strings(_ key: String) throws(ProtocolError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw ProtocolError(.invalidValue, "\(key): expected an array, got \(value.kind)") }
        var strings: [String] = []
        for item in items {
            guard case .string(let text) = item else { throw ProtocolError(.invalidValue, "\(key): expected strings, got \(item.kind)") }
            strings.append(text)
        }
        return strings
    }

    /// A field that must be present.
    func required<Value>(_ key: String, _ read: (String) throws(ProtocolError) -> Value?) throws(ProtocolError) -> Value {
        guard let value = try read(key) else { throw ProtocolError(.missingField, "\(key): missing") }
        return value
    }

    /// `{"x":…,"y":…,"z":…}`.
    func vector(_ key: String) throws(ProtocolError) -> Vector3? {
        guard let fields = try nested(key) else { return nil }
        return Vector3(try fields.required("x", fields.number), try fields.required("y", fields.number), try fields.required("z", fields.number))
    }

    func stream() throws(ProtocolError) -> StreamName {
        guard let name = try string("stream") else { throw ProtocolError(.missingField, "stream: this op needs a stream") }
        guard let stream = StreamName(rawValue: name) else {
            throw ProtocolError(.unknownStream, "stream \"\(name)\": expected one of \(StreamName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return stream
    }

    func frame(_ key: String = "frame") throws(ProtocolError) -> AttitudeReferenceFrame? {
        guard let name = try string(key) else { return nil }
        guard let frame = AttitudeReferenceFrame(name: name), frame.names.count == 1 else {
            throw ProtocolError(.invalidValue, "\(key) \"\(name)\": expected one of \(AttitudeReferenceFrame.named.map(\.name).joined(separator: ", "))")
        }
        return frame
    }

    func headingOrientation() throws(ProtocolError) -> HeadingOrientation? {
        try named("orientation", HeadingOrientation.self)
    }

    /// A string naming a case of a string-backed enum.
    func named<Value: RawRepresentable & CaseIterable>(_ key: String, _ type: Value.Type) throws(ProtocolError) -> Value?
    where Value.RawValue == String {
        guard let name = try string(key) else { return nil }
        guard let value = Value(rawValue: name) else {
            throw ProtocolError(.invalidValue, "\(key) \"\(name)\": expected one of \(Value.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }
}
