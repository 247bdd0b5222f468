public import SMP
public import SimplexCrypto
public import SimplexNet
public import SimplexTLS

/// Why an SMP client operation failed (smp.md §2, §3.5): the layer that failed, with its own typed reason.
public enum SMPClientError: Error, Equatable, Sendable {
    /// TCP did not connect (smp.md §2.1): refused, timed out, unreachable, a name that does not resolve.
    case connect(NetError)
    /// The server's host is an IPv6 address or an onion name (Tor): not served yet.
    case hostNotServed(String)
    /// TLS failed (smp.md §2.2): a wrong identity (`TLSError.identity`), a bad chain (`certificateChain`), no
    /// shared ALPN (`noSharedApplicationProtocol`), or OpenSSL's reason.
    case tls(TLSError)
    /// The SMP handshake or the block stream failed (smp.md §2.4–§2.6): `VERSION`, `SESSION`, `HANDSHAKE
    /// IDENTITY|BAD_AUTH|PARSE`, `NO_AUTH`, a block that does not parse or decrypt. The connection is closed.
    case transport(TransportError)
    /// The server answered `ERR` with this code (smp.md §3.5).
    case server(SMPErrorType)
    /// The server answered with a response that does not fit the command (its tag), or one that did not parse.
    case unexpectedResponse(String)
    /// A command could not be encoded: too large for a block, or a field too long.
    case invalidCommand(String)
    /// No response within the configured time (smp.md §2.7).
    case timeout
    /// The connection closed before the response arrived.
    case connectionLost
    /// The client was closed.
    case closed
}

/// What a subscriber hears about its queue (smp.md §3.4, §3.8).
public enum SMPQueueEvent: Equatable, Sendable {
    /// A message pushed after `SUB` or after the previous `ACK`; acknowledge it with `ack`.
    case message(SMPMessage)
    /// Another connection subscribed to the queue; this stream ends.
    case end
    /// The queue was deleted from another connection (`DELD`); this stream ends.
    case deleted
    /// The connection to the server was lost; the client reconnects with back-off and subscribes again.
    case disconnected(SMPClientError)
    /// The queue was subscribed again after a reconnect.
    case resubscribed
    /// Subscribing again after a reconnect failed; a server error (the queue is gone: `AUTH`) ends the stream.
    case resubscriptionFailed(SMPClientError)
}

/// A message as the recipient reads it (smp.md §3.7): its id, and its content opened with the queue's DH secret —
/// a sent message, the `QUOTA` marker, or why it could not be opened (it must still be acknowledged).
public struct SMPMessage: Equatable, Sendable {
    public let msgId: MsgId
    public let content: Result<ReceivedMessageContent, MessageDecryptionError>

    public init(msgId: MsgId, content: Result<ReceivedMessageContent, MessageDecryptionError>) {
        self.msgId = msgId
        self.content = content
    }

    /// Opens `message` with the queue's secret.
    public init(_ message: ReceivedMessage, secret: X25519.SharedSecret) {
        msgId = message.msgId
        content = Result { () throws(MessageDecryptionError) -> ReceivedMessageContent in try message.open(secret: secret) }
    }

    /// The body of an ordinary message, nil for the quota marker or an undecryptable one.
    public var body: [UInt8]? {
        if case .success(.message(_, _, let body)) = content { return body }
        return nil
    }

    /// Whether this is the quota marker: the queue filled up after the messages before it.
    public var isQuota: Bool {
        if case .success(.quota) = content { return true }
        return false
    }
}
