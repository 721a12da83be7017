import Foundation

/// Decodes a partial JSON object over complete defaults: every key the object names replaces
/// the default's value (nested objects merge key by key), every key it leaves out keeps the
/// default. This is how a subscription's detector options (and a configuration file) change a
/// few parameters without restating the rest.
public enum Overlay {
    /// `defaults` with `object`'s keys applied. Keys `defaults` does not have are ignored
    /// (forward compatibility); a value of the wrong type is an error naming its key path.
    public static func apply<Value: Codable>(_ object: [String: Any], to defaults: Value, path: String) throws(ProtocolError) -> Value {
        let base: [String: Any]
        do {
            let data = try JSONEncoder().encode(defaults)
            guard let decoded = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
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
            let data = try JSONSerialization.data(withJSONObject: merged)
            return try JSONDecoder().decode(Value.self, from: data)
        } catch let DecodingError.typeMismatch(type, context) {
            throw ProtocolError(.invalidValue, "\(describe(path, context.codingPath)): expected \(typeName(type))")
        } catch let DecodingError.dataCorrupted(context) {
            throw ProtocolError(.invalidValue, "\(describe(path, context.codingPath)): \(context.debugDescription)")
        } catch {
            throw ProtocolError(.invalidValue, "\(path): \(error)")
        }
    }

    private static func merge(_ object: [String: Any], into base: [String: Any], path: String) throws(ProtocolError) -> [String: Any] {
        var result = base
        for (key, value) in object {
            guard let old = base[key] else { continue }
            if let nested = old as? [String: Any] {
                guard let replacement = value as? [String: Any] else {
                    throw ProtocolError(.invalidValue, "\(path).\(key): expected an object")
                }
                result[key] = try merge(replacement, into: nested, path: "\(path).\(key)")
            } else if value is NSNull {
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
