public import SimplexCrypto
public import SimplexEncoding

/// What both ends agreed in the handshake and every transmission depends on (`THandleParams`, smp.md §3.1).
public struct TransportParameters: Hashable, Sendable {
    public var version: UInt16
    public var sessionId: SessionId

    public init(version: UInt16, sessionId: SessionId) {
        self.version = version
        self.sessionId = sessionId
    }

    /// v ≥ 7: the session id is signed but not sent.
    public var impliesSessionId: Bool { version >= SMPVersion.authCommands }
    /// v ≥ 16: signed transmissions carry the service-signature slot.
    public var hasServiceSignatureSlot: Bool { version >= SMPVersion.serviceCerts }
}

/// How a transmission is authorized (`TransmissionAuth`, smp.md §3.1): a signature, or the 80-byte X25519
/// authenticator of v ≥ 7 (which clients of the reference do not use).
public enum TransmissionAuthorization: Hashable, Sendable {
    case signature(SMPSignature)
    case authenticator([UInt8])

    /// The authenticator's fixed size (`cbAuthenticatorSize`).
    public static let authenticatorSize = 80

    var bytes: [UInt8] {
        switch self {
        case .signature(let s): s.rawRepresentation
        case .authenticator(let a): a
        }
    }

    /// `decodeTAuthBytes`: 80 bytes are an authenticator, other lengths a signature.
    init(bytes: [UInt8]) throws(BinaryDecodingError) {
        if bytes.count == Self.authenticatorSize {
            self = .authenticator(bytes)
        } else {
            self = .signature(try SMPSignature(rawRepresentation: bytes))
        }
    }
}

/// A transmission's authorization with the v16+ service signature (`TAuthorizations`).
public struct Authorizations: Hashable, Sendable {
    public var authorization: TransmissionAuthorization
    /// The client service's second signature; `"0"` (none) from ordinary clients.
    public var serviceSignature: Ed25519.Signature?

    public init(_ authorization: TransmissionAuthorization, serviceSignature: Ed25519.Signature? = nil) {
        self.authorization = authorization
        self.serviceSignature = serviceSignature
    }
}

/// A transmission as either end reads it (smp.md §3.1): correlation id, entity, and the parsed command or response
/// — or the error the reference reports for it, with the correlation id kept so the error can be answered.
public struct SMPTransmission<Message: Hashable & Sendable>: Hashable, Sendable {
    public var corrId: CorrId
    public var entityId: EntityId
    public var message: Result<Message, SMPErrorType>

    public init(corrId: CorrId, entityId: EntityId, message: Result<Message, SMPErrorType>) {
        self.corrId = corrId
        self.entityId = entityId
        self.message = message
    }
}

/// A client command as a server reads it, with what its authorization covers.
public struct AuthorizedCommand: Hashable, Sendable {
    public var authorizations: Authorizations?
    /// The bytes the signature covers: `len1(sessionId) ‖ corrId ‖ entityId ‖ command`.
    public var authorizedBytes: [UInt8]
    public var command: SMPCommand

    /// Whether the transmission is signed by `key` (an unsigned one verifies with no key).
    public func isAuthorized(by key: AuthPublicKey) -> Bool {
        guard case .signature(let s) = authorizations?.authorization else { return false }
        return key.isValidSignature(s, for: authorizedBytes)
    }
}

/// Encoding and decoding of transmissions (smp.md §3.1), for both directions.
public enum Transmissions {
    /// The unsigned part: `len1(corrId) ‖ len1(entityId) ‖ command`.
    static func body(corrId: CorrId, entityId: EntityId, command: [UInt8]) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: command.count + 64)
        try w.write(corrId)
        try w.write(entityId)
        w.writeBytes(command)
        return w.bytes
    }

    /// The bytes a client's key signs for this transmission (`tForAuth`).
    public static func bytesForAuthorization(
        corrId: CorrId, entityId: EntityId, command: SMPCommand, parameters p: TransportParameters
    ) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        try w.write(p.sessionId)
        w.writeBytes(try body(corrId: corrId, entityId: entityId, command: command.encoded(version: p.version)))
        return w.bytes
    }

    /// A client transmission, signed with `key` when given (Ed25519, as the reference client signs).
    public static func encodeCommand(
        corrId: CorrId, entityId: EntityId, command: SMPCommand, parameters p: TransportParameters,
        signedWith key: Ed25519.PrivateKey?
    ) throws(BinaryEncodingError) -> [UInt8] {
        let forAuth = try bytesForAuthorization(corrId: corrId, entityId: entityId, command: command, parameters: p)
        let auth = key.map { Authorizations(.signature(.ed25519($0.signature(for: forAuth)))) }
        return try encodeCommand(authorizedBytes: forAuth, authorizations: auth, parameters: p)
    }

    /// A client transmission from the bytes of `bytesForAuthorization` and their authorization.
    public static func encodeCommand(
        authorizedBytes forAuth: [UInt8], authorizations: Authorizations?, parameters p: TransportParameters
    ) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter(capacity: forAuth.count + 120)
        if let authorizations {
            try w.writeShortBytes(authorizations.authorization.bytes)
            if p.hasServiceSignatureSlot {
                try w.writeMaybe(authorizations.serviceSignature) { (w, s) throws(BinaryEncodingError) in
                    try w.writeShortBytes(s.rawRepresentation)
                }
            }
        } else {
            w.writeByte(0)
        }
        // Below v7 the session id is sent as well as signed.
        w.writeBytes(p.impliesSessionId ? forAuth.dropFirst(1 + p.sessionId.bytes.count) : forAuth[...])
        return w.bytes
    }

    /// A server transmission: no authorization, then (below v7) the session id, correlation id, entity, response.
    public static func encodeResponse(
        corrId: CorrId, entityId: EntityId, message: SMPBrokerMessage, parameters p: TransportParameters
    ) throws(BinaryEncodingError) -> [UInt8] {
        var w = ByteWriter()
        w.writeByte(0)
        if !p.impliesSessionId { try w.write(p.sessionId) }
        w.writeBytes(try body(corrId: corrId, entityId: entityId, command: message.encoded(version: p.version)))
        return w.bytes
    }

    /// The framing every transmission shares (`transmissionP`).
    struct Raw {
        var authorization: [UInt8]
        var serviceSignature: Ed25519.Signature?
        var authorized: [UInt8]
        var sessionId: SessionId?
        var corrId: CorrId
        var entityId: EntityId
        var command: [UInt8]

        init(_ bytes: [UInt8], _ p: TransportParameters) throws(BinaryDecodingError) {
            var r = ByteReader(bytes)
            authorization = try r.readShortBytes()
            serviceSignature = nil
            if p.hasServiceSignatureSlot, !authorization.isEmpty {
                serviceSignature = try r.readMaybe { (r: inout ByteReader) throws(BinaryDecodingError) in
                    let raw = try r.readShortBytes()
                    return try mapCrypto { () throws(CryptoError) in try Ed25519.Signature(rawRepresentation: raw) }
                }
            }
            let rest = r.readRest()
            var t = ByteReader(rest)
            sessionId = p.impliesSessionId ? nil : try t.readSessionId()
            corrId = try t.readCorrId()
            entityId = try t.readEntityId()
            command = t.readRest()
            if p.impliesSessionId {
                var w = ByteWriter(capacity: rest.count + 33)
                do { try w.write(p.sessionId) } catch { throw .malformed("session id longer than 255 bytes") }
                w.writeBytes(rest)
                authorized = w.bytes
            } else {
                authorized = rest
            }
        }

        func sessionMatches(_ p: TransportParameters) -> Bool { p.impliesSessionId || sessionId == p.sessionId }
    }

    /// A server reads a client transmission (`tDecodeServer`): a framing failure is `BLOCK` with no correlation
    /// id; a wrong session `SESSION`; a bad authorization size `BLOCK`; then the command's parse and credential
    /// errors. Never throws: every failure is an error to answer.
    public static func decodeCommand(_ bytes: [UInt8], parameters p: TransportParameters) -> SMPTransmission<AuthorizedCommand> {
        let raw: Raw
        do { raw = try Raw(bytes, p) } catch {
            return SMPTransmission(corrId: .empty, entityId: .empty, message: .failure(.block))
        }
        func failure(_ e: SMPErrorType, entity: EntityId = .empty) -> SMPTransmission<AuthorizedCommand> {
            SMPTransmission(corrId: raw.corrId, entityId: entity, message: .failure(e))
        }
        guard raw.sessionMatches(p) else { return failure(.session) }
        let authorizations: Authorizations?
        if raw.authorization.isEmpty {
            authorizations = nil
        } else {
            guard let a = try? TransmissionAuthorization(bytes: raw.authorization) else { return failure(.block) }
            authorizations = Authorizations(a, serviceSignature: raw.serviceSignature)
        }
        let command: SMPCommand
        do { command = try SMPCommand(parsing: raw.command, version: p.version) } catch {
            return failure(error.errorType, entity: raw.entityId)
        }
        if let e = command.credentialsError(authorized: authorizations != nil, entityId: raw.entityId) {
            return failure(e, entity: raw.entityId)
        }
        return SMPTransmission(
            corrId: raw.corrId, entityId: raw.entityId,
            message: .success(
                AuthorizedCommand(authorizations: authorizations, authorizedBytes: raw.authorized, command: command)))
    }

    /// A client reads a server transmission (`tDecodeClient`), with the same error rules.
    public static func decodeResponse(_ bytes: [UInt8], parameters p: TransportParameters) -> SMPTransmission<SMPBrokerMessage> {
        let raw: Raw
        do { raw = try Raw(bytes, p) } catch {
            return SMPTransmission(corrId: .empty, entityId: .empty, message: .failure(.block))
        }
        guard raw.sessionMatches(p) else {
            return SMPTransmission(corrId: raw.corrId, entityId: .empty, message: .failure(.session))
        }
        let message: SMPBrokerMessage
        do { message = try SMPBrokerMessage(parsing: raw.command, version: p.version) } catch {
            return SMPTransmission(corrId: raw.corrId, entityId: raw.entityId, message: .failure(error.errorType))
        }
        if let e = message.entityError(entityId: raw.entityId) {
            return SMPTransmission(corrId: raw.corrId, entityId: raw.entityId, message: .failure(e))
        }
        return SMPTransmission(corrId: raw.corrId, entityId: raw.entityId, message: .success(message))
    }
}
