internal import SimplexEncoding

/// Writes JSON text straight into bytes, in the same form as `JSONValue.rendered`: compact, fields in the order they
/// are written. The types a page of items or a chat list is made of write themselves this way (`JSONWritable`), since
/// building a `JSONValue` tree of thousands of objects only to render and free it cost more than the queries.
public struct JSONWriter {
    public private(set) var bytes: [UInt8]
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object's member name; the value follows. Names in the code are plain ASCII with nothing to escape.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member name that comes from data (a map's key).
    public mutating func key(_ name: String) {
        separate()
        CanonicalJSON.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ s: String) {
        separate()
        CanonicalJSON.appendQuoted(s, to: &bytes)
        needsComma = true
    }

    public mutating func integer(_ n: Int64) {
        separate()
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so that Int64.min has one.
        var m = n.magnitude
        let start = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(m % 10))
            m /= 10
        } while m > 0
        bytes[start...].reverse()
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    public mutating func bool(_ b: Bool) {
        separate()
        if b {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [
                UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
            ])
        }
        needsComma = true
    }

    /// A value built as a tree, for the parts that are not worth writing by hand.
    public mutating func value(_ v: JSONValue) { v.write(to: &self) }

    /// A string known to be ASCII with nothing to escape.
    mutating func quotedASCII(_ text: UnsafeBufferPointer<UInt8>) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Bytes that are one JSON value already.
    mutating func rawValue(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    public mutating func value<T: JSONWritable>(_ v: T) { v.write(to: &self) }

    public mutating func array<T: JSONWritable>(_ items: [T]) {
        beginArray()
        for item in items { item.write(to: &self) }
        endArray()
    }

    /// `{"type":"tag"` of a tagged object (chat-api.md §2.2); its fields and `endObject()` follow.
    public mutating func beginTagged(_ tag: StaticString) {
        beginObject()
        key("type")
        separate()
        bytes.append(UInt8(ascii: "\""))
        tag.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// `{"type":"tag"}`.
    public mutating func tagged(_ tag: StaticString) {
        beginTagged(tag)
        endObject()
    }

    // MARK: Members

    public mutating func field(_ name: StaticString, _ s: String) {
        key(name)
        string(s)
    }

    public mutating func field(_ name: StaticString, _ n: Int64) {
        key(name)
        integer(n)
    }

    public mutating func field(_ name: StaticString, _ b: Bool) {
        key(name)
        bool(b)
    }

    public mutating func field<T: JSONWritable>(_ name: StaticString, _ v: T) {
        key(name)
        v.write(to: &self)
    }

    public mutating func field<T: JSONWritable>(_ name: StaticString, _ items: [T]) {
        key(name)
        array(items)
    }

    public mutating func field(_ name: StaticString, _ v: JSONValue) {
        key(name)
        value(v)
    }

    // Optional members are left out when absent (`omitNothingFields`, chat-api.md §2.3).

    public mutating func field(_ name: StaticString, _ s: String?) {
        if let s { field(name, s) }
    }

    public mutating func field(_ name: StaticString, _ n: Int64?) {
        if let n { field(name, n) }
    }

    public mutating func field(_ name: StaticString, _ b: Bool?) {
        if let b { field(name, b) }
    }

    public mutating func field<T: JSONWritable>(_ name: StaticString, _ v: T?) {
        if let v { field(name, v) }
    }

    public mutating func field(_ name: StaticString, _ v: JSONValue?) {
        if let v { field(name, v) }
    }
}

/// A value that writes its own JSON (see `JSONWriter`). Its `json` is a `JSONValue.fragment` that writes the same
/// bytes when rendered, so it nests in trees like any other value.
public protocol JSONWritable: JSONEncodable, Sendable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    public var json: JSONValue { .fragment(JSONFragment(self)) }

    /// The compact text as UTF-8.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

/// A `JSONWritable` value inside a `JSONValue` tree. Two fragments are equal when they write the same bytes.
public struct JSONFragment: Hashable, Sendable {
    let value: any JSONWritable

    init(_ value: any JSONWritable) { self.value = value }

    func write(to writer: inout JSONWriter) { value.write(to: &writer) }

    var bytes: [UInt8] { value.jsonBytes }

    /// The value as a tree, for the rare reader that looks inside (keys sorted, as a parsed object has them).
    var tree: JSONValue {
        guard let parsed = try? CanonicalJSON.parse(bytes) else { return .null }
        return JSONValue(parsed)
    }

    public static func == (a: JSONFragment, b: JSONFragment) -> Bool { a.bytes == b.bytes }

    public func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}
