public import SimplexEncoding

/// An SMP protocol error (`ErrorType`, smp.md §3.5): the body of `ERR`, ASCII words separated by single spaces.
public enum SMPErrorType: Hashable, Sendable, Error {
    /// The block or a transmission did not parse, or its signature has a wrong size.
    case block
    /// A wrong session id (v < 7).
    case session
    case cmd(CommandError)
    case proxy(ProxyError)
    /// A wrong or unknown key or queue, a suspended queue, a refused creation.
    case auth
    /// The queue is blocked by the operator (v ≥ 12; older clients are sent `AUTH`).
    case blocked(BlockingInfo)
    case service
    case crypto
    /// The queue is full (§3.8).
    case quota
    case store(String)
    case expired
    /// `ACK` with no delivered message or another message's id.
    case noMsg
    /// A `SEND` body over the limit (§3.6).
    case largeMsg
    case `internal`
    /// Internal to the reference server, never sent; parsed for completeness.
    case duplicate

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .block: w.writeASCII("BLOCK")
        case .session: w.writeASCII("SESSION")
        case .cmd(let e):
            w.writeASCII("CMD ")
            w.writeBytes(Array(e.rawValue.utf8))
        case .proxy(let e):
            w.writeASCII("PROXY ")
            try e.encode(to: &w)
        case .auth: w.writeASCII("AUTH")
        case .blocked(let info):
            w.writeASCII("BLOCKED ")
            info.encode(to: &w)
        case .service: w.writeASCII("SERVICE")
        case .crypto: w.writeASCII("CRYPTO")
        case .quota: w.writeASCII("QUOTA")
        case .store(let s):
            w.writeASCII("STORE ")
            w.writeBytes(Array(s.utf8))
        case .expired: w.writeASCII("EXPIRED")
        case .noMsg: w.writeASCII("NO_MSG")
        case .largeMsg: w.writeASCII("LARGE_MSG")
        case .internal: w.writeASCII("INTERNAL")
        case .duplicate: w.writeASCII("DUPLICATE_")
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        let word = r.readWord()
        switch String(decoding: word, as: UTF8.self) {
        case "BLOCK": self = .block
        case "SESSION": self = .session
        case "CMD":
            try r.expectSpace()
            self = .cmd(try CommandError(from: &r))
        case "PROXY":
            try r.expectSpace()
            self = .proxy(try ProxyError(from: &r))
        case "AUTH": self = .auth
        case "BLOCKED":
            try r.expectSpace()
            self = .blocked(try BlockingInfo(from: &r))
        case "SERVICE": self = .service
        case "CRYPTO": self = .crypto
        case "QUOTA": self = .quota
        case "STORE":
            try r.expectSpace()
            // `safeDecodeUtf8`: invalid sequences become U+FFFD rather than failing.
            self = .store(String(decoding: r.readRest(), as: UTF8.self))
        case "EXPIRED": self = .expired
        case "NO_MSG": self = .noMsg
        case "LARGE_MSG": self = .largeMsg
        case "INTERNAL": self = .internal
        case "DUPLICATE_": self = .duplicate
        default: throw .malformed("unknown error type")
        }
    }
}

/// `CMD` errors (`CommandError`, smp.md §3.5).
public enum CommandError: String, Hashable, Sendable, CaseIterable {
    case unknown = "UNKNOWN"
    case syntax = "SYNTAX"
    case prohibited = "PROHIBITED"
    case noAuth = "NO_AUTH"
    case hasAuth = "HAS_AUTH"
    case noEntity = "NO_ENTITY"

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        let word = String(decoding: r.readWord(), as: UTF8.self)
        // Older servers say NO_QUEUE.
        guard let e = word == "NO_QUEUE" ? .noEntity : CommandError(rawValue: word) else {
            throw .malformed("unknown command error")
        }
        self = e
    }
}

/// Why a queue is blocked (`BlockingInfo`, smp.md §3.5): `reason=spam|content[,notice=<JSON>]`.
public struct BlockingInfo: Hashable, Sendable {
    public enum Reason: String, Hashable, Sendable {
        case spam
        case content
    }

    public var reason: Reason
    /// The operator's notice (`ClientNotice`) as JSON text, kept as received (v ≥ 18).
    public var notice: [UInt8]?

    public init(reason: Reason, notice: [UInt8]? = nil) {
        self.reason = reason
        self.notice = notice
    }

    func encode(to w: inout ByteWriter) {
        w.writeASCII("reason=")
        w.writeBytes(Array(reason.rawValue.utf8))
        if let notice {
            w.writeASCII(",notice=")
            w.writeBytes(notice)
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        guard r.skip(Array("reason=".utf8)) else { throw .malformed("BLOCKED without reason") }
        if r.skip(Array("spam".utf8)) {
            reason = .spam
        } else if r.skip(Array("content".utf8)) {
            reason = .content
        } else {
            throw .malformed("unknown blocking reason")
        }
        if r.skip(Array(",notice=".utf8)) {
            let json = r.readRest()
            guard (try? CanonicalJSON.parse(json)) != nil else { throw .malformed("BLOCKED notice is not JSON") }
            notice = json
        } else {
            notice = nil
        }
    }
}

/// Errors of private routing (`ProxyError`, smp.md §3.5); parsed so a client can show them, not produced by
/// phase-1 code.
public indirect enum ProxyError: Hashable, Sendable {
    case `protocol`(SMPErrorType)
    case broker(BrokerErrorType)
    case basicAuth
    case noSession

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .protocol(let e):
            w.writeASCII("PROTOCOL ")
            try e.encode(to: &w)
        case .broker(let e):
            w.writeASCII("BROKER ")
            try e.encode(to: &w)
        case .basicAuth: w.writeASCII("BASIC_AUTH")
        case .noSession: w.writeASCII("NO_SESSION")
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        switch String(decoding: r.readWord(), as: UTF8.self) {
        case "PROTOCOL":
            try r.expectSpace()
            self = .protocol(try SMPErrorType(from: &r))
        case "BROKER":
            try r.expectSpace()
            self = .broker(try BrokerErrorType(from: &r))
        case "BASIC_AUTH": self = .basicAuth
        case "NO_SESSION": self = .noSession
        default: throw .malformed("unknown proxy error")
        }
    }
}

/// A proxy's failure to reach the destination relay (`BrokerErrorType`).
public enum BrokerErrorType: Hashable, Sendable {
    case response(String)
    case unexpected(String)
    case transport(TransportError)
    /// Written as the bare word `NETWORK` by current servers; a detail is parsed when present.
    case network(NetworkError)
    case timeout
    case host
    case noService

    func encode(to w: inout ByteWriter) throws(BinaryEncodingError) {
        switch self {
        case .response(let s):
            w.writeASCII("RESPONSE ")
            try w.writeShortBytes(Array(s.utf8))
        case .unexpected(let s):
            w.writeASCII("UNEXPECTED ")
            try w.writeShortBytes(Array(s.utf8))
        case .transport(let e):
            w.writeASCII("TRANSPORT ")
            e.encode(to: &w)
        case .network: w.writeASCII("NETWORK")
        case .timeout: w.writeASCII("TIMEOUT")
        case .host: w.writeASCII("HOST")
        case .noService: w.writeASCII("NO_SERVICE")
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        switch String(decoding: r.readWord(), as: UTF8.self) {
        case "RESPONSE":
            try r.expectSpace()
            self = .response(String(decoding: try r.readShortBytes(), as: UTF8.self))
        case "UNEXPECTED":
            try r.expectSpace()
            self = .unexpected(String(decoding: try r.readShortBytes(), as: UTF8.self))
        case "TRANSPORT":
            try r.expectSpace()
            self = .transport(try TransportError(from: &r))
        case "NETWORK":
            if r.peekByte() == 0x20 {
                try r.expectSpace()
                self = .network(try NetworkError(from: &r))
            } else {
                self = .network(.failed)
            }
        case "TIMEOUT": self = .timeout
        case "HOST": self = .host
        case "NO_SERVICE": self = .noService
        default: throw .malformed("unknown broker error")
        }
    }
}

/// A network failure detail (`NetworkError`).
public enum NetworkError: Hashable, Sendable {
    case connect(String)
    case tls(String)
    case unknownCA
    case failed
    case timeout
    case subscribe(String)

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        func text(_ r: inout ByteReader) throws(BinaryDecodingError) -> String {
            try r.expectSpace()
            return String(decoding: try r.readShortBytes(), as: UTF8.self)
        }
        switch String(decoding: r.readWord(), as: UTF8.self) {
        case "CONNECT": self = .connect(try text(&r))
        case "TLS": self = .tls(try text(&r))
        case "UNKNOWNCA": self = .unknownCA
        case "FAILED": self = .failed
        case "TIMEOUT": self = .timeout
        case "SUBSCRIBE": self = .subscribe(try text(&r))
        default: throw .malformed("unknown network error")
        }
    }
}

/// A transport failure (`TransportError`, smp.md §2.4, §3.5); the connection is closed after it.
public enum TransportError: Hashable, Sendable, Error {
    /// A block or batch that does not parse (`TEBadBlock`).
    case block
    /// No common version (`TEVersion`).
    case version
    /// A transmission too large for a block, or a block that does not decrypt (`TELargeMsg`).
    case largeMsg
    /// The server hello's session id is not ours (`TEBadSession`).
    case session
    /// A v7 queue without the server's key (`TENoServerAuth`).
    case noAuth
    case handshake(HandshakeError)

    func encode(to w: inout ByteWriter) {
        switch self {
        case .block: w.writeASCII("BLOCK")
        case .version: w.writeASCII("VERSION")
        case .largeMsg: w.writeASCII("LARGE_MSG")
        case .session: w.writeASCII("SESSION")
        case .noAuth: w.writeASCII("NO_AUTH")
        case .handshake(let e):
            w.writeASCII("HANDSHAKE ")
            w.writeBytes(Array(e.rawValue.utf8))
        }
    }

    init(from r: inout ByteReader) throws(BinaryDecodingError) {
        switch String(decoding: r.readWord(), as: UTF8.self) {
        case "BLOCK": self = .block
        case "VERSION": self = .version
        case "LARGE_MSG": self = .largeMsg
        case "SESSION": self = .session
        case "NO_AUTH": self = .noAuth
        case "HANDSHAKE":
            try r.expectSpace()
            guard let e = HandshakeError(rawValue: String(decoding: r.readWord(), as: UTF8.self)) else {
                throw .malformed("unknown handshake error")
            }
            self = .handshake(e)
        default: throw .malformed("unknown transport error")
        }
    }
}

/// A handshake failure (`HandshakeError`, smp.md §2.4).
public enum HandshakeError: String, Error, Hashable, Sendable, CaseIterable {
    /// A handshake block that does not parse.
    case parse = "PARSE"
    /// The server is not the one the address names.
    case identity = "IDENTITY"
    /// The server's signed key does not verify.
    case badAuth = "BAD_AUTH"
    case badService = "BAD_SERVICE"
}

extension SMPErrorType {
    /// The `ERR` body's bytes.
    public func encoded() throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        try encode(to: &w)
        return w.bytes
    }

    /// Parses a whole `ERR` body.
    public init(decoding bytes: [UInt8]) throws(BinaryDecodingError) {
        var r = ByteReader(bytes)
        self = try SMPErrorType(from: &r)
        try r.expectEnd()
    }
}

extension TransportError {
    public func encoded() -> [UInt8] {
        var w = ByteWriter()
        encode(to: &w)
        return w.bytes
    }

    public init(decoding bytes: [UInt8]) throws(BinaryDecodingError) {
        var r = ByteReader(bytes)
        self = try TransportError(from: &r)
        try r.expectEnd()
    }
}
