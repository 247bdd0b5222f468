internal import ChatStore
internal import SMP
internal import SimplexCrypto

/// A cursor over one result row that decodes each column or fails with `invalidStoredValue`, never trapping on
/// what the file holds.
struct RowReader {
    private let values: [SQLValue]
    private var index = 0

    init(_ values: [SQLValue]) { self.values = values }

    private mutating func next() -> SQLValue {
        defer { index += 1 }
        return index < values.count ? values[index] : .null
    }

    mutating func blob(_ what: String) throws(AgentStoreError) -> [UInt8] {
        guard let b = try optionalBlob(what) else { throw .invalidStoredValue("\(what) is missing") }
        return b
    }

    mutating func optionalBlob(_ what: String) throws(AgentStoreError) -> [UInt8]? {
        switch next() {
        case .null: return nil
        case .blob(let b): return b
        default: throw .invalidStoredValue("\(what) is not a blob")
        }
    }

    mutating func dhSecret(_ what: String) throws(AgentStoreError) -> X25519.SharedSecret {
        let b = try blob(what)
        return try storedValue(what) { () throws(CryptoError) in try X25519.SharedSecret(rawRepresentation: b) }
    }

    mutating func x25519PublicKey(_ what: String) throws(AgentStoreError) -> X25519.PublicKey {
        let b = try blob(what)
        return try storedValue(what) { () throws(CryptoError) in try X25519.PublicKey(rawRepresentation: b) }
    }

    mutating func integer(_ what: String) throws(AgentStoreError) -> Int64 {
        guard let n = try optionalInteger(what) else { throw .invalidStoredValue("\(what) is missing") }
        return n
    }

    mutating func optionalInteger(_ what: String) throws(AgentStoreError) -> Int64? {
        switch next() {
        case .null: return nil
        case .integer(let n): return n
        default: throw .invalidStoredValue("\(what) is not an integer")
        }
    }

    mutating func counter(_ what: String) throws(AgentStoreError) -> UInt64 {
        let n = try integer(what)
        guard let u = UInt64(exactly: n) else { throw .invalidStoredValue("\(what) is negative") }
        return u
    }

    mutating func version(_ what: String) throws(AgentStoreError) -> UInt16 {
        let n = try integer(what)
        guard let v = UInt16(exactly: n) else { throw .invalidStoredValue("\(what) \(n) is out of range") }
        return v
    }

    mutating func optionalVersion(_ what: String) throws(AgentStoreError) -> UInt16? {
        guard let n = try optionalInteger(what) else { return nil }
        guard let v = UInt16(exactly: n) else { throw .invalidStoredValue("\(what) \(n) is out of range") }
        return v
    }

    mutating func bool(_ what: String) throws(AgentStoreError) -> Bool { try integer(what) != 0 }

    mutating func text(_ what: String) throws(AgentStoreError) -> String {
        guard let t = try optionalText(what) else { throw .invalidStoredValue("\(what) is missing") }
        return t
    }

    mutating func optionalText(_ what: String) throws(AgentStoreError) -> String? {
        switch next() {
        case .null: return nil
        case .text(let t): return t
        default: throw .invalidStoredValue("\(what) is not text")
        }
    }

    mutating func tag<T: RawRepresentable<String>>(_: T.Type, _ what: String) throws(AgentStoreError) -> T {
        let t = try text(what)
        guard let v = T(rawValue: t) else { throw .invalidStoredValue("\(what) '\(t)' is unknown") }
        return v
    }

    mutating func optionalTag<T: RawRepresentable<String>>(_: T.Type, _ what: String) throws(AgentStoreError) -> T? {
        guard let t = try optionalText(what) else { return nil }
        guard let v = T(rawValue: t) else { throw .invalidStoredValue("\(what) '\(t)' is unknown") }
        return v
    }
}

/// Parsed server addresses by their stored text, so that loading many queues parses each server once.
struct ServerCache {
    private var servers: [String: SMPServer] = [:]

    mutating func server(_ address: String) throws(AgentStoreError) -> SMPServer {
        if let s = servers[address] { return s }
        let s: SMPServer
        do { s = try SMPServer(parsing: address) } catch { throw .invalidStoredValue("server \(address): \(error.reason)") }
        servers[address] = s
        return s
    }
}

extension MessageIntegrity {
    /// The stored form: `ok`, `badId <id>`, `badHash`, `duplicate`, `skipped <from> <to>`.
    var stored: String {
        switch self {
        case .ok: "ok"
        case .badId(let id): "badId \(id)"
        case .badHash: "badHash"
        case .duplicate: "duplicate"
        case .skipped(let from, let to): "skipped \(from) \(to)"
        }
    }

    init(stored text: String) throws(AgentStoreError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        switch (parts.first, parts.count) {
        case ("ok", 1): self = .ok
        case ("badHash", 1): self = .badHash
        case ("duplicate", 1): self = .duplicate
        case ("badId", 2):
            guard let id = UInt64(parts[1]) else { throw .invalidStoredValue("integrity '\(text)'") }
            self = .badId(id)
        case ("skipped", 3):
            guard let from = UInt64(parts[1]), let to = UInt64(parts[2]) else {
                throw .invalidStoredValue("integrity '\(text)'")
            }
            self = .skipped(from: from, to: to)
        default: throw .invalidStoredValue("integrity '\(text)'")
        }
    }
}

extension DeliveryState {
    var tag: String {
        switch self {
        case .pending: "pending"
        case .sent: "sent"
        case .failed: "failed"
        }
    }

    init(tag: String, error: String?) throws(AgentStoreError) {
        switch tag {
        case "pending": self = .pending
        case "sent": self = .sent
        case "failed": self = .failed(error ?? "")
        default: throw .invalidStoredValue("delivery '\(tag)'")
        }
    }
}

extension SQLValue {
    static func counter(_ n: UInt64) -> SQLValue { .integer(Int64(clamping: n)) }
    static func optionalBlob(_ b: [UInt8]?) -> SQLValue { b.map(SQLValue.blob) ?? .null }
}

// SMP's own queue and subscription modes, by the names the schema's CHECKs allow.
extension QueueMode {
    var storedTag: String { self == .messaging ? "messaging" : "contact" }

    init(storedTag: String) throws(AgentStoreError) {
        switch storedTag {
        case "messaging": self = .messaging
        case "contact": self = .contact
        default: throw .invalidStoredValue("queue mode '\(storedTag)' is unknown")
        }
    }
}

extension SubscriptionMode {
    var storedTag: String { self == .subscribe ? "subscribe" : "onlyCreate" }

    init(storedTag: String) throws(AgentStoreError) {
        switch storedTag {
        case "subscribe": self = .subscribe
        case "onlyCreate": self = .onlyCreate
        default: throw .invalidStoredValue("subscription mode '\(storedTag)' is unknown")
        }
    }
}
