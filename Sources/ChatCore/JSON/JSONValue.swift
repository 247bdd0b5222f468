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

    /// The compact text.
    public var rendered: String { String(decoding: renderedBytes, as: UTF8.self) }

    /// The compact text as UTF-8: rendered as bytes, since a page of items is tens of kilobytes of JSON.
    public var renderedBytes: [UInt8] {
        var out: [UInt8] = []
        render(into: &out)
        return out
    }

    private func render(into out: inout [UInt8]) {
        switch self {
        case .null: out += Self.nullBytes
        case .bool(let b): out += b ? Self.trueBytes : Self.falseBytes
        case .integer(let n): Self.appendDecimal(n, to: &out)
        case .number(let text): out += text.utf8
        case .string(let s): CanonicalJSON.appendQuoted(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.render(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, field) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                CanonicalJSON.appendQuoted(field.key, to: &out)
                out.append(UInt8(ascii: ":"))
                field.value.render(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `n` in decimal, written in place: a page has several integers per item, and a chat list several per chat.
    private static func appendDecimal(_ n: Int64, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so that Int64.min has one.
        var m = n.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(m % 10))
            m /= 10
        } while m > 0
        out[start...].reverse()
    }

    private static let nullBytes = Array("null".utf8)
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)

    /// The value of `key` when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let fields) = self else { return nil }
        return fields.first { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let n) = self { return n }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// The object's keys in order (empty for other values).
    public var keys: [String] {
        guard case .object(let fields) = self else { return [] }
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
