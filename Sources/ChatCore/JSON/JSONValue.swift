internal import SimplexEncoding

/// A JSON value as the core writes it (chat-api.md §2): compact, strings escaped as aeson escapes them, and objects
/// in the order their fields were added, which is the Haskell record order of the official core's instances.
/// Values taken from a client verbatim (`J.Object` in the core) keep aeson's key order: sorted.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    /// A number that is not an Int64 integer, as its JSON text.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONField])
    /// A value that writes its own JSON (`JSONWritable`): the same text as its tree would render, without the tree.
    case fragment(JSONFragment)

    /// The compact text.
    public var rendered: String { String(decoding: renderedBytes, as: UTF8.self) }

    /// The compact text as UTF-8: rendered as bytes, since a page of items is tens of kilobytes of JSON.
    public var renderedBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }

    func write(to w: inout JSONWriter) {
        switch self {
        case .null: w.null()
        case .bool(let b): w.bool(b)
        case .integer(let n): w.integer(n)
        case .number(let text): w.rawValue(Array(text.utf8))
        case .string(let s): w.string(s)
        case .array(let items):
            w.beginArray()
            for item in items { item.write(to: &w) }
            w.endArray()
        case .object(let fields):
            w.beginObject()
            for field in fields {
                w.key(field.key)
                field.value.write(to: &w)
            }
            w.endObject()
        case .fragment(let f): f.write(to: &w)
        }
    }

    /// The value itself, or a fragment's tree, for reading.
    private var readable: JSONValue {
        if case .fragment(let f) = self { return f.tree }
        return self
    }

    /// The value of `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = readable else { return nil }
        return fields.first { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let s) = readable { return s }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let n) = readable { return n }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = readable { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = readable { return items }
        return nil
    }

    /// The object's keys in order (empty for other values).
    public var keys: [String] {
        guard case .object(let fields) = readable else { return [] }
        return fields.map(\.key)
    }
}

/// One member of a JSON object.
public struct JSONField: Hashable, Sendable {
    public let key: String
    public let value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

extension JSONValue {
    /// A record (`defaultJSON`, chat-api.md §2.3): absent optional fields (`nil`) are omitted.
    static func record(_ pairs: KeyValuePairs<String, JSONValue?>) -> JSONValue {
        .object(pairs.compactMap { key, value in value.map { JSONField(key, $0) } })
    }

    /// A constructor of a tagged sum type (`taggedObjectJSON`, chat-api.md §2.2): `{"type": tag, fields…}`.
    static func tagged(_ tag: String, _ pairs: KeyValuePairs<String, JSONValue?> = [:]) -> JSONValue {
        .object([JSONField("type", .string(tag))] + pairs.compactMap { key, value in value.map { JSONField(key, $0) } })
    }

    /// A value a client sent, re-encoded as aeson encodes a `J.Object`: keys sorted.
    init(_ value: CanonicalJSON) {
        switch value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let n): self = .integer(n)
        case .number(let text): self = .number(text)
        case .string(let s): self = .string(s)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let fields):
            let keys = fields.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            self = .object(keys.compactMap { key in fields[key].map { JSONField(key, JSONValue($0)) } })
        }
    }

    static func list<T: JSONEncodable>(_ items: [T]) -> JSONValue { .array(items.map(\.json)) }
}

/// A value with the core's JSON encoding.
public protocol JSONEncodable {
    var json: JSONValue { get }
}

extension String {
    var json: JSONValue { .string(self) }
}

extension Int64 {
    var json: JSONValue { .integer(self) }
}

extension Int {
    var json: JSONValue { .integer(Int64(self)) }
}

extension Bool {
    var json: JSONValue { .bool(self) }
}
