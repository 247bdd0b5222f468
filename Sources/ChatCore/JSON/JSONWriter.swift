internal import SimplexEncoding

/// Writes JSON text straight into bytes, in the same form as `JSONValue.rendered`: compact, fields in the order they
/// are written. The types a page of items or a chat list is made of write themselves this way (`JSONWritable`), since
/// building a `JSONValue` tree of thousands of objects only to render and free it cost more than the queries.
public struct JSONWriter {
    private let out: OutputBuffer
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 1024) { out = OutputBuffer(capacity: capacity) }

    /// What has been written.
    public var bytes: [UInt8] { out.array }

    private mutating func separate() {
        if needsComma { out.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        out.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        out.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        out.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        out.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object's member name; the value follows. Names in the code are plain ASCII with nothing to escape.
    public mutating func key(_ name: StaticString) {
        separate()
        name.withUTF8Buffer { out.appendKey($0) }
        needsComma = false
    }

    /// A member name that comes from data (a map's key).
    public mutating func key(_ name: String) {
        separate()
        out.appendQuoted(name)
        out.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ s: String) {
        separate()
        out.appendQuoted(s)
        needsComma = true
    }

    public mutating func integer(_ n: Int64) {
        separate()
        out.appendDecimal(n)
        needsComma = true
    }

    public mutating func null() {
        separate()
        let word: StaticString = "null"
        word.withUTF8Buffer { out.append($0) }
        needsComma = true
    }

    public mutating func bool(_ b: Bool) {
        separate()
        let word: StaticString = b ? "true" : "false"
        word.withUTF8Buffer { out.append($0) }
        needsComma = true
    }

    /// A value built as a tree, for the parts that are not worth writing by hand.
    public mutating func value(_ v: JSONValue) { v.write(to: &self) }

    /// A time's text (ASCII, nothing to escape), remembered so that the same time next can be copied from it.
    mutating func time(_ time: UTCTime, _ text: UnsafeBufferPointer<UInt8>) {
        separate()
        out.lastTime = (time, out.count, text.count + 2)
        out.append(UInt8(ascii: "\""))
        out.append(text)
        out.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Writes `time` again when it is the last time written.
    mutating func repeatTime(_ time: UTCTime) -> Bool {
        guard let last = out.lastTime, last.time == time else { return false }
        separate()
        out.repeatBytes(at: last.offset, count: last.length)
        needsComma = true
        return true
    }

    /// Bytes that are one JSON value already.
    mutating func rawValue(_ json: [UInt8]) {
        separate()
        json.withUnsafeBufferPointer { out.append($0) }
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
        out.append(UInt8(ascii: "\""))
        tag.withUTF8Buffer { out.append($0) }
        out.append(UInt8(ascii: "\""))
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

    public mutating func field(_ name: StaticString, _ numbers: [Int64]) {
        key(name)
        beginArray()
        for n in numbers { integer(n) }
        endArray()
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

/// The bytes a `JSONWriter` writes: a plain growing buffer, since appending to an array byte by byte checks its
/// uniqueness and capacity on every byte.
private final class OutputBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    /// The last time written and where its text is.
    var lastTime: (time: UTCTime, offset: Int, length: Int)?

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always)
    private func reserve(_ more: Int) {
        if count + more > capacity { grow(to: count + more) }
    }

    private func grow(to needed: Int) {
        let grown = max(needed, capacity * 2)
        let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        new.update(from: base, count: count)
        base.deallocate()
        base = new
        capacity = grown
    }

    func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    /// Appends `count` bytes written before at `offset`.
    func repeatBytes(at offset: Int, count length: Int) {
        reserve(length)
        (base + count).update(from: base + offset, count: length)
        count += length
    }

    /// `"name":`.
    func appendKey(_ name: UnsafeBufferPointer<UInt8>) {
        guard let start = name.baseAddress else { return }
        reserve(name.count + 3)
        base[count] = 0x22
        (base + count + 1).update(from: start, count: name.count)
        count += name.count + 1
        base[count] = 0x22
        base[count + 1] = UInt8(ascii: ":")
        count += 2
    }

    /// A JSON string: copied as it is when nothing in it needs an escape, as most strings are; otherwise with the
    /// escapes of `CanonicalJSON.appendQuoted`, the one place that spells them.
    func appendQuoted(_ s: String) {
        var s = s
        let plain = s.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: CanonicalJSON.needsEscape) else { return false }
            reserve(utf8.count + 2)
            base[count] = 0x22
            count += 1
            append(utf8)
            base[count] = 0x22
            count += 1
            return true
        }
        if !plain {
            var escaped: [UInt8] = []
            CanonicalJSON.appendQuoted(s, to: &escaped)
            escaped.withUnsafeBufferPointer { append($0) }
        }
    }

    /// `n` in decimal.
    func appendDecimal(_ n: Int64) {
        reserve(20)
        if n < 0 {
            base[count] = UInt8(ascii: "-")
            count += 1
        }
        // The magnitude as unsigned, so that Int64.min has one; digits from the right, then turned around.
        var m = n.magnitude
        let start = count
        repeat {
            base[count] = UInt8(ascii: "0") + UInt8(m % 10)
            count += 1
            m /= 10
        } while m > 0
        var digits = UnsafeMutableBufferPointer(start: base + start, count: count - start)
        digits.reverse()
    }
}
