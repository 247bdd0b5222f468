internal import ChatModel
internal import SimplexEncoding

/// A client's JSON argument read into typed values (`<json(T)>`, chat-api.md §0.2): a defensive cursor that names
/// the path of what it refused. A refusal is the core's parse failure, a `commandError` (§1.1 step 2).
struct JSONInput {
    let value: CanonicalJSON
    /// Where `value` sits in the argument, aeson style: `$`, `$.profile`, `$.preferences.calls`.
    let path: String

    init(_ value: CanonicalJSON, path: String = "$") {
        self.value = value
        self.path = path
    }

    init(parsing raw: RawJSON) throws(ChatError) {
        do {
            self.init(try CanonicalJSON.parse(raw.text))
        } catch {
            throw .error(.commandError("Error in $: \(error.message)"))
        }
    }

    func fail(_ message: String) -> ChatError { .error(.commandError("Error in \(path): \(message)")) }

    private var fields: [String: CanonicalJSON]? {
        if case .object(let fields) = value { return fields }
        return nil
    }

    /// The value must be an object.
    func object() throws(ChatError) -> JSONInput {
        guard fields != nil else { throw fail("expected Object, but encountered \(value.kindName)") }
        return self
    }

    /// A member, or nil when absent or `null` (§2.3: the core accepts both for optional fields).
    func member(_ key: String) throws(ChatError) -> JSONInput? {
        guard let fields else { throw fail("expected Object, but encountered \(value.kindName)") }
        guard let v = fields[key], v != .null else { return nil }
        return JSONInput(v, path: path + "." + key)
    }

    func required(_ key: String) throws(ChatError) -> JSONInput {
        guard let m = try member(key) else { throw fail("key \"\(key)\" not found") }
        return m
    }

    func string() throws(ChatError) -> String {
        guard case .string(let s) = value else { throw fail("expected String, but encountered \(value.kindName)") }
        return s
    }

    func bool() throws(ChatError) -> Bool {
        guard case .bool(let b) = value else { throw fail("expected Bool, but encountered \(value.kindName)") }
        return b
    }

    func integer() throws(ChatError) -> Int64 {
        guard case .integer(let n) = value else { throw fail("expected Int, but encountered \(value.kindName)") }
        return n
    }

    func array() throws(ChatError) -> [JSONInput] {
        guard case .array(let items) = value else { throw fail("expected Array, but encountered \(value.kindName)") }
        return items.enumerated().map { JSONInput($1, path: path + "[\($0)]") }
    }

    func string(_ key: String) throws(ChatError) -> String { try required(key).string() }
    func optionalString(_ key: String) throws(ChatError) -> String? { try member(key)?.string() }
    func optionalBool(_ key: String) throws(ChatError) -> Bool? { try member(key)?.bool() }
    func optionalInteger(_ key: String) throws(ChatError) -> Int64? { try member(key)?.integer() }

    /// One of a fixed set of strings (`enumJSON`).
    func enumeration<E: RawRepresentable<String>>(_ type: E.Type) throws(ChatError) -> E {
        let s = try string()
        guard let e = E(rawValue: s) else { throw fail("unexpected value \"\(s)\"") }
        return e
    }
}

extension CanonicalJSON {
    var kindName: String {
        switch self {
        case .null: "Null"
        case .bool: "Boolean"
        case .integer, .number: "Number"
        case .string: "String"
        case .array: "Array"
        case .object: "Object"
        }
    }
}
