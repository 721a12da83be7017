import FoundationEssentials

/// Decodes a partial JSON object over complete defaults: every key the object names replaces
/// the default's value (nested objects merge key by key), every key it leaves out keeps the
/// default. This is how a subscription's detector options (and a configuration file) change a
/// few parameters without restating the rest.
public enum Overlay {
    /// `defaults` with `object`'s keys applied. Keys `defaults` does not have are ignored
    /// (forward compatibility); a value of the wrong type is an error naming its key path.
    public static func apply<Value: Codable>(_ object: [String: JSONValue], to defaults: Value, path: String) throws(ProtocolError) -> Value {
        let base: [String: JSONValue]
        do {
            guard case .object(let decoded) = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(defaults)) else {
                throw ProtocolError(.internalError, "\(path): defaults are not an object")
            }
            base = decoded
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw ProtocolError(.internalError, "\(path): \(error)")
        }
        let merged = try merge(object, into: base, path: path)
        do {
            return try decode(Value.self, merged)
        } catch let DecodingError.typeMismatch(type, context) {
            throw ProtocolError(.invalidValue, "\(describe(path, context.codingPath)): expected \(typeName(type))")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw ProtocolError(.invalidValue, "\(describe(path, context.codingPath)): \(context.debugDescription)")
        } catch {
            // JSONDecoder reports a number that does not fit an integer without a coding
            // path: find the key by trying the client's values one at a time.
            for (leafPath, leaf) in leaves(object, path: path) where (try? decode(Value.self, merge(leaf, into: base, path: path))) == nil {
                throw ProtocolError(.invalidValue, "\(leafPath): not an acceptable value (a whole number where an integer is expected?)")
            }
            throw ProtocolError(.invalidValue, "\(path): \(error)")
        }
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, _ object: [String: JSONValue]) throws -> Value {
        try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(JSONValue.object(object)))
    }

    /// Every non-object value of `object`, each alone in an object of its own nesting, with its
    /// key path.
    private static func leaves(_ object: [String: JSONValue], path: String) -> [(String, [String: JSONValue])] {
        object.sorted { $0.key < $1.key }.flatMap { key, value -> [(String, [String: JSONValue])] in
            guard case .object(let nested) = value else { return [("\(path).\(key)", [key: value])] }
            return leaves(nested, path: "\(path).\(key)").map { ($0.0, [key: .object($0.1)]) }
        }
    }

    private static func merge(_ object: [String: JSONValue], into base: [String: JSONValue], path: String) throws(ProtocolError) -> [String: JSONValue] {
        var result = base
        for (key, value) in object {
            guard let old = base[key] else { continue }
            if case .object(let nested) = old {
                guard case .object(let replacement) = value else {
                    throw ProtocolError(.invalidValue, "\(path).\(key): expected an object, got \(value.kind)")
                }
                result[key] = .object(try merge(replacement, into: nested, path: "\(path).\(key)"))
            } else if value == .null {
                throw ProtocolError(.invalidValue, "\(path).\(key): expected a value, got null")
            } else {
                result[key] = value
            }
        }
        return result
    }

    private static func describe(_ path: String, _ codingPath: [any CodingKey]) -> String {
        ([path] + codingPath.map(\.stringValue)).joined(separator: ".")
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type: return "an integer"
        case is Bool.Type: return "true or false"
        case is String.Type: return "a string"
        default: return "\(type)"
        }
    }
}
